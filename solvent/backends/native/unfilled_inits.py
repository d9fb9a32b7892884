"""Fills that no element outlives: ``c = np.empty(n)`` before a loop that sets every ``c[i]``.

The frontend gives ``np.empty`` (and ``np.zeros``) a defined value, a ``tensor.broadcast_to``
of a scalar, and a loop that writes the array element by element carries it as a slot. When
the loop's iteration ``i`` writes element ``i`` (row ``i``) and nothing reads the slot but
that update and reads of the row just written, every element of the fill is overwritten
before anything can see it: natively the buffer is left as allocated (``np.empty``), the
fill is not run. A sequential recurrence that NumPy code writes this way (a running sum into
``c[i]``, prefix_sum_loops: an 18 MB memset per call) then writes its result once, not twice.

Identity: for ``y = for i in range(0, N, 1): slot = update_slice(slot, v_i, [i, :...])``
with ``N`` the slot's first dim, the slot read by nothing but that update, and the update's
result read by nothing but the yield and slices of row ``i`` (all written), ``y`` is the same
for every initial value of the slot: after the loop every element of row ``i`` holds ``v_i``
(the update runs on every iteration, at the top level of the body), and no ``v_i`` depends
on the slot. A loop that stops early at a failed check raises, and its arrays are not seen.
"""
from __future__ import annotations

from ...ir.core import Function, Operation
from ...ir.rewrite import constant_value
from ...ops.indexspec import is_full


def unfilled_inits(fn: Function, init_copy: dict) -> set[Operation]:
    """The ``tensor.broadcast_to`` ops of ``fn`` whose values every element of is overwritten
    before it is read (see the module's identity). ``init_copy``: ``Plan.init_copy`` (a
    slot whose init is copied in keeps its fill: the copy reads it)."""
    out = set()
    for loop in fn.walk():
        if loop.name != "loop.for" or not (
                constant_value(loop.operands[0]) == 0 and constant_value(loop.operands[2]) == 1):
            continue
        trips = constant_value(loop.operands[1])
        body = loop.regions[0].block
        for c, init in enumerate(loop.operands[3:]):
            fill = init.owner
            if not (isinstance(fill, Operation) and fill.name == "tensor.broadcast_to" and
                    fill.operands[0].type.rank == 0 and init.type.static and
                    init.type.rank >= 1 and init.type.shape[0] == trips and
                    not init_copy.get(loop, [True] * (c + 1))[c] and
                    [u for u, _ in init.live_uses()] == [loop]):
                continue
            if _sets_row_i(body, c, init.type.shape):
                out.add(fill)
    return out


def _sets_row_i(body, c: int, shape) -> bool:
    """Whether slot ``c`` of loop body ``body`` is read only by one update at the body's
    top level writing row ``i`` (the loop variable) whole, whose result only the yield
    reads, as slot ``c``."""
    slot, iv = body.args[1 + c], body.args[0]
    uses = slot.live_uses()
    if len(uses) != 1:
        return False
    up, k = uses[0]
    if up.name != "tensor.update_slice" or k != 0 or up.parent is not body:
        return False
    spec = up.attrs["spec"]
    if not spec or list(spec[0]) != ["i", 0] or up.operands[2] is not iv or \
            not is_full(shape[1:], spec[1:]):
        return False
    term = body.terminator
    uses = up.results[0].live_uses()
    return (term, c) in uses and all(
        (u, i) == (term, c) or _reads_row_i(u, iv) for u, i in uses)


def _reads_row_i(op: Operation, iv) -> bool:
    """A slice within row ``iv`` (all of which the update just wrote): the carried row that
    reread_updates reads back out of the updated array."""
    return op.name == "tensor.slice" and list(op.attrs["spec"][0]) == ["i", 0] and \
        len(op.operands) > 1 and op.operands[1] is iv
