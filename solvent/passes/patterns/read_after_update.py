"""Reads of an updated array forwarded to where their elements come from: the value just
written, or the array before the write. Raised loops that store into a scratch array and read
it back (``new[i, j] = ...; d = new[i, j] - u[i, j]``) then read the stored values directly,
and the scratch array itself can become dead (dce drops it from the loop that carries it).

Identities, with ``y = update_slice(x, v, S)`` (``y`` is ``x`` with the slots ``S`` replaced
by ``v``):

* ``y[S] -> v``: the same slots read back, when the read names the same spec and the same
  index values (so the same slots, wrapped and clamped alike) and ``v`` has the read's type.
* ``y[T] -> x[T]`` when ``T`` and ``S`` are static and on some axis pick disjoint positions.
* ``y[T] -> v[T - S]`` when ``T`` and ``S`` are static, ``S``'s slices have step 1 and every
  position ``T`` picks lies inside ``S`` (``T - S``: ``T`` shifted by ``S``'s starts, the
  axes ``S`` indexes by a constant dropped).

All exact: the same elements, read from where the update put them or left them."""
from __future__ import annotations

from ...ir.registry import get
from ...ir.rewrite import Pattern, defining, pure_between, same_slots
from ._samples import unary_chain


def static_spec(spec) -> bool:
    return all(it[0] in ("c", "s") for it in spec)


def positions(it) -> range:
    return range(it[1], it[1] + 1) if it[0] == "c" else range(*it[1:])


def disjoint(a: range, b: range) -> bool:
    """Two axis items' positions share none."""
    if not a or not b:
        return True
    return max(a) < min(b) or max(b) < min(a)


def _inside(t, s):
    """The item reading ``t``'s positions out of the value ``v`` written at ``s`` (one axis):
    None when it drops the axis (``s`` a constant that ``t`` repeats), False when ``t`` is
    not inside ``s`` (or not expressible)."""
    if s[0] == "c":
        return None if t[0] == "c" and t[1] == s[1] else False
    start, stop, step = s[1:]
    if step != 1:
        return False
    if t[0] == "c":
        return ["c", t[1] - start] if start <= t[1] < stop else False
    r = range(*t[1:])
    if not r:
        return ["s", 0, 0, 1]
    if t[3] < 0 or r[0] < start or r[-1] >= stop:
        return False
    return ["s", r[0] - start, r[-1] - start + 1, t[3]]


def _updated(op):
    """(the update_slice ``op`` reads from, its x, its v), or None; only an update in the
    read's own block with nothing but pure ops between them (a barrier of a kernel's thread
    nest between the write and the read lets other threads write the array: simt)."""
    upd = defining(op.operands[0], "tensor.update_slice")
    if upd is None or upd.parent is not op.parent:
        return None
    ops = op.parent.ops
    if not pure_between(ops, ops.index(upd), ops.index(op)):
        return None
    return upd, upd.operands[0], upd.operands[1]


def _static_pair(op, upd) -> bool:
    return static_spec(op.attrs["spec"]) and static_spec(upd.attrs["spec"]) and \
        len(op.operands) == 1 and len(upd.operands) == 2


def _read_same(op, rw):
    found = _updated(op)
    if found is None or not same_slots(op, found[0]) or found[2].type != op.result.type:
        return False
    rw.replace_op(op, [found[2]])
    return True


def _disjoint_update(op, upd) -> bool:
    return upd is not None and upd.parent is op.parent and _static_pair(op, upd) and any(
        disjoint(positions(a), positions(b))
        for a, b in zip(op.attrs["spec"], upd.attrs["spec"]))


def _read_disjoint(op, rw):
    """The identity applied along the whole chain of updates in one rewrite: the read moves
    past every consecutive update of other slots (each in the read's block, only pure ops
    back to it), found in one backward scan. One step per rewrite was a rewrite and a scan
    of the block per update passed: long straight-line code (1500 unrolled statements over
    50 slots) made ~70 rewrites per statement and outgrew the driver's budget."""
    ops = op.parent.ops
    k = ops.index(op) - 1
    src = op.operands[0]
    upd = defining(src, "tensor.update_slice")
    while _disjoint_update(op, upd):
        while k >= 0 and ops[k] is not upd:
            if not get(ops[k].name).pure:
                k = -1   # a write or a barrier between: the chain stops at the last update
            else:
                k -= 1
        if k < 0:
            break
        src = upd.operands[0]
        upd = defining(src, "tensor.update_slice")
    if src is op.operands[0]:
        return False
    rw.replace_op(op, [rw.one("tensor.slice", src, spec=[list(it) for it in op.attrs["spec"]])])
    return True


def _read_inside(op, rw):
    found = _updated(op)
    if found is None or not _static_pair(op, found[0]):
        return False
    upd, x, v = found
    if v.type.dtype != x.type.dtype:
        return False
    items = [_inside(a, b) for a, b in zip(op.attrs["spec"], upd.attrs["spec"])]
    if any(it is False for it in items):
        return False
    spec = [it for it in items if it is not None]
    if len(spec) != v.type.rank:
        return False
    new = rw.one("tensor.slice", v, spec=spec) if spec else v
    if new.type != op.result.type:
        return False
    rw.replace_op(op, [new])
    return True


def _sample(op, written, read):
    """sample(shape): y = x with the rows ``written(n)`` replaced by ``op`` of themselves,
    then y read at the spec ``read(n, m)``."""
    def body(b, x):
        n, m = x.type.shape
        rows = ["s", *written(n), 1]
        v = b.one(op, b.one("tensor.slice", x, spec=[rows, ["s", 0, m, 1]]))
        y = b.create("tensor.update_slice", [x, v], {"spec": [rows, ["s", 0, m, 1]]}).result
        return b.one("tensor.slice", y, spec=read(n, m))
    return body


READ_AFTER_UPDATE = [
    Pattern("slice-of-update-same", "tensor.slice", _read_same,
            "update_slice(x, v, S)[S] -> v (same spec, same index values, v of the read's "
            "type)", sample=unary_chain(_sample("tensor.exp", lambda n: (0, n // 2), lambda n,
                                                m: [["s", 0, n // 2, 1], ["s", 0, m, 1]]),
                                        "f64", rank=2)),
    Pattern("slice-of-update-disjoint", "tensor.slice", _read_disjoint,
            "update_slice(x, v, S)[T] -> x[T] (static S, T picking disjoint positions on "
            "some axis)", sample=unary_chain(_sample("tensor.neg", lambda n: (0, n // 2),
                                                     lambda n, m: [["s", n // 2, n, 1],
                                                                   ["s", 0, m, 1]]),
                                             "f32", rank=2)),
    Pattern("slice-of-update-inside", "tensor.slice", _read_inside,
            "update_slice(x, v, S)[T] -> v[T - S] (static S with step-1 slices, T's "
            "positions inside S)", sample=unary_chain(_sample("tensor.neg", lambda n: (
                min(1, n), n), lambda n, m: [["s", min(1, n), n, 2], ["s", 0, m // 2, 1]]),
                "f64", rank=2)),
]
