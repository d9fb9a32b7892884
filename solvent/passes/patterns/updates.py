"""Patterns on chains of ``update_slice`` (gradient programs): the cotangent of an array that
a trip overwrites and also read at the same slots is zeroed there, accumulated into, and
added back (``sink-zeroed-update``).

Identity: with ``z = x[R] = 0`` and ``y = z`` after accumulations ``y[S_i] += d_i`` (each
``d_i`` computed without ``z`` or ``y``), ``y[R] += x[R]`` gives ``x`` after the same
accumulations ``x[S_i] += d_i``: in ``R`` each slot is ``(0 + sum d_i) + x`` one way and
``x + sum d_i`` the other, outside ``R`` it is ``x + sum d_i`` both ways. Exact when a slot
receives one ``d_i`` (a sum of zero, ``0 + -0.0``, may change sign); several ``d_i`` into
one slot are re-associated, as adding cotangent contributions in another order is. So it
runs on gradient programs only (``passes/sink_updates.py``), never on a user's program.
Done, the zeroing write, the add-back and its reads of the whole region disappear: a
reverse loop no longer clears and rewrites a whole block of the cotangent per trip.
"""
from __future__ import annotations

from ...ir.core import Operation, Value
from ...ir.rewrite import Pattern, constant_value, defining, same_slots
from ...ir.types import TensorType
from ._samples import unary_chain

# accumulations walked back from the add-back at most
MAX_CHAIN = 64


def _uses(v: Value) -> list:
    return [u for u, _ in v.live_uses()]


def _read_plus(u: Operation, src: Value):
    """``u`` is ``update_slice(src, src[S] + d, S)`` with the sum and the read used only
    there: ``(the read, d)``, else None."""
    v = u.operands[1]
    add = defining(v, "tensor.add")
    if add is None or _uses(v) != [u]:
        return None
    for k in (0, 1):
        s = defining(add.operands[k], "tensor.slice")
        if s is not None and s.operands[0] is src and same_slots(s, u) and \
                _uses(add.operands[k]) == [add] and add.operands[1 - k] is not add.operands[k]:
            return s, add.operands[1 - k]
    return None


def _sink_zeroed_update(op, rw):
    found = _read_plus(op, op.operands[0])   # w = y[R] = y[R] + x[R]
    if found is None:
        return False
    s_y, other = found
    s_x = defining(other, "tensor.slice")
    if s_x is None or not same_slots(s_x, op):
        return False
    x = s_x.operands[0]
    y, prev = op.operands[0], op
    for _ in range(MAX_CHAIN + 1):
        u = defining(y, "tensor.update_slice")
        if u is None:
            return False
        read = [s_y] if prev is op else [_read_plus(prev, y)[0]]
        if sorted(map(id, _uses(y))) != sorted(map(id, read + [prev])):
            return False
        if u.operands[0] is x and same_slots(u, op) and constant_value(u.operands[1]) == 0:
            break   # z = x[R] = 0 found
        if _read_plus(u, u.operands[0]) is None:
            return False
        y, prev = u.operands[0], u
    else:
        return False
    z = y
    if prev is op:   # no accumulation between: the add-back gives x back
        rw.replace_op(op, [x])
        return True
    first_read = _read_plus(prev, z)[0]
    prev.operands[0] = x
    first_read.operands[0] = x
    rw.changed.extend([prev, first_read, u])
    rw.replace_op(op, [op.operands[0]])
    return True


def _sample(b, x):
    r, c = x.type.shape
    whole = [["s", 0, r, 1], ["s", 0, c, 1]]
    col = [["s", 0, r, 1], ["s", 0, min(c, 1), 1]]
    zero = b.one("tensor.broadcast_to", b.constant(0.0, "f64"), shape=[r, c])
    z = b.create("tensor.update_slice", [x, zero], {"spec": whole}).result
    d = b.one("tensor.exp", b.one("tensor.slice", x, spec=col))
    acc = b.one("tensor.add", b.one("tensor.slice", z, spec=col), d)
    y = b.create("tensor.update_slice", [z, acc], {"spec": col}).result
    back = b.one("tensor.add", b.one("tensor.slice", y, spec=whole),
                 b.one("tensor.slice", x, spec=whole))
    return b.create("tensor.update_slice", [y, back], {"spec": whole}).result


SINK_UPDATES = [
    Pattern("sink-zeroed-update", "tensor.update_slice", _sink_zeroed_update,
            "z = x with x[R] = 0; y = z after y[S_i] += d_i; y[R] += x[R] -> x after "
            "x[S_i] += d_i (each d_i free of z and y; exact with one d_i per slot, several "
            "re-associated: gradient programs only)",
            sample=unary_chain(_sample, "f64", rank=2)),
]
