"""Lowering rules of ``loop.for``, ``loop.while`` and ``loop.if``.

Carried scalars live in stack slots (mem2reg makes them registers); carried arrays live in
the slot buffers chosen by bufferization, so entering a loop copies an init only where the
plan says so, and a yield copies a value back into its slot only when it lives elsewhere.
"""
from __future__ import annotations

from llvmlite import ir

from . import error_exit
from .bufferize import is_array
from .context import ERR_ZERO_STEP
from .rules_parallel import lower_parallel


def _enter(op, ctx, inits, errs=None):
    """Slots for the carried values; stores (or copies) the inits into them. The error
    code and payload (``errs``: their carried indices, see error_exit.py) get no slot: a
    nonzero code returns here, and inside the loop both are 0."""
    slots = []
    copies = ctx.plan.init_copy[op]
    if errs is not None:
        error_exit.return_if_failed(ctx, *(ctx.get(inits[k]) for k in errs))
    for k, v in enumerate(inits):
        if errs is not None and k in errs:
            slots.append(None)
        elif is_array(v):
            ref = ctx.buf(op.results[k])
            if copies[k]:
                ctx.copy(ref, ctx.get(v))
            slots.append(ref)
        else:
            s = ctx.slot(v.type.dtype)
            ctx.b.store(ctx.get(v), s)
            slots.append(s)
    return slots


def _read(ctx, slots, values):
    return [s if is_array(v) else ctx.b.load(s) if s is not None else
            ir.Constant(ctx.get(v).type, 0) for s, v in zip(slots, values)]


def _write_back(ctx, term, slots, errs=None):
    """``loop.yield``: new carried values into their slots (array moves via temporaries when
    a yield permutes the slots); a nonzero error code returns first."""
    vals = [ctx.get(v) for v in term.operands]
    if errs is not None:
        error_exit.return_if_failed(ctx, *(vals[k] for k in errs),
                                    value=term.operands[errs[0]])
    tmps = ctx.plan.swap_tmp.get(term)
    if tmps:
        for k, t in enumerate(tmps):
            if t is not None:
                ref = ctx.bufs[t.id]
                ctx.copy(ref, vals[k])
                vals[k] = ref
    for v, s, val in zip(term.operands, slots, vals):
        if s is None:
            continue
        if is_array(v):
            ctx.copy(s, val)
        else:
            ctx.b.store(val, s)


def _for(op, ctx):
    if op.attrs.get("parallel"):
        results = lower_parallel(op, ctx)
        if results is not None:
            return results
    b = ctx.b
    lb, ub, step = (ctx.get(v) for v in op.operands[:3])
    iv_t = op.operands[0].type.dtype
    inits = op.operands[3:]
    body = op.regions[0].block
    step_op = op.operands[2].owner
    known = getattr(step_op, "name", None) == "tensor.constant"
    if known and int(step_op.attrs["value"]) == 0 or not known:
        zero = ir.Constant(step.type, 0)
        if known:
            ctx.fail_if(ir.Constant(ir.IntType(1), 1), op, ERR_ZERO_STEP)
        else:
            ctx.fail_if(b.icmp_signed("==", step, zero), op, ERR_ZERO_STEP)
    errs = error_exit.applies(op, ctx)
    slots = _enter(op, ctx, inits, errs)
    bounds = [int(v.owner.attrs["value"]) if getattr(v.owner, "name", None) == "tensor.constant"
              else None for v in op.operands[:3]]
    if None not in bounds and bounds[2] and iv_t[0] == "i" and range(*bounds):
        r = range(*bounds)
        ctx.iv_range[body.args[0]] = (min(r[0], r[-1]), max(r[0], r[-1]))
    iv = ctx.slot(iv_t)
    b.store(lb, iv)
    head = ctx.fn.append_basic_block("for.head")
    loop = ctx.fn.append_basic_block("for.body")
    done = ctx.fn.append_basic_block("for.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.load(iv)
    signed = iv_t[0] == "i"
    cmp = b.icmp_signed if signed else b.icmp_unsigned
    if known:
        go = cmp("<", i, ub) if int(step_op.attrs["value"]) > 0 else cmp(">", i, ub)
    else:
        up = b.icmp_signed(">", step, ir.Constant(step.type, 0))
        go = b.select(up, cmp("<", i, ub), cmp(">", i, ub))
    b.cbranch(go, loop, done)
    b.position_at_end(loop)
    rec = ctx.loop_begin()
    term = ctx.lower_block(body, [i] + _read(ctx, slots, inits), errs is not None)
    _write_back(ctx, term, slots, errs)
    b.store(b.add(i, step), iv)
    ctx.loop_end(rec, b.branch(head))
    b.position_at_end(done)
    return _read(ctx, slots, inits)


def _while(op, ctx):
    b = ctx.b
    inits = op.operands
    cond, body = (r.block for r in op.regions)
    errs = error_exit.applies(op, ctx)
    slots = _enter(op, ctx, inits, errs)
    head = ctx.fn.append_basic_block("while.cond")
    loop = ctx.fn.append_basic_block("while.body")
    done = ctx.fn.append_basic_block("while.done")
    b.branch(head)
    b.position_at_end(head)
    term = ctx.lower_block(cond, _read(ctx, slots, inits))
    b.cbranch(ctx.get(term.operands[0]), loop, done)
    b.position_at_end(loop)
    term = ctx.lower_block(body, _read(ctx, slots, inits), errs is not None)
    _write_back(ctx, term, slots, errs)
    b.branch(head)
    b.position_at_end(done)
    return _read(ctx, slots, inits)


def _if(op, ctx):
    b = ctx.b
    slots = [ctx.buf(r) if is_array(r) else ctx.slot(r.type.dtype) for r in op.results]
    then = ctx.fn.append_basic_block("if.then")
    other = ctx.fn.append_basic_block("if.else")
    done = ctx.fn.append_basic_block("if.done")
    b.cbranch(ctx.get(op.operands[0]), then, other)
    for region, bb in zip(op.regions, (then, other)):
        b.position_at_end(bb)
        term = ctx.lower_block(region.block, [])
        for v, s in zip(term.operands, slots):
            if is_array(v):
                ctx.copy(s, ctx.get(v))
            else:
                b.store(ctx.get(v), s)
        b.branch(done)
    b.position_at_end(done)
    return _read(ctx, slots, op.results)


RULES = {
    "loop.for": _for,
    "loop.while": _while,
    "loop.if": _if,
}
