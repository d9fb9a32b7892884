"""Lowering rules of the ops whose results have run-time lengths (``ops/dynamic.py``).

``tensor.dim`` reads a length the lowered value carries; ``tensor.fill`` allocates its
run-time length and stores the value into each element. ``tensor.mask_select`` and
``tensor.nonzero`` make two passes over their operand: one counts the selected entries, the
result buffer is allocated with that length (``ctx.out`` with a run-time shape), and the
second pass writes them in C order, as NumPy gives them. Where each selected entry is one
scalar per output row (``nonzero``, a mask over all of ``x``'s axes) the second pass has no
branch (``_compact``): every entry stores its value at the next free position, which
advances by ``taken``; a branch per entry, taken at random, costs a misprediction on about
every other entry of a half-full mask.
"""
from __future__ import annotations

from llvmlite import ir

from .types import I64, const


def _dim(op, ctx):
    return [ctx.dim(op.operands[0], op.attrs["axis"])]


def _truth(ctx, v, dtype):
    from . import scalar_math
    return scalar_math.convert(ctx, dtype, "i1", v)


def _count(ctx, shape, pred):
    n = ctx.slot("i64")
    b = ctx.b
    b.store(ir.Constant(I64, 0), n)
    ctx.loop_nest(shape, lambda idx: b.store(
        b.add(b.load(n), b.zext(pred(idx), I64)), n))
    return b.load(n)


def _each_selected(ctx, shape, pred, body):
    """``body(position, idx)`` for each ``idx`` of ``shape`` where ``pred`` holds, in C
    order; ``position`` counts them from 0."""
    b = ctx.b
    k = ctx.slot("i64")
    b.store(ir.Constant(I64, 0), k)

    def visit(idx):
        take = ctx.fn.append_basic_block("sel.take")
        skip = ctx.fn.append_basic_block("sel.next")
        b.cbranch(pred(idx), take, skip)
        b.position_at_end(take)
        pos = b.load(k)
        body(pos, idx)
        b.store(b.add(pos, ir.Constant(I64, 1)), k)
        b.branch(skip)
        b.position_at_end(skip)
    ctx.loop_nest(shape, visit)


def _compact(ctx, shape, pred, n, out, stores):
    """The branch-free second pass (see the module text): for each ``idx`` of ``shape`` in C
    order, ``stores(pos, idx)`` -> the ``(index into out, value)`` pairs that a selected
    ``idx`` writes at position ``pos``. Every entry stores unconditionally at the next free
    position: an unselected one leaves a value that the next selected entry overwrites; once
    all ``n`` are found, the position is held at the last and the last value written is
    stored again. No load from ``out`` (a store-to-load chain from entry to entry) and no
    select of the address (LLVM turns a store into a dead slot back into a branch)."""
    b = ctx.b
    k = ctx.slot("i64")
    b.store(ir.Constant(I64, 0), k)
    last = b.sub(n, ir.Constant(I64, 1))
    kept = []   # per store: the last value a selected entry wrote

    def visit(idx):
        taken = pred(idx)
        pos = b.load(k)
        room = b.icmp_signed("<", pos, n)
        for j, (index, value) in enumerate(stores(ctx.smin(pos, last), idx)):
            if j == len(kept):
                kept.append(ctx.alloca_builder.alloca(value.type, name="sel.last"))
            before = b.load(kept[j])
            ctx.store(out, index, b.select(room, value, before))
            b.store(b.select(taken, value, before), kept[j])
        b.store(b.add(pos, b.zext(taken, I64)), k)
    with b.if_then(b.icmp_signed(">", n, ir.Constant(I64, 0))):
        ctx.loop_nest(shape, visit)


def _mask_select(op, ctx):
    xv, mv = op.operands
    x, m = ctx.get(xv), ctx.get(mv)
    # the common leading part where run-time lengths differ (the frontend's check failed:
    # its error is raised, this result never seen), so nothing is read out of bounds
    mshape = tuple(ctx.smin(a, n) for a, n in zip(ctx.dims(mv), ctx.dims(xv)))
    rest = ctx.dims(xv)[len(mshape):]

    def pred(idx):
        return ctx.element(m, idx)
    n = _count(ctx, mshape, pred)
    out = ctx.out(op, shape=(n,) + tuple(rest))

    if not rest:
        _compact(ctx, mshape, pred, n, out, lambda pos, idx: [([pos], ctx.element(x, idx))])
        return [out]

    def copy(pos, idx):
        ctx.loop_nest(rest, lambda r: ctx.store(out, [pos] + list(r),
                                                ctx.element(x, list(idx) + list(r))))
    _each_selected(ctx, mshape, pred, copy)
    return [out]


def _nonzero(op, ctx):
    xv = op.operands[0]
    x = ctx.get(xv)
    dt = xv.type.dtype
    shape = xv.type.shape

    def pred(idx):
        return _truth(ctx, ctx.element(x, idx), dt)
    n = _count(ctx, shape, pred)
    out = ctx.out(op, shape=(len(shape), n))

    _compact(ctx, shape, pred, n, out,
             lambda pos, idx: [([a, pos], ctx.as_value(i)) for a, i in enumerate(idx)])
    return [out]


def _fill(op, ctx):
    b = ctx.b
    v, n = ctx.get(op.operands[0]), ctx.get(op.operands[1])
    zero = ir.Constant(I64, 0)
    n = b.select(b.icmp_signed("<", n, zero), zero, n)
    out = ctx.out(op, shape=(n,))
    ctx.loop_nest((n,), lambda idx: ctx.store(out, idx, v))
    return [out]


RULES = {
    "tensor.dim": _dim,
    "tensor.fill": _fill,
    "tensor.mask_select": _mask_select,
    "tensor.nonzero": _nonzero,
}
