"""Reads of a trip's intermediate arrays, forwarded past the writes that made them.

A reverse step recomputes a loop body's intermediates from the carried values of its trip.
When the body writes an element of a carried array and later reads elements of the new
array (``best[i + 1, c] = best[i, c]`` then ``best[i, c - w]``), the copy of that write in
the reverse step keeps the trip's state alive beside the new array, and a backend that
updates arrays in place must copy the whole array once per trip (the reverse loop carries
the state on to the previous trip). Yet each read either reads back the slot just written
(the value written) or a slot the write did not touch (the array before the write): reading
there instead leaves the recomputed write without uses, and DCE drops it.

``forwarded_read`` walks back through such writes. A write and a read touch the same slot
when their index items are the same values; they touch different slots when on some axis
both are constants that differ, static ranges that do not overlap, or run-time indices
``a`` and ``a + d`` with ``0 < |d| < n`` (``n`` the axis length). The last needs both
indices in bounds: a checked access (not ``unchecked``) raises otherwise, and the forward
pass ran the very same accesses on the very same values before the reverse pass (an index
``a`` in ``[-n, n)`` names slot ``a mod n``, so ``a`` and ``a + d`` differ unless ``n``
divides ``d``). Only writes the reverse step itself recomputed are walked (``walkable``):
walking past a write that stays live would make the backend copy instead.
"""
from __future__ import annotations

from ..ir.core import Operation, Value
from ..ir.rewrite import constant_value


def _offset(a: Value, b: Value):
    """``d`` with ``b == a + d`` (an integer), or None when unknown."""
    if a is b:
        return 0
    for x, y, sign in ((a, b, 1), (b, a, -1)):
        op = y.owner
        if not isinstance(op, Operation) or op.name not in ("tensor.add", "tensor.sub"):
            continue
        p, q = op.operands
        if p is x:
            c = constant_value(q)
            if c is not None:
                return sign * int(c) * (1 if op.name == "tensor.add" else -1)
        if q is x and op.name == "tensor.add":
            c = constant_value(p)
            if c is not None:
                return sign * int(c)
    return None


def _range(v: Value, owners: dict):
    """``(lo, hi)`` bounds of an integer scalar known at compile time: a constant, the
    induction variable of a ``loop.for`` of constant bounds, sums and differences of them."""
    c = constant_value(v)
    if c is not None and v.type.rank == 0:
        return int(c), int(c)
    op = v.owner
    if isinstance(op, Operation):
        if op.name in ("tensor.add", "tensor.sub"):
            a, b = _range(op.operands[0], owners), _range(op.operands[1], owners)
            if a is None or b is None:
                return None
            if op.name == "tensor.add":
                return a[0] + b[0], a[1] + b[1]
            return a[0] - b[1], a[1] - b[0]
        return None
    loop = owners.get(op)  # v is a block argument
    if loop is None or loop.name != "loop.for" or op.args[0] is not v:
        return None
    lb, ub, step = (constant_value(x) for x in loop.operands[:3])
    if lb is None or ub is None or step is None or step <= 0 or ub <= lb:
        return None
    return int(lb), int(lb + (ub - 1 - lb) // step * step)


def _points(item, op: Operation):
    """What an index item of ``op`` (an original slice or update) selects on its axis."""
    kind = item[0]
    if kind == "c":
        return ("c", item[1])
    if kind == "i":
        dyn = op.operands[1:] if op.name == "tensor.slice" else op.operands[2:]
        return ("i", dyn[item[1]], not op.attrs.get("unchecked"))
    if kind == "s":
        return ("s", range(*item[1:]))
    return None


def _in_bounds(v: Value, n, owners) -> bool:
    r = _range(v, owners)
    return r is not None and isinstance(n, int) and 0 <= r[0] and r[1] < n


def _differ(p, q, n, owners) -> bool:
    """Index items ``p`` and ``q`` of an axis of length ``n`` select no common slot."""
    if p is None or q is None:
        return False
    if p[0] == "i" and q[0] == "i":
        d = _offset(p[1], q[1])
        if d is None or d == 0 or not isinstance(n, int):
            return False
        return (p[2] and q[2] and abs(d) < n) or (_in_bounds(p[1], n, owners) and
                                                _in_bounds(q[1], n, owners))
    if p[0] == "i" or q[0] == "i":
        return False
    a = range(p[1], p[1] + 1) if p[0] == "c" else p[1]
    b = range(q[1], q[1] + 1) if q[0] == "c" else q[1]
    return not set(a) & set(b)


def _same(u: Operation, spec, dyn) -> bool:
    us, ud = u.attrs["spec"], u.operands[2:]
    if len(us) != len(spec):
        return False
    for p, q in zip(us, spec):
        if p[0] != q[0]:
            return False
        if p[0] in ("i", "d"):
            if ud[p[1]] is not dyn[q[1]] or p[2:] != q[2:]:
                return False
        elif p != q:
            return False
    return True


def forwarded_read(src: Value, dyn: list, read: Operation,
                   walkable: dict, owners: dict) -> tuple[Value, Value | None]:
    """``(array, value)`` for the copy of the original slice ``read`` reading the emitted
    ``src`` at the emitted indices ``dyn``: ``src[spec]`` equals ``value`` when it is not
    None (the slot was just written), else ``array[spec]``, ``array`` the earliest array
    before ``src`` whose writes since (all keys of ``walkable``: emitted update -> its
    original) left the slots read untouched. Disjointness is decided on the originals
    (``owners``: each block of the original function -> the op whose region it is)."""
    spec = read.attrs["spec"]
    if any(it[0] in ("n", "r") for it in spec):
        return src, None
    while True:
        u = src.owner
        orig = walkable.get(u) if isinstance(u, Operation) else None
        if orig is None:
            return src, None
        if _same(u, spec, dyn):
            v = u.operands[1]
            return (src, v) if v.type.shape == read.results[0].type.shape else (src, None)
        shape = src.type.shape
        uspec = orig.attrs["spec"]
        if len(uspec) != len(spec) or not any(
                _differ(_points(p, orig), _points(q, read), n, owners)
                for p, q, n in zip(uspec, spec, shape)):
            return src, None
        src = u.operands[0]
