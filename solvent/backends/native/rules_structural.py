"""Lowering rules of constants and ops that only move elements (reshape, transpose, iota)."""
from __future__ import annotations

from llvmlite import ir

from .context import BufRef, Lazy
from .types import I64, const
from . import scalar_math


def _constant(op, ctx):
    return [const(op.attrs["dtype"], op.attrs["value"])]


def _reshape(op, ctx):
    """C-order reshape: the same elements in the same order, copied into the result buffer."""
    x = ctx.get(op.operands[0])
    if op.results[0].type.rank == 0:          # a one-element array to a scalar
        return [ctx.load(BufRef(x.ptr, (1,), x.dtype), [0])]
    if op in ctx.plan.fused:   # read in place at each element's C-order offset
        ref = BufRef(x.ptr, tuple(op.results[0].type.shape), x.dtype)
        return [Lazy(lambda idx: ctx.load(ref, idx), ref.shape, ref.dtype,
                     (ref.ptr, list(ref.strides)))]
    out = ctx.out(op)
    if op.operands[0].type.rank == 0:
        ctx.store(out, [0] * len(out.shape), x)
        return [out]
    ctx.copy(out, BufRef(x.ptr, x.shape, x.dtype))
    return [out]


class Transposed:
    """A transpose left unmaterialized for a matrix product (see bufferize._fuse_transpose)."""

    def __init__(self, src, perm):
        self.src, self.perm = src, list(perm)


def _transpose(op, ctx):
    x = ctx.get(op.operands[0])
    perm = op.attrs["perm"]
    if op in ctx.plan.fused:
        return [Transposed(x, perm)]
    dims = ctx.dims(op.operands[0])
    out = ctx.out(op, shape=tuple(dims[p] for p in perm))

    def body(idx):
        src = [None] * len(perm)
        for k, p in enumerate(perm):
            src[p] = idx[k]
        ctx.store(out, idx, ctx.element(x, src))
    ctx.loop_nest(out.shape, body)
    return [out]


def _iota(op, ctx):
    dt, dim = op.attrs["dtype"], op.attrs["dim"]
    if op in ctx.plan.fused:   # computed where its only consumer reads it (np.eye's mask)
        return [Lazy(lambda idx: scalar_math.convert(ctx, "i64", dt, idx[dim]),
                     op.results[0].type.shape, dt)]
    out = ctx.out(op)
    ctx.loop_nest(out.shape, lambda idx: ctx.store(
        out, idx, scalar_math.convert(ctx, "i64", dt, idx[dim])))
    return [out]


RULES = {
    "tensor.constant": _constant,
    "tensor.reshape": _reshape,
    "tensor.transpose": _transpose,
    "tensor.iota": _iota,
}


def _concatenate(op, ctx):
    out = ctx.out(op)
    axis = op.attrs["axis"]
    start = 0
    for v in op.operands:
        x = ctx.get(v)
        shift = start

        def body(idx, x=x, shift=shift):
            dst = list(idx)
            dst[axis] = ctx.b.add(idx[axis], ir.Constant(I64, shift))
            ctx.store(out, dst, ctx.element(x, idx))
        ctx.loop_nest(v.type.shape, body)
        start += v.type.shape[axis]
    return [out]


def _reverse(op, ctx):
    x = ctx.get(op.operands[0])
    out = ctx.out(op)
    axes = set(op.attrs["axes"])

    def body(idx):
        src = [ctx.b.sub(ir.Constant(I64, n - 1), i) if a in axes else i
               for a, (i, n) in enumerate(zip(idx, out.shape))]
        ctx.store(out, idx, ctx.load(x, src))
    ctx.loop_nest(out.shape, body)
    return [out]


def _pad(op, ctx):
    """Zeros everywhere, then x at offset ``low``."""
    x = ctx.get(op.operands[0])
    out = ctx.out(op)
    zero = scalar_math.convert(ctx, "i64", op.results[0].type.dtype, ir.Constant(I64, 0))
    ctx.loop_nest(out.shape, lambda idx: ctx.store(out, idx, zero))

    def body(idx):
        dst = [ctx.b.add(i, ir.Constant(I64, lo)) for i, lo in zip(idx, op.attrs["low"])]
        ctx.store(out, dst, ctx.load(x, idx))
    ctx.loop_nest(op.operands[0].type.shape, body)
    return [out]


def _repeat(op, ctx):
    x = ctx.get(op.operands[0])
    out = ctx.out(op)
    axis, reps = op.attrs["axis"], op.attrs["repeats"]

    def body(idx):
        src = list(idx)
        src[axis] = ctx.b.sdiv(idx[axis], ir.Constant(I64, reps))
        ctx.store(out, idx, ctx.load(x, src))
    ctx.loop_nest(out.shape, body)
    return [out]


def _triangle(op, ctx):
    """numpy.triu/tril: keep x[..., i, j] where j - i >= k (upper) or j - i <= k (lower)."""
    x = ctx.get(op.operands[0])
    out = ctx.out(op)
    upper, k = op.attrs["part"] == "upper", op.attrs["k"]
    dt = op.results[0].type.dtype
    b = ctx.b

    def body(idx):
        diff = b.sub(idx[-1], idx[-2])
        keep = b.icmp_signed(">=" if upper else "<=", diff, ir.Constant(I64, k))
        ctx.store(out, idx, b.select(keep, ctx.load(x, idx), const(dt, 0)))
    ctx.loop_nest(out.shape, body)
    return [out]


def _linspace(op, ctx):
    """NumPy's linspace: start + i * step, the last element exactly ``stop`` with endpoint."""
    b = ctx.b
    out = ctx.out(op)
    dt = op.attrs["dtype"]
    num, endpoint = op.attrs["num"], op.attrs["endpoint"]
    start, stop = (ctx.get(v) for v in op.operands)
    div = (num - 1) if endpoint else num
    step = b.fdiv(b.fsub(stop, start), const(dt, max(div, 1)))
    ctx.loop_nest(out.shape, lambda idx: ctx.store(out, idx, b.fadd(
        b.fmul(scalar_math.convert(ctx, "i64", dt, idx[0]), step), start)))
    if endpoint and num > 1:
        ctx.store(out, [num - 1], stop)
    return [out]


_linspace.check = lambda op: (None if op.attrs["dtype"][0] == "f" and op.attrs["num"] > 1 or
                              op.attrs["dtype"][0] == "f" and not op.attrs["endpoint"]
                              else "tensor.linspace of this dtype/num")

RULES.update({
    "tensor.concatenate": _concatenate,
    "tensor.reverse": _reverse,
    "tensor.pad": _pad,
    "tensor.repeat": _repeat,
    "tensor.triangle": _triangle,
    "tensor.linspace": _linspace,
})
