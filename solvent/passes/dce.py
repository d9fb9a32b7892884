"""Dead code elimination: drop ops whose results are unused and that have no effect, and
loop-carried values that nothing reads.

After functionalization the only ops with an effect are ``io.print`` (and ``error.check``
before checks_to_values): unused loops and ifs go unless they hold one. A value a loop carries
is dead when the loop's result for it is unused, the while condition does not read it, and
the body needs it only to compute its own next value (``drop_dead_carries``): an array a loop
rewrites every trip but no one reads after its writes are forwarded (laplace_converge_loops'
``new``), or a gradient program's tape no reverse step reads."""
from __future__ import annotations

from ..ir.core import Block, Function, Operation
from ..ir.registry import get
from .base import Pass


def _removable(op, memo: dict | None = None) -> bool:
    opdef = get(op.name)
    if opdef.terminator or opdef.level == "array":
        return False
    if opdef.pure:
        return True
    return opdef.level == "control" and not _holds_effect(op, {} if memo is None else memo)


def _holds_effect(op, memo: dict) -> bool:
    """An array-level op or an impure tensor op stands in ``op``'s regions, at any depth;
    known per control op in ``memo`` (by identity), so nested ifs are not walked once per
    level (a chain of 150 elifs: 1.5 s)."""
    key = id(op)
    if key not in memo:
        memo[key] = any(
            (d := get(o.name)).level == "array" or (d.level == "tensor" and not d.pure)
            or (d.level == "control" and o.regions and _holds_effect(o, memo))
            for r in op.regions for o in r.block.ops)
    return memo[key]


def _dce_block(block: Block, used: set, memo: dict) -> bool:
    """Drop the ops of ``block`` (and of the blocks nested in it) whose results ``used`` does
    not hold, last op first; the operands of every op kept, at any depth, are added to
    ``used`` (by the recursion into its regions), before the ops that may define them."""
    changed = False
    for op in reversed(list(block.ops)):
        if _removable(op, memo) and not any(r in used for r in op.results):
            op.erase(drop_uses=True)
            changed = True
            continue
        for r in op.regions:
            changed |= _dce_block(r.block, used, memo)
        used.update(op.operands)
    return changed


def _needed(body: Block, skip: int) -> set:
    """Values of ``body`` (a loop body ending in its yield) that the yields other than
    position ``skip`` and the ops with an effect read, directly or through other ops."""
    ys = body.terminator.operands
    needed = {y for j, y in enumerate(ys) if j != skip}
    for op in reversed(body.ops[:-1]):
        if not _removable(op) or any(r in needed for r in op.results):
            for inner in op.walk():
                needed.update(inner.operands)
    return needed


def _drop_carry(loop: Operation, i: int) -> None:
    """Remove carried value ``i`` from ``loop``'s operands, block arguments, yields, results
    and per-carry attributes; the body ops that computed its next value are left to dce."""
    is_for = loop.name == "loop.for"
    lead = 3 if is_for else 0
    body = loop.regions[-1].block
    body.terminator.operands.pop(i)
    body.args.pop(1 + i if is_for else i)
    if not is_for:
        loop.regions[0].block.args.pop(i)
    loop.operands.pop(lead + i)
    loop.results.pop(i)
    comb = loop.attrs.get("combiners")
    if comb is not None:
        loop.attrs["combiners"] = [c for k, c in enumerate(comb) if k != i]
    for blk in (r.block for r in loop.regions):
        for j, a in enumerate(blk.args):
            a.index = j
    for j, r in enumerate(loop.results):
        r.index = j


def drop_dead_carries(fn: Function, loops=("loop.for", "loop.while")) -> bool:
    """Remove one loop-carried value that nothing reads (see the module text) from a loop
    whose name is in ``loops``; run ``dce`` after it (the ops that computed the value still
    refer to the dropped block argument). Returns whether one was removed."""
    used = {o for op in fn.walk() for o in op.operands}
    for loop in [op for op in fn.walk() if op.name in loops]:
        is_for = loop.name == "loop.for"
        body = loop.regions[-1].block
        for i in range(len(loop.results) - 1, -1, -1):
            if loop.results[i] in used:
                continue
            if not is_for and loop.regions[0].block.args[i].has_uses:
                continue
            if body.args[1 + i if is_for else i] in _needed(body, i):
                continue
            _drop_carry(loop, i)
            return True
    return False


def _constant_of(v):
    """(value, dtype) of a ``tensor.constant``, also seen through ``broadcast_to``; else None."""
    op = v.owner
    if isinstance(op, Operation) and op.name == "tensor.broadcast_to":
        op = op.operands[0].owner
    if isinstance(op, Operation) and op.name == "tensor.constant" and op.attrs.get("value") \
            is not None and not isinstance(op.attrs["value"], (list, tuple)):
        return op.attrs["value"], op.attrs.get("dtype")
    return None


def forward_constant_carries(fn: Function) -> bool:
    """Replace, in a ``loop.for`` without per-carry combiners, a carried value that starts
    as a constant and that each trip yields unchanged or replaces by that same constant
    (``select(c, K, v)``: the payload of checks that have none, carried per element by a
    raised loop; arrays only) by its initial value, inside the body and after the loop;
    dce then drops the carry. Identity: by induction over the trips the carried value is the constant.
    Returns whether one was replaced."""
    for loop in [op for op in fn.walk() if op.name == "loop.for"]:
        if loop.attrs.get("combiners") is not None:
            continue
        body = loop.regions[-1].block
        for i, res in enumerate(loop.results):
            init, arg, y = loop.operands[3 + i], body.args[1 + i], body.terminator.operands[i]
            k = _constant_of(init)
            if k is None or not (arg.has_uses or res.has_uses) or not init.type.rank:
                continue   # (a scalar: native code returns at a check with the loop's
                #             carried code and payload, error_exit.error_slots)
            if y is not arg:
                sel = y.owner
                if not (isinstance(sel, Operation) and sel.name == "tensor.select"
                        and sel.operands[2] is arg and sel.operands[1] is not arg
                        and _constant_of(sel.operands[1]) == k):
                    continue
                if k[0] != k[0] or (k[0] == 0 and str(k[0]).startswith("-")):
                    continue   # NaN, -0.0: equal values need not be the same bits
            arg.replace_all_uses_with(init)
            res.replace_all_uses_with(init)
            return True
    return False


def dce(fn: Function) -> Function:
    """Drop unused ops without an effect (loop signatures stay as they are)."""
    while _dce_block(fn.body, set(), {}):
        pass
    return fn


class DCE(Pass):
    """dce, then dead loop-carried values and what computed them, to a fixpoint."""
    name = "dce"

    def run(self, fn: Function) -> Function:
        dce(fn)
        while forward_constant_carries(fn) or drop_dead_carries(fn):
            dce(fn)
        return fn
