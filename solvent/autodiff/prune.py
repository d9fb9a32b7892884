"""Clean-ups of an emitted gradient program that dce cannot do: loop-carried values that no
one reads (the tapes no reverse step uses, cotangents passed through unchanged). They edit
loop signatures (operands, block arguments, results) in place."""
from __future__ import annotations

from ..ir.core import Function


def drop_dead_carries(g: Function) -> bool:
    """Remove loop.for carried values that nothing reads: the result is unused and the block
    argument feeds only its own next value (a reverse loop's rebuilt array whose slots the
    reverse step does not read, a cotangent passed through unchanged). Returns whether any
    was removed."""
    used = {o for op in g.walk() for o in op.operands}
    for loop in [op for op in g.walk() if op.name == "loop.for"]:
        body = loop.regions[0].block
        ys = body.terminator.operands
        for i in range(len(loop.results) - 1, -1, -1):
            if loop.results[i] in used:
                continue
            needed = {y for j, y in enumerate(ys) if j != i}
            for op in reversed(body.ops[:-1]):
                if any(r in needed for r in op.results):
                    for inner in op.walk():
                        needed.update(inner.operands)
            if body.args[1 + i] in needed:
                continue
            ys.pop(i)
            body.args.pop(1 + i)
            loop.operands.pop(3 + i)
            loop.results.pop(i)
            for j, a in enumerate(body.args):
                a.index = j
            for j, r in enumerate(loop.results):
                r.index = j
            return True
    return False


def prune_tapes(g: Function, taped) -> bool:
    """Drop the tapes no reverse pass reads (cache only what the reverse pass needs): a
    carried value whose intermediates the reverse loop does not use, such as an accumulator
    ``y += ...``, is not recorded. Run after dce, which removed the unused tape reads."""
    used = {o for op in g.walk() for o in op.operands}
    changed = False
    for loop, nres in taped:
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
                body.ops.remove(upd)  # the row written (a last trip's value is left to dce)
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
