"""Lowering rules of ``tensor.slice`` and ``tensor.update_slice`` (basic-index specs).

Dynamic integer indices (``["i", j]``) follow NumPy: negative wraps once, and an index still
outside the dimension stops the program with an IndexError naming the op's source line
(``ctx.checked_index``): the check runs once per op execution, before the element loops.
An access that if-conversion made unconditional is marked ``unchecked``: its index is
clamped (the IR's total semantics), since the program might not have made it.
Dynamic slice starts (``["d", j, size]``) are clamped so the slice fits, as the IR defines.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .context import Lazy
from .types import I64


def _resolve(op, ctx, spec, in_shape, dyn):
    """Per spec item: ("at", i64) for a dropped dim, ("run", start, step) for a kept one,
    ("new",) for a newaxis; checks run here, once."""
    b = ctx.b
    out = []
    d = 0
    for it in spec:
        kind = it[0]
        if kind == "n":
            out.append(("new",))
            continue
        n = in_shape[d]
        if kind == "c":
            out.append(("at", ir.Constant(I64, it[1])))
        elif kind == "i":
            v = dyn[it[1]]
            if op.attrs.get("unchecked"):   # speculated by if-conversion: clamp, never raise
                out.append(("at", ctx.clamped_index(ctx.get(v), v.type.dtype, n)))
            else:
                out.append(("at", ctx.checked_index(op, ctx.get(v), v.type.dtype, d, n)))
        elif kind == "s":
            out.append(("run", ir.Constant(I64, it[1]), it[3]))
        else:  # "d": start clamped into [0, n - size]
            v = dyn[it[1]]
            k = ctx.to_i64(ctx.get(v), v.type.dtype)
            hi = ir.Constant(I64, n - it[2])
            k = b.select(b.icmp_signed("<", k, ir.Constant(I64, 0)), ir.Constant(I64, 0), k)
            k = b.select(b.icmp_signed(">", k, hi), hi, k)
            out.append(("run", k, 1))
        d += 1
    return out


def _source_index(ctx, items, idx):
    """Input index for result index ``idx`` (over kept and new dims)."""
    b = ctx.b
    src, r = [], 0
    for item in items:
        if item[0] == "new":
            r += 1
        elif item[0] == "at":
            src.append(item[1])
        else:
            _, start, step = item
            i = idx[r]
            r += 1
            off = i if step == 1 else b.mul(i, ir.Constant(I64, step))
            src.append(b.add(start, off))
    return src


def _slice(op, ctx):
    x = ctx.get(op.operands[0])
    if op.operands[0].type.rank == 0:          # x[()] of a scalar
        return [x]
    items = _resolve(op, ctx, op.attrs["spec"], op.operands[0].type.shape, op.operands[1:])
    res = op.results[0]
    if res.type.rank == 0:
        return [ctx.load(x, _source_index(ctx, items, []))]
    if op in ctx.plan.fused:
        return [Lazy(lambda idx: ctx.load(x, _source_index(ctx, items, idx)), res.type.shape,
                     res.type.dtype)]
    out = ctx.out(op)
    ctx.loop_nest(res.type.shape,
                  lambda idx: ctx.store(out, idx, ctx.load(x, _source_index(ctx, items, idx))))
    return [out]


def _update_slice(op, ctx):
    xv, vv = op.operands[0], op.operands[1]
    if xv.type.rank == 0:                      # x[()] = v on a scalar
        return [ctx.get(vv)]
    out = ctx.out(op)
    if op not in ctx.plan.inplace:
        ctx.copy(out, ctx.get(xv))
    items = _resolve(op, ctx, op.attrs["spec"], xv.type.shape, op.operands[2:])
    v = ctx.get(vv)
    if vv.type.rank == 0:
        ctx.store(out, _source_index(ctx, items, []), v)
    else:
        ctx.loop_nest(vv.type.shape,
                      lambda idx: ctx.store(out, _source_index(ctx, items, idx), ctx.element(v, idx)))
    return [out]


RULES = {
    "tensor.slice": _slice,
    "tensor.update_slice": _update_slice,
}


def _gather(op, ctx):
    """NumPy advanced indexing by integer arrays on ``axes`` (indices broadcast together);
    each index is checked (negative wraps once, outside the dim raises IndexError)."""
    from ...ops.structural import gather_shape
    xv, idx_vals = op.operands[0], op.operands[1:]
    x = ctx.get(xv)
    axes = list(op.attrs["axes"])
    xs = xv.type.shape
    bshape = tuple(np.broadcast_shapes(*(v.type.shape for v in idx_vals)))
    out_shape = gather_shape(xs, axes, [v.type.shape for v in idx_vals], op.attrs["front"])
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    front = op.attrs["front"] or not adjacent
    nb = len(bshape)
    rest_dims = [a for a in range(len(xs)) if a not in axes]

    def element(idx):
        if front:
            bidx, ridx = idx[:nb], idx[nb:]
        else:
            p = axes[0]
            bidx, ridx = idx[p:p + nb], idx[:p] + idx[p + nb:]
        src = [None] * len(xs)
        for a, r in zip(rest_dims, ridx):
            src[a] = r
        for a, v in zip(axes, idx_vals):
            k = v.type.rank
            lead = nb - k
            sub = [0 if n == 1 and bshape[lead + d] != 1 else bidx[lead + d]
                   for d, n in enumerate(v.type.shape)]
            iv = ctx.get(v)
            raw = iv if k == 0 else ctx.load(iv, sub)
            src[a] = ctx.checked_index(op, raw, v.type.dtype, a, xs[a])
        return ctx.load(x, src)

    if len(out_shape) == 0:
        return [element([])]
    out = ctx.out(op)
    ctx.loop_nest(out_shape, lambda idx: ctx.store(out, idx, element(list(idx))))
    return [out]


RULES["tensor.gather"] = _gather
