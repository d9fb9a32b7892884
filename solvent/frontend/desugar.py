"""Source-level rewrites done once, on the parsed function, before translation.

``for`` over anything but ``range`` becomes a ``range`` loop over indices, so that every
later stage (liveness, loop translation) sees one loop form:

    for T in X:              __solvent_it1 = X
        body          ->     for __solvent_i1 in range(len(__solvent_it1)):
                                 T = __solvent_it1[__solvent_i1]
                                 body

``enumerate(X[, start])`` binds ``(start + i, X[i])`` and ``zip(X, Y, ...)`` binds
``(X[i], Y[i], ...)`` over ``min(len(X), len(Y), ...)``. The iterable is evaluated once,
before the loop, as Python does. ``X[i]`` of an array is a view, so ``for row in A: row[0] = 1``
writes into ``A`` as in NumPy. When the iterable turns out to be a compile-time tuple, the
translator unrolls the loop instead (``ITER_ATTR`` marks such loops).

Identity: Python's iteration protocol over a sequence of known length visits ``X[0]``,
``X[1]``, ... in order; NumPy arrays iterate over their first axis the same way.
"""
from __future__ import annotations

import ast
import copy

ITER_ATTR = "_solvent_iterables"  # on a rewritten For: the hidden names of its iterables
PREFIX = "__solvent_"


class _IterLoops(ast.NodeTransformer):
    def __init__(self):
        self.count = 0

    def visit_For(self, node: ast.For):
        self.generic_visit(node)
        it = node.iter
        if _is_call_to(it, "range"):
            return node
        self.count += 1
        k = self.count
        idx = f"{PREFIX}i{k}"
        seqs: list = []
        item = _items(it, idx, k, seqs)
        names = [f"{PREFIX}it{k}_{j}" for j in range(len(seqs))]
        pre = [ast.Assign([ast.Name(n, ast.Store())], s) for n, s in zip(names, seqs)]
        lens = [ast.Call(_name("len"), [_name(n)], []) for n in names]
        count = lens[0] if len(lens) == 1 else ast.Call(_name("min"), lens, [])
        bind = ast.Assign([copy.deepcopy(node.target)], item)
        loop = ast.For(ast.Name(idx, ast.Store()), ast.Call(_name("range"), [count], []),
                       [bind] + node.body, node.orelse, getattr(node, "type_comment", None))
        setattr(loop, ITER_ATTR, (names, node.target, node.body))
        out = pre + [loop]
        original = {id(n) for n in ast.walk(node)}
        for n in out:  # new nodes point at the `for` line; the user's own keep theirs
            for sub in ast.walk(n):
                if id(sub) not in original:
                    ast.copy_location(sub, node)
        return out


def _items(it, idx: str, k: int, seqs: list) -> ast.expr:
    """The item bound at index ``idx`` of iterable ``it``: enumerate and zip (nested in
    any way) become tuples; anything else is a sequence indexed by ``idx`` (appended to
    ``seqs``, evaluated once before the loop)."""
    if _is_call_to(it, "enumerate") and 1 <= len(it.args) <= 2 and not it.keywords:
        start = it.args[1] if len(it.args) == 2 else ast.Constant(0)
        return ast.Tuple([ast.BinOp(start, ast.Add(), _name(idx)),
                          _items(it.args[0], idx, k, seqs)], ast.Load())
    if _is_call_to(it, "zip") and it.args and not it.keywords:
        return ast.Tuple([_items(a, idx, k, seqs) for a in it.args], ast.Load())
    seqs.append(it)
    return _subscript(f"{PREFIX}it{k}_{len(seqs) - 1}", idx)


def _is_call_to(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _name(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def _subscript(seq: str, idx: str) -> ast.Subscript:
    return ast.Subscript(_name(seq), _name(idx), ast.Load())


def desugar(tree: ast.FunctionDef) -> ast.FunctionDef:
    _IterLoops().visit(tree)
    ast.fix_missing_locations(tree)
    return tree
