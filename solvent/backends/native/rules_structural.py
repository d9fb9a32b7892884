"""Lowering rules of constants and ops that only move elements (reshape, transpose, iota)."""
from __future__ import annotations

from llvmlite import ir

from .context import BufRef
from .types import I64, const
from . import scalar_math


def _constant(op, ctx):
    return [const(op.attrs["dtype"], op.attrs["value"])]


def _reshape(op, ctx):
    """C-order reshape: the same elements in the same order, copied into the result buffer."""
    x = ctx.get(op.operands[0])
    if op.results[0].type.rank == 0:          # a one-element array to a scalar
        return [ctx.load(BufRef(x.ptr, (1,), x.dtype), [0])]
    out = ctx.out(op)
    if op.operands[0].type.rank == 0:
        ctx.store(out, [0] * len(out.shape), x)
        return [out]
    ctx.copy(out, BufRef(x.ptr, x.shape, x.dtype))
    return [out]


def _transpose(op, ctx):
    x = ctx.get(op.operands[0])
    out = ctx.out(op)
    perm = op.attrs["perm"]

    def body(idx):
        src = [None] * len(perm)
        for k, p in enumerate(perm):
            src[p] = idx[k]
        ctx.store(out, idx, ctx.load(x, src))
    ctx.loop_nest(out.shape, body)
    return [out]


def _iota(op, ctx):
    out = ctx.out(op)
    dt, dim = op.attrs["dtype"], op.attrs["dim"]
    ctx.loop_nest(out.shape, lambda idx: ctx.store(
        out, idx, scalar_math.convert(ctx, "i64", dt, idx[dim])))
    return [out]


RULES = {
    "tensor.constant": _constant,
    "tensor.reshape": _reshape,
    "tensor.transpose": _transpose,
    "tensor.iota": _iota,
}
