"""Clean-ups of an emitted gradient program that dce cannot do: loop-carried values that no
one reads (the tapes no reverse step uses, cotangents passed through unchanged). They edit
loop signatures (operands, block arguments, results) in place."""
from __future__ import annotations

from ..ir.core import Function
from ..passes.dce import drop_dead_carries as _drop_dead_carries


def drop_dead_carries(g: Function) -> bool:
    """Remove one loop.for carried value that nothing reads (a reverse loop's rebuilt array
    whose slots the reverse step does not read, a cotangent passed through unchanged):
    ``passes.dce.drop_dead_carries`` on loop.for only, so the taped while loops keep the
    result positions the transform recorded. Returns whether one was removed."""
    return _drop_dead_carries(g, loops=("loop.for",))


def prune_tapes(g: Function, taped) -> bool:
    """Drop the tapes no reverse pass reads (cache only what the reverse pass needs): a
    carried value whose intermediates the reverse loop does not use, such as an accumulator
    ``y += ...``, is not recorded. Run after dce, which removed the unused tape reads."""
    used = {o for op in g.walk() for o in op.operands}
    changed = False
    for loop, nres in taped:
        if loop.parent is None:
            continue   # dce erased the loop itself
        drop = [i for i in range(nres, len(loop.results)) if loop.results[i] not in used]
        if not drop:
            continue
        is_for = loop.name == "loop.for"
        body = loop.regions[-1].block
        term = body.terminator
        lead = 3 if is_for else 0  # loop.for's operands and body args start with lb, ub, step
        for i in sorted(drop, reverse=True):
            upd = term.operands.pop(i).owner
            arg = body.args.pop(lead // 3 + i)
            if getattr(upd, "name", None) == "tensor.update_slice" and upd.operands[0] is arg:
                upd.erase(drop_uses=True)  # the row written (a last trip's value is left
                # to dce); erased, not unlinked: its operands keep no use by it
            if not is_for:
                loop.regions[0].block.args.pop(i)
            loop.operands.pop(lead + i)
            loop.results.pop(i)
        for blk in (r.block for r in loop.regions):
            for j, a in enumerate(blk.args):
                a.index = j
        for j, r in enumerate(loop.results):
            r.index = j
        changed = True
    return changed
