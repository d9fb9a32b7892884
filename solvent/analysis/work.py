"""Estimated work of a block of IR, in scalar operations: what a parallel loop must
amortize (the native thread pool's threshold, backends/native/threads.py) and what raising
weighs when it keeps a sweep as a loop (passes/raising/raise_loops.py).

An array op costs its elements (an update its written elements, not the whole array), a
nested loop its trip count times its body (``GUESS_TRIP`` when not static), a ``while``
``GUESS_TRIP`` runs of its regions. A rough count, capped at ``MAX_COST``: it decides
whether work is worth a thread pool, not how long it takes.
"""
from __future__ import annotations

from ..ir.core import Operation

GUESS_TRIP = 16          # iterations assumed for a loop whose trip count is not static
MAX_COST = 1 << 40


def static_int(v):
    """The value of a ``tensor.constant`` integer, else None."""
    op = v.owner
    if isinstance(op, Operation) and op.name == "tensor.constant":
        return int(op.attrs["value"])
    return None


def _numel(t) -> int:
    n = 1
    for d in getattr(t, "shape", ()):
        n *= d if isinstance(d, int) else GUESS_TRIP
    return n


def body_cost(block) -> int:
    """Rough work of one run of ``block``, in scalar ops: an array op costs its elements, a
    nested loop its trip count (``GUESS_TRIP`` when not static) times its body."""
    total = 0
    for op in block.ops[:-1]:           # the terminator moves no data
        if op.name == "loop.for":
            lb, ub, st = (static_int(v) for v in op.operands[:3])
            trip = len(range(lb, ub, st)) if None not in (lb, ub, st) and st else GUESS_TRIP
            total += 1 + trip * body_cost(op.regions[0].block)
        elif op.name == "loop.while":
            total += GUESS_TRIP * sum(body_cost(r.block) for r in op.regions)
        elif op.regions:
            total += 1 + max(body_cost(r.block) for r in op.regions)
        elif op.name == "tensor.update_slice":
            total += _numel(op.operands[1].type)    # the elements written, not the array
        elif op.name == "tensor.slice":
            total += _numel(op.results[0].type)
        else:
            total += max([1] + [_numel(v.type) for v in list(op.operands) + list(op.results)])
        if total > MAX_COST:
            return MAX_COST
    return total
