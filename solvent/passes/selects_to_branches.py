"""Natively, a scalar select in a loop that stays a loop goes back to being a branch where
one of its arms reads memory only for it.

Identity: ``select(c, f(), g())  ==  if c: yield f() else: yield g()`` when ``f`` and ``g``
are pure: the one ``if_to_select`` relies on, read the other way.

``if_to_select`` makes straight-line code of small branches, which raising needs (a batch
is one select per branch) and XLA wants (a conditional in a while loop costs more than
both arms). A loop that stays a scalar loop on the native backend pays for it: both arms
run on every trip, their reads (speculated: clamped into the array, ``unchecked``) included,
and the select joins them into one chain of dependent instructions from trip to trip. The
longest common subsequence table (corpus ``lcs_table``) computes ``T[i, j]`` from
``T[i-1, j-1] + 1`` when two symbols agree and from ``max(T[i-1, j], T[i, j-1])`` when
not: as selects every trip waits for the last one's maximum; as a branch (Numba's code for
the same source, and this pass's) the trips that take the first arm break that chain.
Measured on this 2-core host, steady state, the best of 40 calls of each interleaved, three
rounds (2026-11-30): lcs_table 0.18 -> 0.116 ms (Numba 0.133), knapsack_items 0.14 ->
0.090 ms (Numba 0.095).

What moves into an arm: the ops of the select's block that compute that arm's value and
nothing else (every use is the arm, or another op that moves with it; never an op the
condition reads, so ``max(a, b)``, whose condition reads both arms, stays a select:
a ``cmov``). A select is turned into a branch only when an arm's ops include a read of an
array element (``tensor.slice`` or ``tensor.gather`` of an array) or an op the registry
calls expensive: otherwise the branch would only replace a ``cmov`` by a jump. One read
alone in an arm is left to the lowering, which reads it in a branch itself
(``rules_index.guarded_read``). Only scalar
selects inside a ``loop.for`` or ``loop.while`` (raised code's selects are arrays); the
native backend turns the pass on (``pass_defaults``), after the parallel marks.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation, Region
from ..ir.registry import get
from .base import BackendPass

_LOOPS = ("loop.for", "loop.while")
_READS = ("tensor.slice", "tensor.gather")


def _arm_ops(block: Block, sel: Operation, arm: int) -> list[Operation]:
    """The ops of ``block`` before ``sel`` that compute ``sel``'s operand ``arm`` and are
    used by nothing else (program order)."""
    v = sel.operands[arm]
    if v is sel.operands[0] or v is sel.operands[3 - arm]:
        return []
    moving: set = set()
    end = block.ops.index(sel)
    for op in reversed(block.ops[:end]):
        if op.regions or not get(op.name).pure or not op.results:
            continue
        uses = [u for r in op.results for u in r.live_uses()]
        if uses and all(u in moving or (u is sel and i == arm) for u, i in uses):
            moving.add(op)
    return [op for op in block.ops[:end] if op in moving]


def _access(op: Operation) -> tuple:
    """What element (or window) a read or an update touches: its array, its index operands
    and its spec; an update's value operand left out."""
    rest = op.operands[2:] if op.name == "tensor.update_slice" else op.operands[1:]
    return (op.operands[0], tuple(map(id, rest)), repr(op.attrs.get("spec")))


def _worth_a_branch(block: Block, sel: Operation, ops: list[Operation]) -> bool:
    """Whether an arm's ``ops`` read an array element the code would not read anyway, or
    do expensive work. Not worth it: a read of an element the block reads elsewhere too (a
    speculated copy of ``v[i]`` in ``v[i] if v[i] > 1 else 1``), or the old value of the
    element the select's result is written into (``if_to_select`` sank ``if c: y[i] = v``
    into ``y[i] = select(c, v, y[i])``: both arms would still write)."""
    moving = set(ops)
    elsewhere = {_access(o) for o in block.ops if o.name in _READS and o not in moving}
    elsewhere |= {_access(u) for u, i in sel.result.live_uses()
                  if u.name == "tensor.update_slice" and i == 1}
    return any(op.name in _READS and op.operands[0].type.rank > 0 and
               _access(op) not in elsewhere or get(op.name).cost == "expensive"
               for op in ops)


def _lowered_as_a_branch(arms: list[list[Operation]]) -> bool:
    """One arm is one element read and the other computes nothing: the native lowering
    reads that element in a branch already (``rules_index.guarded_read``, which also lets a
    guarded tile load vectorize with masked loads)."""
    one = [ops for ops in arms if ops]
    return len(one) == 1 and len(one[0]) == 1 and one[0][0].name == "tensor.slice"


def _branch(block: Block, sel: Operation, arms: list[list[Operation]]) -> Operation:
    """Replace ``sel`` by a ``loop.if`` on its condition whose regions compute the arms."""
    regions = []
    for k, ops in zip((1, 2), arms):
        body = Block()
        for op in ops:
            op._detach()
            body.append(op)
        body.append(Operation("loop.yield", [sel.operands[k]], []))
        regions.append(Region(body))
    iff = Operation("loop.if", [sel.operands[0]], [sel.result.type], {}, regions, sel.loc)
    block.insert_before(sel, iff)
    sel.replace_with(iff.results)
    return iff


def _run(block: Block, in_loop: bool) -> int:
    changed = 0
    i = len(block.ops) - 1
    while i >= 0:
        op = block.ops[i]
        if in_loop and op.name == "tensor.select" and op.result.type.rank == 0:
            arms = [_arm_ops(block, op, 1), _arm_ops(block, op, 2)]
            if not _lowered_as_a_branch(arms) and _worth_a_branch(block, op, arms[0] + arms[1]):
                op = _branch(block, op, arms)
                changed += 1
                i = block.ops.index(op)
        for region in op.regions:
            changed += _run(region.block, in_loop or op.name in _LOOPS)
        i -= 1
    return changed


class SelectsToBranches(BackendPass):
    name = "selects_to_branches"

    def transform(self, fn: Function) -> int:
        return _run(fn.body, False)
