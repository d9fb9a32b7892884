"""Errors decided before the first write into a caller's array: no backup copy per call.

A written-back result computed in the caller's own array (``bufferize``, ``backend._own``)
changes that array while the native code runs. When the function can fail (checks that
became values, ``passes/checks_to_values``), the executable copies each such array before
the call and copies it back after a failure, so that a failing call leaves the caller's
arrays as they were: one copy of every written argument per call, failing or not
(row_iteration_loops: 80 KB, as long as its whole computation).

Here the ops of the function's body are put in an order where the error code and payload
are final before any op that computes a written-back value runs (``sink_writebacks``), and
the native code returns as soon as the code is known nonzero (``Ctx.lower_block`` with
``error_exit.return_if_failed``). A failing call then returns before it wrote anything, and
the executable needs no backup (``decided_before_writes``).

Identity: the body's ops are pure tensor ops (checks are values), or control flow holding
only such ops, so any order in which every
op comes after the ops defining its operands computes the same values. The order kept is:
every op that neither computes a written-back value (transitively) nor reads one, in its
program order, then those, in theirs; the ops the error code and payload are computed from
are all in the first part (a value the code needs is never sunk), so the code is final
before the first op of the second part.
"""
from __future__ import annotations

from ...ir.core import Block, Function, Operation
from ...ir.registry import get


def _deps(op: Operation, block: Block) -> list[Operation]:
    """The ops of ``block`` whose results ``op`` (or an op nested in it) reads."""
    out = []
    for inner in op.walk():
        for v in inner.operands:
            o = v.owner
            if isinstance(o, Operation) and o.parent is block:
                out.append(o)
    return out


def _slice(values, block: Block) -> set[int]:
    """Ids of the ops of ``block`` that ``values`` are computed from (backward closure)."""
    seen: set[int] = set()
    todo = [v.owner for v in values if isinstance(v.owner, Operation) and
            v.owner.parent is block]
    while todo:
        op = todo.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        todo.extend(_deps(op, block))
    return seen


def sink_writebacks(fn: Function) -> bool:
    """Reorder ``fn``'s body as the module doc says; returns whether anything moved."""
    if not fn.errors:
        return False
    block = fn.body
    ret = block.terminator
    rets = ret.operands
    back = [rets[r] for r, k in enumerate(fn.writeback) if k is not None and r < len(rets)]
    if len(rets) < 2 or not back:
        return False
    ops = block.ops[:-1]
    # control flow counts as pure when every op inside it is (speculate_checks' loop.if of a
    # loop's two copies): the walk sees those ops too
    if any(not (d := get(o.name)).pure and not d.structural for op in ops for o in op.walk()):
        return False
    needed = _slice(rets[-2:], block)
    sunk = _slice(back, block) - needed
    if not sunk:
        return False
    late = set()
    for op in ops:   # and every op that reads a sunk one
        if id(op) in sunk or any(id(d) in late for d in _deps(op, block)):
            late.add(id(op))
    early = [op for op in ops if id(op) not in late]
    order = early + [op for op in ops if id(op) in late] + [ret]
    if order == block.ops:
        return False
    block.ops[:] = order
    return True


def decided_before_writes(plan, block: Block, last: int) -> bool:
    """Whether no op among ``block.ops[:last + 1]`` (nor one nested in them) holds a value
    in an argument's buffer other than the argument itself: nothing in the caller's arrays
    changed before the code returned at ``last``. Conservative for fused ops and
    multi-output loops (they run at or after their own place, never before)."""
    for op in block.ops[:last + 1]:
        for inner in op.walk():
            vals = list(inner.results)
            for region in inner.regions:
                vals.extend(region.block.args)
            for v in vals:
                b = plan.of.get(v)
                if b is not None and b.arg is not None:
                    return False
    return True


# ops whose native rule checks each index it reads in order and reports the first bad one
# (``Ctx.checked_index(defer=False)``), where the IR's own check of the index array names
# its largest or smallest: a return before them would report the IR's payload
_REFINING = frozenset({"tensor.gather", "tensor.scatter", "tensor.scatter_add"})


def refines_later(block: Block, pos: int) -> bool:
    """Whether an op after ``block.ops[pos]`` (or nested in one) checks indices itself,
    naming the first bad one: the function must not return at ``pos`` on the code."""
    return any(o.name in _REFINING and not o.attrs.get("unchecked")
               for op in block.ops[pos + 1:-1] for o in op.walk())
