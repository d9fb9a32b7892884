"""Atomic updates of a kernel's array arguments made private to groups of blocks, so that the
blocks can run in parallel.

    cuda.atomic.add(hist, b, v)  ->  __simt_a_hist[__simt_g, b] = __simt_a_hist[__simt_g, b] + v
    before the blocks:   __simt_a_hist = zeros((G,) + hist.shape)   (the update's identity)
    after the blocks:    hist[...] = hist + __simt_a_hist.sum(axis=0)
                         (max: np.maximum(hist, partial.max(axis=0)); min alike)

The grid's blocks are split into ``G`` contiguous groups (fission.block_loop); the loop over
groups runs in parallel, the blocks of one group run in order into the group's partial array.

Identity: atomic add, sub, max and min commute, so the array after the grid is the array
before it combined with every update, in any order; the partials regroup that order. Exact
for integers (wraparound included) and for max/min; float sums are reassociated (a GPU
does not order its atomics either), the same way on every run of one launch configuration.

It applies to an array argument whose every access in the kernel is an atomic update of one
kind among add, sub, max, min whose old value is unused (``old = cuda.atomic.add(...)``
hands out distinct slots: blocks then stay sequential, launch.py says why), of an integer
or float dtype (complex: add and sub only).
"""
from __future__ import annotations

import ast

import numpy as np

from .analysis import accesses
from .intrinsics import ATOMIC_ATTR, NUMPY, numpy_attr

GROUP_IV = "__simt_g"
MAX_GROUPS = 64
MAX_PARTIAL_ELEMENTS = 1 << 22   # all partial arrays together
_FOLD = {"add": ("add", "sum"), "sub": ("add", "sum"), "max": ("maximum", "max"),
         "min": ("minimum", "min")}


def partial_name(n: str) -> str:
    return f"__simt_a_{n}"


def candidates(body, targets: set[str], args_of: dict) -> tuple[dict, dict]:
    """({array: kind} that can be privatized, {array: why not} for the other targets)."""
    kinds: dict = {}
    marked: dict = {}
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Subscript) and hasattr(n, ATOMIC_ATTR) and \
                    isinstance(n.value, ast.Name):
                kinds.setdefault(n.value.id, set()).add(getattr(n, ATOMIC_ATTR))
                marked[n.value.id] = marked.get(n.value.id, 0) + 1
    ok, refused = {}, {}
    all_acc = accesses(body, set(targets))
    for name in sorted(targets):
        a = args_of.get(name)
        ks = kinds.get(name, set())
        n_acc = sum(1 for x in all_acc if x.array == name)
        if not isinstance(a, np.ndarray):
            refused[name] = "it is not an array argument"
        elif None in ks:
            refused[name] = "the old value of an atomic update of it is used"
        elif len(ks) != 1 or next(iter(ks)) not in _FOLD:
            refused[name] = "it takes atomic updates of several kinds (or exch)"
        elif n_acc != marked.get(name, 0):
            refused[name] = "it is also read or written other than by atomic updates"
        elif a.dtype.kind not in "iuf" + ("c" if ks <= {"add", "sub"} else ""):
            refused[name] = f"atomic {next(iter(ks))} on {a.dtype}"
        else:
            ok[name] = next(iter(ks))
    return ok, refused


def groups(blocks: int, arrays: list[np.ndarray]) -> int:
    """How many groups of blocks (one partial array each); below 2: not worth it."""
    size = sum(a.size for a in arrays) or 1
    return min(blocks, MAX_GROUPS, MAX_PARTIAL_ELEMENTS // size)


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if hasattr(node, ATOMIC_ATTR) and isinstance(node.value, ast.Name) and \
                node.value.id in self.names:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            new = ast.Subscript(ast.Name(partial_name(node.value.id), ast.Load()),
                                ast.Tuple([ast.Name(GROUP_IV, ast.Load())] + list(items),
                                          ast.Load()), node.ctx)
            return ast.copy_location(new, node)
        return node


def rename(body: list, names) -> list:
    r = _Rename(set(names))
    return [ast.fix_missing_locations(r.visit(s)) for s in body]


def _identity(kind: str, dt: np.dtype):
    if kind in ("add", "sub"):
        return 0
    big = kind == "min"
    if dt.kind == "f":
        return float("inf") if big else float("-inf")
    info = np.iinfo(dt)
    return int(info.max if big else info.min)


def _np(attr):
    return ast.Attribute(ast.Name(NUMPY, ast.Load()), attr, ast.Load())


def prologue(private: dict, args_of: dict, n_groups: int, where) -> list:
    out = []
    for name, kind in sorted(private.items()):
        a = args_of[name]
        shape = ast.Tuple([ast.Constant(n_groups)] + [ast.Constant(int(d)) for d in a.shape],
                          ast.Load())
        call = ast.Call(_np("full"), [shape, ast.Constant(_identity(kind, a.dtype)),
                                      numpy_attr(a.dtype)], [])
        out.append(ast.Assign([ast.Name(partial_name(name), ast.Store())], call))
    return [ast.fix_missing_locations(ast.copy_location(s, where)) for s in out]


def epilogue(private: dict, where) -> list:
    out = []
    for name, kind in sorted(private.items()):
        combine, fold = _FOLD[kind]
        folded = ast.Call(ast.Attribute(ast.Name(partial_name(name), ast.Load()), fold,
                                        ast.Load()), [], [ast.keyword("axis", ast.Constant(0))])
        new = ast.Call(_np(combine), [ast.Name(name, ast.Load()), folded], [])
        target = ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(Ellipsis), ast.Store())
        out.append(ast.Assign([target], new))
    return [ast.fix_missing_locations(ast.copy_location(s, where)) for s in out]


def describe(private: dict, n_groups: int) -> str:
    names = ", ".join(f"{k!r} ({v})" for k, v in sorted(private.items()))
    return f"atomic updates of {names} go to one partial array per group of blocks " \
           f"({n_groups} groups), folded after the grid"
