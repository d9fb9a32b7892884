"""Chains of window updates of one array (gradient programs): the reverse of a stencil adds
each shifted window's contribution into the cotangent in its own in-place pass
(``ct[0:n-2] += d; ct[1:n-1] += d; ct[2:n] += d``), so jacobi_1d's reverse step made three
passes over the cotangent where its primal made one (``merge-window-chain``).

Identity. Let ``x_k = update_slice(x_{k-1}, f_k(x_{k-1}[W_k]), W_k)`` for k = 1..K, where
``W_k`` is a static box and ``f_k`` either adds a value computed without ``x_1 .. x_K``
(``x[W] + d``) or replaces the window by one (``x[W] = v``). Each element's final value
depends only on the steps whose box holds it, applied in chain order. Split the boxes by
their intersection ``I``: every element of ``I`` receives every step, so
``x_K[I] = f_K(...f_1(x_0[I]))`` is one update of ``I`` computing all K steps element by
element (one pass); an element outside ``I`` receives the same steps as before, in the same
order, from the steps restricted to the slabs of ``W_k`` outside ``I`` (at most two per
dimension). Every element sees the same operations on the same operands in the same order:
the result is bitwise the same.

Fires on a chain of two or more steps whose intersection holds at least half of its largest
box (a stencil's windows; not a scatter of disjoint rows, which gains nothing). Only for
gradient programs (``passes/merge_windows.py``): a user's program rarely holds such a chain,
and the split boxes cost more ops where the windows hardly overlap.
"""
from __future__ import annotations

from ...ir.core import Operation, Value
from ...ir.rewrite import Pattern, defining
from ._samples import unary_chain

# steps walked back from the last update at most
MAX_STEPS = 32
# fewest steps merged
MIN_STEPS = 2


def _uses(v: Value) -> list:
    return [u for u, _ in v.live_uses()]


def _box(op: Operation):
    """(starts, stops) of a static box of step-1 slices covering every dimension, or None."""
    spec = op.attrs.get("spec")
    shape = op.operands[0].type.shape
    nops = 2 if op.name == "tensor.update_slice" else 1
    if len(op.operands) != nops or spec is None or len(spec) != len(shape) or \
            any(e[0] != "s" or e[3] != 1 for e in spec) or not op.results[0].type.static:
        return None
    return tuple(e[1] for e in spec), tuple(e[2] for e in spec)


def _step(u: Operation):
    """Step of update ``u`` of ``x = u.operands[0]``: (box, kind, value, read) with kind
    "add" (``x[W] + d``; ``read`` the slice of x, value d, ``first`` whether x[W] is the
    first operand) or "set" (``x[W] = v``), or None."""
    if u.name != "tensor.update_slice":
        return None
    box = _box(u)
    if box is None:
        return None
    x, v = u.operands[0], u.operands[1]
    add = defining(v, "tensor.add")
    if add is not None and _uses(v) == [u]:
        for k in (0, 1):
            s = defining(add.operands[k], "tensor.slice")
            if s is not None and s.operands[0] is x and _box(s) == box and \
                    _uses(add.operands[k]) == [add] and add.operands[1 - k] is not add.operands[k]:
                return box, ("add", k), add.operands[1 - k], s
    return box, ("set", 0), v, None


def _chain(op: Operation) -> list | None:
    """The steps ending at ``op`` (first first), each (update, box, kind, value)."""
    steps = []
    u = op
    for _ in range(MAX_STEPS):
        st = _step(u)
        if st is None:
            break
        box, kind, value, read = st
        if steps:   # u's result must feed only the next step
            nxt = steps[-1]
            want = [nxt[0]] + ([nxt[4]] if nxt[4] is not None else [])
            if sorted(map(id, _uses(u.results[0]))) != sorted(map(id, want)):
                break
        steps.append((u, box, kind, value, read))
        prev = defining(u.operands[0])
        if prev is None:
            break
        u = prev
    steps.reverse()
    return steps


def _ends_here(op: Operation) -> bool:
    """No step continues the chain after ``op`` (the pattern fires at the chain's end)."""
    r = op.results[0]
    nxt = [u for u in _uses(r) if u.name == "tensor.update_slice" and u.operands[0] is r]
    if len(nxt) != 1:
        return True
    st = _step(nxt[0])
    if st is None:
        return True
    want = [nxt[0]] + ([st[3]] if st[3] is not None else [])
    return sorted(map(id, _uses(r))) != sorted(map(id, want))


def _volume(lo, hi) -> int:
    n = 1
    for a, b in zip(lo, hi):
        n *= max(b - a, 0)
    return n


def _slabs(lo, hi, ilo, ihi) -> list:
    """Boxes covering [lo, hi) minus [ilo, ihi) (which it contains): two per dimension at
    most, peeled one dimension after the other."""
    out = []
    cur_lo, cur_hi = list(lo), list(hi)
    for a in range(len(lo)):
        if cur_lo[a] < ilo[a]:
            s_lo, s_hi = list(cur_lo), list(cur_hi)
            s_hi[a] = ilo[a]
            out.append((tuple(s_lo), tuple(s_hi)))
        if ihi[a] < cur_hi[a]:
            s_lo, s_hi = list(cur_lo), list(cur_hi)
            s_lo[a] = ihi[a]
            out.append((tuple(s_lo), tuple(s_hi)))
        cur_lo[a], cur_hi[a] = ilo[a], ihi[a]
    return [s for s in out if _volume(*s) > 0]


def _spec(lo, hi) -> list:
    return [["s", a, b, 1] for a, b in zip(lo, hi)]


# elementwise ops whose box is taken of their one array operand instead (``_part``)
_CHEAP = frozenset({"tensor.mul", "tensor.neg", "tensor.add", "tensor.sub"})


def _part(rw, v: Value, wlo, lo, hi, depth: int = 4) -> Value:
    """Box [lo, hi) (array coordinates) of the value ``v`` laid on window starting at
    ``wlo``. A box of a cheap elementwise op of one array and scalars is the op of the
    array's box (``(c * y)[B] == c * y[B]``, exact), and a box of a static slice is a slice
    of its operand: the merged update then reads the cotangent itself at each shift instead
    of a scaled copy written out first (jacobi_1d's ``0.33333 * ct[1:-1]``); a box of a
    scalar broadcast is the scalar broadcast to the box."""
    rel_lo = [a - w for a, w in zip(lo, wlo)]
    rel_hi = [b - w for b, w in zip(hi, wlo)]
    op = defining(v)
    if depth and op is not None and op.name in _CHEAP and not op.regions:
        arrays = [o for o in op.operands if o.type.rank]
        if len(arrays) == 1 and arrays[0].type == v.type and len(op.results) == 1:
            parts = [_part(rw, o, wlo, lo, hi, depth - 1) if o.type.rank else o
                     for o in op.operands]
            return rw.one(op.name, *parts, **dict(op.attrs))
    if op is not None and op.name == "tensor.broadcast_to" and op.operands[0].type.rank == 0:
        shape = [b - a for a, b in zip(lo, hi)]   # a box of a filled array: a smaller fill
        return v if tuple(shape) == tuple(v.type.shape) else \
            rw.one("tensor.broadcast_to", op.operands[0], shape=shape)
    if depth and op is not None and op.name == "tensor.slice" and _box(op) is not None:
        slo = _box(op)[0]
        return _part(rw, op.operands[0], [w - s for w, s in zip(wlo, slo)], lo, hi, 0)
    if all(a == 0 for a in rel_lo) and tuple(rel_hi) == tuple(v.type.shape):
        return v
    return rw.one("tensor.slice", v, spec=_spec(rel_lo, rel_hi))


def _apply(rw, cur: Value, acc, kind, value, wlo, lo, hi):
    """One step's element function on box [lo, hi); ``acc`` is the box's value so far
    (None: still cur's elements)."""
    part = _part(rw, value, wlo, lo, hi)
    if kind[0] == "set":
        return part
    old = acc if acc is not None else rw.one("tensor.slice", cur, spec=_spec(lo, hi))
    return rw.one("tensor.add", old, part) if kind[1] == 0 else rw.one("tensor.add", part, old)


def _merge_window_chain(op, rw):
    if op.name != "tensor.update_slice" or not _ends_here(op):
        return False
    steps = _chain(op)
    if steps is None or len(steps) < MIN_STEPS:
        return False
    boxes = [s[1] for s in steps]
    ilo = tuple(max(b[0][a] for b in boxes) for a in range(len(boxes[0][0])))
    ihi = tuple(min(b[1][a] for b in boxes) for a in range(len(boxes[0][0])))
    inner = _volume(ilo, ihi)
    if inner == 0 or 2 * inner < max(_volume(*b) for b in boxes):
        return False
    cur = steps[0][0].operands[0]
    for u, (wlo, whi), kind, value, _ in steps:   # outside I: each step on its slabs
        for lo, hi in _slabs(wlo, whi, ilo, ihi):
            v = _apply(rw, cur, None, kind, value, wlo, lo, hi)
            cur = rw.one("tensor.update_slice", cur, v, spec=_spec(lo, hi))
    acc = None
    for u, (wlo, whi), kind, value, _ in steps:   # inside I: all steps in one update
        acc = _apply(rw, cur, acc, kind, value, wlo, ilo, ihi)
    cur = rw.one("tensor.update_slice", cur, acc, spec=_spec(ilo, ihi))
    rw.replace_op(op, [cur])
    return True


def _sample(b, x):
    """A jacobi-1d-like reverse step: x padded to n + 6 is the cotangent; zero a window,
    then add d (a scaled window of another array) into three shifted windows of length
    n + 4."""
    n = x.type.shape[0]
    ct = b.one("tensor.pad", x, low=[3], high=[3])
    y = b.one("tensor.exp", b.one("tensor.pad", x, low=[3], high=[3]))
    d = b.one("tensor.mul", b.one("tensor.slice", y, spec=[["s", 1, n + 5, 1]]),
              b.constant(3.0, "f64"))   # its boxes are taken of y itself
    zero = b.one("tensor.broadcast_to", b.constant(0.0, "f64"), shape=[n + 4])
    ct = b.create("tensor.update_slice", [ct, zero], {"spec": [["s", 1, n + 5, 1]]}).result
    for k, off in enumerate((2, 0, 1)):
        spec = [["s", off, off + n + 4, 1]]
        old = b.one("tensor.slice", ct, spec=spec)
        s = b.one("tensor.add", old, d) if k != 1 else b.one("tensor.add", d, old)
        ct = b.create("tensor.update_slice", [ct, s], {"spec": spec}).result
    return ct


WINDOW_CHAINS = [
    Pattern("merge-window-chain", "tensor.update_slice", _merge_window_chain,
            "x_k = x_{k-1} with x[W_k] = f_k(x[W_k]) (f_k adds or sets a value free of the "
            "chain), k = 1..K -> the steps restricted to the slabs outside I = cap W_k, then "
            "one update of I computing f_K(..f_1(x[I])) (each element gets the same steps in "
            "the same order: exact)",
            sample=unary_chain(_sample, "f64", rank=1)),
]
