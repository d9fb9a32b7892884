"""Barrier-free kernels as loops over global thread indices (grid flattening).

A kernel with no barrier left (none written, or all removed by barriers.py), no shared
arrays and no atomics whose threads use their indices only through ``cuda.grid(n)``
(``blockIdx.x * blockDim.x + threadIdx.x``) does not need the block/thread structure on a
CPU: its threads are independent iterations of one loop per grid dimension,

    for bx in range(GX): for tx in range(BX): body(bx * BX + tx)
      ->  for gx in range(GX * BX): body(gx)

Three things then make the loops what a CPU (and the raising pass) wants:

- **Guards become bounds.** A leading ``if i < n and 1 <= j < m - 1:`` around the rest of
  the body, or ``if i >= n: return`` before it, whose comparisons put a global index
  (plus a constant) against a value the same in every thread (constants, shapes, scalar
  parameters), is the loop's range: ``for gx in range(max(0, lo), min(GX * BX, hi))``.
  The threads the guard excluded did nothing.
- **Loop order.** The dimension whose index is the last subscript of the arrays the body
  touches goes innermost (``c[i, j]`` with ``i, j = cuda.grid(2)`` walks rows in the inner
  loop on a GPU, where threadIdx.x is fastest, and would stride across them on a CPU).
- **Parallel loop.** The outermost loop says ``disjoint`` when every array the kernel
  writes is accessed, in every access, at the same subscript ``g + c`` of that loop's
  index: distinct iterations then touch distinct elements.

Identity: the threads of a barrier-free kernel without atomics are independent (the
program's meaning does not depend on their order), and thread ``(bx, tx)`` is iteration
``g = bx * BX + tx``; a guard that is false does nothing, so skipping those iterations is
the same program. ``cuda.local.array`` becomes one zeroed array per iteration.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from ..frontend.scopes import assigned_names
from .analysis import accesses, has_barrier, names_read
from .fission import _reads_no_memory   # one notion of "reads no element" for both
from .intrinsics import BLOCK, FLAT_THREAD, NUMPY, THREAD, Config, Rewriter

GLOBAL = ("__simt_gx", "__simt_gy", "__simt_gz")


@dataclass
class Flat:
    """A flattened kernel: its code, and what explain says about it."""
    code: list
    order: list                 # grid dimensions, outermost first
    bounds: dict = field(default_factory=dict)   # dim -> (lo, hi) source text
    parallel: bool = False
    parallel_reason: str = ""


def flatten(body, config: Config, params, args_of, rewritten, private) -> Flat | None:
    """The flattened kernel, or None when the kernel needs its block structure."""
    if rewritten.shared or rewritten.atomic_targets or rewritten.device_atomics or private:
        return None
    if any(has_barrier(s) for s in body):
        return None
    extent = [config.grid[d] * config.block[d] for d in range(3)]
    body = [_Globals(config).visit(copy.deepcopy(s)) for s in body]
    used = set().union(*(names_read(s) for s in body)) if body else set()
    if used & (set(THREAD) | set(BLOCK)):
        return None   # an index used other than through cuda.grid
    if set(assigned_names(body)) & (set(params) | set(GLOBAL) | {FLAT_THREAD}):
        return None   # a parameter a thread reassigns starts every thread at the caller's value
    once = _assigned_once(body)
    prologue, aliases, rest, conds = _split(body, once, set(params))
    if rest is None:
        return None
    bounds = {d: ([], []) for d in range(3)}
    kept = []
    ints = _int_names(prologue, {p for p in params if _is_int(args_of.get(p))})
    for c in conds:
        hit = _bound(c, aliases, ints)
        if hit is None:
            kept.append(c)
        else:
            d, is_lo, e = hit
            bounds[d][0 if is_lo else 1].append(e)
    if kept:
        test = kept[0] if len(kept) == 1 else ast.BoolOp(ast.And(), kept)
        rest = [ast.copy_location(ast.If(test, rest, []), rest[0])]
    inner = [d for d in range(3) if extent[d] > 1]
    order = _order(inner, rest, aliases)
    locals_ = [Rewriter.zeros(dec, (1,)) for dec in rewritten.local]
    flat_t = [ast.Assign([ast.Name(FLAT_THREAD, ast.Store())], ast.Constant(0))] \
        if FLAT_THREAD in used else []
    loop_body = flat_t + locals_ + aliases + rest
    consts = [ast.Assign([ast.Name(GLOBAL[d], ast.Store())], ast.Constant(0))
              for d in range(3) if extent[d] == 1 and GLOBAL[d] in used]
    code = loop_body
    shown = {}
    for d in reversed(order):
        lo = _combine("max", [ast.Constant(0)] + bounds[d][0])
        hi = _combine("min", [ast.Constant(extent[d])] + bounds[d][1])
        shown[d] = (ast.unparse(lo), ast.unparse(hi))
        args = [hi] if isinstance(lo, ast.Constant) and lo.value == 0 else [lo, hi]
        code = [ast.For(ast.Name(GLOBAL[d], ast.Store()),
                        ast.Call(ast.Name("range", ast.Load()), args, []), code, [])]
    flat = Flat(consts + prologue + code, order, shown)
    if order:
        flat.parallel, flat.parallel_reason = _disjoint(body, order[0], aliases, params,
                                                       args_of)
    else:
        flat.parallel_reason = "one thread"
    return flat


def _is_int(v) -> bool:
    import numpy as np
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _int_names(prologue, int_params: set) -> set:
    """Names the prologue gives integer values: from int constants, int parameters, array
    shapes and sizes, with + - * // min max between them."""
    out = set(int_params)
    for s in prologue:
        t, v = s.targets[0], s.value
        if len(s.targets) != 1:
            continue
        if isinstance(t, ast.Tuple):
            if isinstance(v, ast.Attribute) and v.attr == "shape":
                out |= {e.id for e in t.elts if isinstance(e, ast.Name)}
            continue
        if isinstance(t, ast.Name) and _int_expr(v, out):
            out.add(t.id)
    return out


def _int_expr(e, ints: set) -> bool:
    if isinstance(e, ast.Constant):
        return type(e.value) is int
    if isinstance(e, ast.Name):
        return e.id in ints
    if isinstance(e, ast.Attribute):
        return e.attr in ("size", "ndim") and isinstance(e.value, ast.Name)
    if isinstance(e, ast.Subscript):   # x.shape[k]
        return isinstance(e.value, ast.Attribute) and e.value.attr == "shape" and \
            isinstance(e.slice, ast.Constant) and type(e.slice.value) is int
    if isinstance(e, ast.BinOp):
        return isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)) and \
            _int_expr(e.left, ints) and _int_expr(e.right, ints)
    if isinstance(e, ast.UnaryOp):
        return isinstance(e.op, ast.USub) and _int_expr(e.operand, ints)
    if isinstance(e, ast.Call):
        return isinstance(e.func, ast.Name) and e.func.id in ("min", "max", "len") and \
            not e.keywords and all(_int_expr(a, ints) for a in e.args)
    return False


class _Globals(ast.NodeTransformer):
    """``bx * BX + tx`` -> ``gx``; ``bx`` alone when blocks have one thread along that
    dimension, ``tx`` alone when the grid has one block along it."""

    def __init__(self, config: Config):
        self.config = config

    def visit_BinOp(self, node):
        for d in range(3):
            if _is_global(node, d, self.config.block[d]):
                return ast.copy_location(ast.Name(GLOBAL[d], ast.Load()), node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        for d in range(3):
            if node.id == BLOCK[d] and self.config.block[d] == 1 or \
                    node.id == THREAD[d] and self.config.grid[d] == 1:
                return ast.copy_location(ast.Name(GLOBAL[d], node.ctx), node)
        return node


def _is_global(e, d: int, width: int) -> bool:
    return isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add) \
        and isinstance(e.right, ast.Name) and e.right.id == THREAD[d] \
        and isinstance(e.left, ast.BinOp) and isinstance(e.left.op, ast.Mult) \
        and isinstance(e.left.left, ast.Name) and e.left.left.id == BLOCK[d] \
        and isinstance(e.left.right, ast.Constant) and e.left.right.value == width


def _assigned_once(body) -> set:
    counts: dict = {}
    for node in ast.walk(ast.Module(body, [])):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
            for n in assigned_names([node]):
                counts[n] = counts.get(n, 0) + 1
    return {n for n, c in counts.items() if c == 1}


def _split(body, once, params):
    """(hoisted uniform assignments, per-iteration alias assignments, the rest, the guard's
    conjuncts). Leading assignments of names assigned once, from pure expressions: those
    without a global index run once before the loops, the others stay first in the body.
    Then ``if C: rest`` (C's conjuncts) or ``if C: return`` followed by the rest (not C)."""
    prologue, aliases, i = [], [], 0
    while i < len(body) and isinstance(body[i], ast.Assign) and \
            _reads_no_memory(body[i].value) and set(assigned_names([body[i]])) <= once and all(
                isinstance(t, (ast.Name, ast.Tuple)) for t in body[i].targets):
        s = body[i]
        reads = names_read(s.value)
        per_iteration = reads & (set(GLOBAL) | set(assigned_names(aliases)))
        (aliases if per_iteration else prologue).append(s)
        i += 1
    rest = body[i:]
    conds = []
    while rest and isinstance(rest[0], ast.If) and not rest[0].orelse:
        s = rest[0]
        if len(rest) == 1 and not _returns(s.body):
            conds += _conjuncts(s.test, True)
            rest = s.body
        elif len(s.body) == 1 and isinstance(s.body[0], ast.Return) and \
                s.body[0].value is None and not any(_returns(x) for x in rest[1:]):
            conds += _conjuncts(s.test, False)
            rest = rest[1:]
        else:
            break
    if any(_returns(s) for s in rest):
        return prologue, aliases, None, conds
    return prologue, aliases, rest or [ast.Pass()], conds


def _returns(stmts) -> bool:
    stmts = stmts if isinstance(stmts, list) else [stmts]
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


_FLIP = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt}


def _conjuncts(test, truth: bool) -> list:
    """Comparisons whose conjunction is ``test == truth`` (single-operator Compares), or
    ``[test]`` / ``[not test]`` when it is no such conjunction."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _conjuncts(test.operand, not truth)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if truth else ast.Or):
        return [c for v in test.values for c in _conjuncts(v, truth)]
    if isinstance(test, ast.Compare) and all(type(o) in _FLIP for o in test.ops):
        items = [test.left] + test.comparators
        if truth or len(test.ops) == 1:
            return [ast.Compare(items[k], [op if truth else _FLIP[type(op)]()],
                                [items[k + 1]]) for k, op in enumerate(test.ops)]
    return [test if truth else ast.UnaryOp(ast.Not(), test)]


def _bound(c, aliases, uniform_names):
    """(dim, is_lower, bound expression) when comparison ``c`` is ``g_d + k <op> u`` (or
    mirrored) with ``u`` an integer the same in every thread (``uniform_names``: integer
    parameters and prologue names); else None."""
    if not (isinstance(c, ast.Compare) and len(c.ops) == 1):
        return None
    left, right, op = c.left, c.comparators[0], type(c.ops[0])
    g = _offset(left, aliases)
    if g is None:   # u <op> g  is  g <mirrored op> u
        g = _offset(right, aliases)
        if g is None:
            return None
        right = left
        op = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}[op]
    d, k = g
    if not _int_expr(right, uniform_names) or names_read(right) & set(GLOBAL):
        return None   # an int the same in every thread (a float bound stays in the if)
    u = copy.deepcopy(right)
    if k:
        u = ast.BinOp(u, ast.Sub(), ast.Constant(k))
    if op is ast.Lt:        # g < u
        return d, False, u
    if op is ast.LtE:       # g <= u
        return d, False, ast.BinOp(u, ast.Add(), ast.Constant(1))
    if op is ast.GtE:       # g >= u
        return d, True, u
    return d, True, ast.BinOp(u, ast.Add(), ast.Constant(1))   # g > u


def _offset(e, aliases):
    """(d, k) when ``e`` is ``g_d + k`` (aliases followed, k an int constant), else None."""
    e = _expand(e, _alias_map(aliases))
    if isinstance(e, ast.Name) and e.id in GLOBAL:
        return GLOBAL.index(e.id), 0
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)) and \
            isinstance(e.right, ast.Constant) and type(e.right.value) is int:
        inner = _offset(e.left, aliases)
        if inner is not None:
            s = 1 if isinstance(e.op, ast.Add) else -1
            return inner[0], inner[1] + s * e.right.value
    return None


def _alias_map(aliases) -> dict:
    out = {}
    for s in aliases:
        for t in s.targets:
            if isinstance(t, ast.Name):
                out[t.id] = s.value
            elif isinstance(t, ast.Tuple) and isinstance(s.value, ast.Tuple) and \
                    len(t.elts) == len(s.value.elts):
                for tt, vv in zip(t.elts, s.value.elts):
                    if isinstance(tt, ast.Name):
                        out[tt.id] = vv
    return out


def _expand(e, amap, depth=0):
    while isinstance(e, ast.Name) and e.id in amap and depth < 16:
        e, depth = amap[e.id], depth + 1
    return e


def _dim_of(e, amap):
    """The grid dimension whose index ``e`` is (plus a constant), or None."""
    e = _expand(e, amap)
    if isinstance(e, ast.Name) and e.id in GLOBAL:
        return GLOBAL.index(e.id)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)) and \
            isinstance(e.right, ast.Constant):
        return _dim_of(e.left, amap)
    return None


def _order(dims, body, aliases) -> list:
    """``dims`` outermost first: the one most often the last subscript of a 2-D or wider
    access goes innermost; the others keep z, y, x order (the GPU's, x fastest)."""
    amap = _alias_map(aliases)
    score = {d: 0 for d in dims}
    for n in ast.walk(ast.Module(body, [])):
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Tuple) and \
                len(n.slice.elts) >= 2:
            d = _dim_of(n.slice.elts[-1], amap)
            if d in score:
                score[d] += 1
    default = sorted(dims, reverse=True)          # z, y, x: x innermost
    if not dims or max(score.values()) == 0:
        return default
    last = max(dims, key=lambda d: (score[d], d == 0))
    return [d for d in default if d != last] + [last]


def _disjoint(body, d: int, aliases, params, args_of):
    """(parallel, why) for the loop over dimension ``d``'s global index."""
    import numpy as np
    arrays = {p for p in params if isinstance(args_of.get(p), np.ndarray)}
    acc = accesses(body, arrays)
    amap = _alias_map(aliases)
    for name in sorted({a.array for a in acc if a.write}):
        keys = [a.key for a in acc if a.array == name]
        if any(k is None for k in keys) or len({len(k) for k in keys}) != 1:
            return False, f"{name!r} is touched other than element by element"
        ok = False
        for p in range(len(keys[0])):
            forms = {ast.dump(_expand(k[p], amap)) for k in keys}
            if len(forms) == 1 and _offset(keys[0][p], aliases) is not None and \
                    _offset(keys[0][p], aliases)[0] == d:
                ok = True
        if not ok:
            return False, (f"iterations of the {'xyz'[d]} loop may touch the same element "
                           f"of {name!r}")
    return True, (f"every array written is touched by each {'xyz'[d]} index at its own "
                  "elements")


def _combine(fn: str, items: list):
    """``fn(*items)`` with the integer constants among them folded into one."""
    consts = [x.value for x in items if isinstance(x, ast.Constant) and type(x.value) is int]
    rest = [x for x in items if not (isinstance(x, ast.Constant) and type(x.value) is int)]
    if consts:
        rest.insert(0, ast.Constant({"min": min, "max": max}[fn](consts)))
    if len(rest) == 1:
        return rest[0]
    return ast.Call(ast.Name(fn, ast.Load()), rest, [])


__all__ = ["flatten", "Flat", "GLOBAL", "NUMPY"]
