"""The run-time check flags that passes/checks_to_values threads through loops.

That pass gives a function with checks two more results, ``code`` (0 while no check failed)
and ``payload``, and threads them through every region op that holds checks as a carried
pair, updated only as ``code = select(failed_now, k, code)`` and ``payload =
select(failed_now, p, payload)`` with ``failed_now`` requiring ``code == 0``: the first
failure wins. ``error_slots(fn)`` finds, for each loop carrying them, the pair's slot
indices, by following the two returned values back through those selects, region ops and
their yields.

Why the dependence test may set them aside (dependence.py): on a run where no check fails
``code`` is 0 in every iteration whatever the order, and ``payload`` never changes. On a run
where one fails, the caller raises from (code, payload) and discards every other result,
and the pair that iterations in chunks produce, each chunk starting from 0 and the chunks'
pairs taken first-nonzero in iteration order, is the pair of the first failure: the one the
sequential loop yields. So the pair is a reduction whose combiner is "first set wins".
"""
from __future__ import annotations

from ..ir.core import Function, Operation
from ..ir.types import TensorType

CODE, PAYLOAD = TensorType((), "i32"), TensorType((), "i64")   # as checks_to_values makes them


def _prev(v):
    """Follow ``select(c, new, prev)`` back to the value the chain started from."""
    while isinstance(v.owner, Operation) and v.owner.name == "tensor.select":
        v = v.owner.operands[2]
    return v


def error_slots(fn: Function) -> dict:
    """{loop op: (code slot, payload slot)} for loop.for / loop.while carrying the pair."""
    out: dict = {}
    if not fn.errors:
        return out
    term = fn.body.terminator
    if len(term.operands) < 2 or [v.type for v in term.operands[-2:]] != [CODE, PAYLOAD]:
        return out   # not checks_to_values' layout (a gradient program returns more)
    seen = set()
    work = [(term.operands[-2], term.operands[-1])]
    while work:
        code, pay = (_prev(v) for v in work.pop())
        op = code.owner
        if not isinstance(op, Operation) or not op.regions or pay.owner is not op:
            continue
        a, b = code.index, pay.index
        if id(op) in seen or (code.type, pay.type) != (CODE, PAYLOAD):
            continue
        seen.add(id(op))
        if op.name in ("loop.for", "loop.while"):
            out[op] = (a, b)
            inits = op.operands[3:] if op.name == "loop.for" else op.operands
            work.append((inits[a], inits[b]))
        for r in op.regions:
            t = r.block.terminator
            if t.name == "loop.yield" and len(t.operands) > max(a, b):
                work.append((t.operands[a], t.operands[b]))
    return out
