"""Syntactic facts about a rewritten kernel body (intrinsics.py's output).

- ``varying``: the names whose value may differ between the threads of a block (taint from
  the thread indices through assignments and through conditions that guard assignments).
- ``accesses``: every element read and write of an array, with its index expressions.
- ``Injectivity``: whether an index expression takes a different value in every thread of a
  block (``private``) or in every block of the grid (``block_private``): the facts barrier
  elimination and the parallel block loop rest on.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..frontend.scopes import assigned_names
from .intrinsics import BARRIER, BLOCK, FLAT_THREAD, READS_ONLY, THREAD


def names_read(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def all_names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def is_barrier(s) -> bool:
    return (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Name) and s.value.func.id == BARRIER)


def has_barrier(node) -> bool:
    return any(is_barrier(n) for n in ast.walk(node))


def varying(body: list) -> set[str]:
    """Names that may differ between threads of one block."""
    out = set(THREAD) | {FLAT_THREAD}

    def visit(stmts, control: bool):
        changed = False
        for s in stmts:
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                value = s.value if s.value is not None else ast.Constant(None)
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                v = control or bool(names_read(value) & out) or any(
                    bool(names_read(t) & out) for t in targets)  # A[i] = ... stores nothing
                if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                    v = v or s.target.id in out
                if v:
                    for n in assigned_names([s]):
                        if n not in out:
                            out.add(n)
                            changed = True
            elif isinstance(s, ast.For):
                c = control or bool(names_read(s.iter) & out)
                if c and isinstance(s.target, ast.Name) and s.target.id not in out:
                    out.add(s.target.id)
                    changed = True
                # a loop that runs a thread-dependent number of times (or breaks under a
                # thread-dependent condition) leaves thread-dependent values
                c = c or _breaks_under(s.body, out)
                changed |= visit(s.body, c)
            elif isinstance(s, ast.While):
                c = control or bool(names_read(s.test) & out) or _breaks_under(s.body, out)
                changed |= visit(s.body, c)
            elif isinstance(s, ast.If):
                c = control or bool(names_read(s.test) & out)
                changed |= visit(s.body, c) | visit(s.orelse, c)
        return changed

    while visit(body, False):
        pass
    return out


def _breaks_under(body, out) -> bool:
    for n in ast.walk(ast.Module(body, [])):
        if isinstance(n, (ast.If, ast.While)) and names_read(n.test) & out and any(
                isinstance(m, (ast.Break, ast.Return)) for b in n.body + n.orelse
                for m in ast.walk(b)):
            return True
    return False


@dataclass
class Access:
    array: str
    key: tuple | None  # the index's components, or None: unknown (any element)
    write: bool
    node: ast.AST


def accesses(stmts, arrays: set[str]) -> list[Access]:
    """Element accesses of ``arrays`` in ``stmts``. Any other use of an array name (passed to
    a function, bound to another name, sliced) counts as an unknown read and write, but for
    an argument that a device function only reads: an unknown read."""
    out: list[Access] = []
    covered: set[int] = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Attribute) and n.attr in _METADATA:
                covered.add(id(n.value))  # x.shape, x.size: no element touched
            if isinstance(n, ast.Call):
                for k in getattr(n, READS_ONLY, ()):
                    a = n.args[k] if k < len(n.args) else None
                    if isinstance(a, ast.Name) and a.id in arrays:
                        covered.add(id(a))
                        out.append(Access(a.id, None, False, a))
            if isinstance(n, ast.AugAssign) and _element(n.target, arrays):
                out.append(Access(n.target.value.id, _key(n.target), False, n))
            if isinstance(n, ast.Subscript) and _element(n, arrays):
                covered.add(id(n.value))
                out.append(Access(n.value.id, _key(n), isinstance(n.ctx, ast.Store), n))
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and n.id in arrays and id(n) not in covered:
                out.append(Access(n.id, None, False, n))
                out.append(Access(n.id, None, True, n))
    return out


_METADATA = ("shape", "size", "ndim", "dtype")


def _element(n, arrays) -> bool:
    return isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) \
        and n.value.id in arrays


def _key(sub: ast.Subscript):
    items = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
    if any(isinstance(i, (ast.Slice, ast.Starred)) for i in items):
        return None
    return tuple(items)


def key_text(key) -> str:
    return "|".join(ast.dump(k) for k in key)


class Injectivity:
    """Which index components are one-to-one in a thread or block index.

    An alias is a name assigned once, at the top level of the kernel, from an injective
    expression (``i = cuda.grid(1)``, ``tx = cuda.threadIdx.x``); it keeps one value."""

    def __init__(self, body: list, config, vary: set[str]):
        self.config = config
        self.vary = vary
        counts: dict[str, int] = {}
        for n in assigned_names(body):
            counts[n] = 0
        for node in ast.walk(ast.Module(body, [])):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.For)):
                for n in assigned_names([node]):
                    counts[n] = counts.get(n, 0) + 1
        self.single = {n for n, c in counts.items() if c == 1}
        self.alias: dict[str, ast.expr] = {}
        for s in body:  # top level only: executed once per thread
            if isinstance(s, ast.Assign) and len(s.targets) == 1:
                t, v = s.targets[0], s.value
                pairs = [(t, v)]
                if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) \
                        and len(t.elts) == len(v.elts):
                    pairs = list(zip(t.elts, v.elts))
                for tt, vv in pairs:
                    if isinstance(tt, ast.Name) and tt.id in self.single:
                        self.alias[tt.id] = vv

    def expand(self, e):
        if isinstance(e, ast.Name) and e.id in self.alias:
            return self.expand(self.alias[e.id])
        return e

    def uniform(self, e, assigned: set[str]) -> bool:
        names = all_names(e)
        return not (names & self.vary) and not (names & assigned)

    def thread_injective(self, e, d: int, assigned: set[str]) -> bool:
        e = self.expand(e)
        if isinstance(e, ast.Name):
            return e.id == THREAD[d]
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)):
            if self.thread_injective(e.left, d, assigned) and self.uniform(e.right, assigned):
                return True
            return isinstance(e.op, ast.Add) and self.uniform(e.left, assigned) \
                and self.thread_injective(e.right, d, assigned)
        return False

    def _stable(self, comp, assigned) -> bool:
        return all(n in self.alias or n not in assigned for n in all_names(comp))

    def private(self, keys, assigned: set[str]) -> bool:
        """Distinct threads of a block never touch one element through these keys (the
        accesses of one array around a barrier): for every thread dimension there is a
        position where every key has the same component, one-to-one in that dimension, whose
        names keep their values throughout ``assigned``'s code."""
        return self._positions(keys, lambda c, d: self.thread_injective(c, d, assigned)
                               and self._stable(c, assigned), self.config.block)

    def _positions(self, keys, good, extent) -> bool:
        if any(k is None for k in keys) or len({len(k) for k in keys}) != 1:
            return False
        first = keys[0]
        for d in range(3):
            if extent[d] == 1:
                continue
            if not any(all(key_text((k[p],)) == key_text((first[p],)) for k in keys)
                       and good(first[p], d) for p in range(len(first))):
                return False
        return True

    def block_window(self, e, d: int) -> int:
        """``c`` when ``e`` lies in ``[c * b, c * b + c)`` for block index ``b`` along ``d``:
        ``b * c`` plus thread indices and constants whose range is within ``[0, c)``
        (``blockIdx.x * 256 + 2 * tid + 1`` with 128 threads); 0 when not shown."""
        lin = self._linear(e)
        if lin is None:
            return 0
        terms, const = lin
        c = terms.pop(BLOCK[d], 0)
        if c <= 0:
            return 0
        lo = hi = const
        for name, k in terms.items():
            if name not in THREAD:
                return 0
            top = k * (self.config.block[THREAD.index(name)] - 1)
            lo, hi = lo + min(0, top), hi + max(0, top)
        return c if 0 <= lo and hi < c else 0

    def _linear(self, e):
        """({name: coefficient}, constant) of an integer expression of names and constants
        (aliases expanded), or None."""
        e = self.expand(e)
        if isinstance(e, ast.Constant) and type(e.value) is int:
            return {}, e.value
        if isinstance(e, ast.Name):
            return {e.id: 1}, 0
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = self._linear(e.left), self._linear(e.right)
            if a is None or b is None:
                return None
            if isinstance(e.op, ast.Mult):
                if a[0] and b[0]:
                    return None
                (ta, ca), k = (a, b[1]) if not b[0] else (b, a[1])
                return {n: v * k for n, v in ta.items()}, ca * k
            sign = 1 if isinstance(e.op, ast.Add) else -1
            out = dict(a[0])
            for n, v in b[0].items():
                out[n] = out.get(n, 0) + sign * v
            return out, a[1] + sign * b[1]
        return None

    def block_private(self, keys) -> bool:
        """Distinct blocks never touch one element through these keys (all accesses of an
        array the kernel writes): for every grid dimension there is a position where every
        key lies in the same block's window (``block_window``, one ``c`` for all keys)."""
        if any(k is None for k in keys) or len({len(k) for k in keys}) != 1:
            return False
        for d in range(3):
            if self.config.grid[d] == 1:
                continue
            if not any(len({self.block_window(k[p], d) for k in keys} - {0}) == 1
                       and all(self.block_window(k[p], d) for k in keys)
                       for p in range(len(keys[0]))):
                return False
        return True
