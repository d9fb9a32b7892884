"""Lowering rules of ``tensor.sort`` and ``tensor.argsort`` (``ops/sorting.py``): the C
library's ``qsort`` on (index, value) pairs, one lane along the axis at a time.

Identity: ordering the pairs by value (NaN last, as NumPy) and ties by original index is
NumPy's stable sort (``kind="stable"``); ``qsort`` need not be stable itself, since no two
pairs compare equal. The comparator is an LLVM function of the module, one per dtype.
"""
from __future__ import annotations

from llvmlite import ir

from .types import I32, I64, I8, is_float, is_signed, mem_type, reg_type

_PAIR_BYTES = 16   # {i64 index, value}: every native dtype fits 8 bytes, aligned to 8


def _pair_type(dtype):
    return ir.LiteralStructType([I64, mem_type(dtype)])


def _comparator(ctx, dtype):
    """``int cmp(pair *a, pair *b)``: -1 / 1 by value (NaN last), then by index."""
    name = f"solvent_sortcmp_{dtype}"
    fn = ctx.module.globals.get(name)
    if fn is not None:
        return fn
    i8p = ir.PointerType(I8)
    fn = ir.Function(ctx.module, ir.FunctionType(I32, [i8p, i8p]), name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    pt = ir.PointerType(_pair_type(dtype))
    pa, pb = (b.bitcast(a, pt) for a in fn.args)
    zero, one = ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), 1)
    ia, ib = (b.load(b.gep(p, [ir.Constant(I32, 0), zero])) for p in (pa, pb))
    va, vb = (b.load(b.gep(p, [ir.Constant(I32, 0), one])) for p in (pa, pb))

    def less(x, y):
        if is_float(dtype):     # x < y, or x is a number and y is NaN
            return b.or_(b.fcmp_ordered("<", x, y),
                         b.and_(b.fcmp_ordered("==", x, x), b.fcmp_unordered("!=", y, y)))
        if is_signed(dtype):
            return b.icmp_signed("<", x, y)
        return b.icmp_unsigned("<", x, y)

    before = b.or_(less(va, vb), b.and_(b.not_(less(vb, va)), b.icmp_signed("<", ia, ib)))
    b.ret(b.select(before, ir.Constant(I32, -1), ir.Constant(I32, 1)))
    return fn


def _sort(op, ctx, indices: bool):
    xv = op.operands[0]
    x = ctx.get(xv)
    dtype = xv.type.dtype
    axis = op.attrs["axis"]
    shape = list(ctx.dims(xv))
    n = shape[axis]
    out = ctx.out(op)
    pairs = ctx.scratch(op, (max(int(n), 1), 2), "i64")
    b = ctx.b
    pt = ir.PointerType(_pair_type(dtype))
    i8p = ir.PointerType(I8)
    cmp = _comparator(ctx, dtype)
    qsort = ctx._libc("qsort", ir.VoidType(), [i8p, I64, I64, cmp.type])
    lanes = shape[:axis] + shape[axis + 1:]

    def pair(k):
        return b.bitcast(b.gep(pairs.ptr, [b.mul(k, ir.Constant(I64, 2))]), pt)

    def lane(outer):
        def at(k):
            return list(outer[:axis]) + [k] + list(outer[axis:])

        def fill(k):
            p = pair(k)
            b.store(k, b.gep(p, [ir.Constant(I32, 0), ir.Constant(I32, 0)]))
            v = ctx.element(x, at(k))
            if dtype == "i1":
                v = b.zext(v, mem_type(dtype))
            b.store(v, b.gep(p, [ir.Constant(I32, 0), ir.Constant(I32, 1)]))
        ctx.counted_loop(n, fill)
        b.call(qsort, [b.bitcast(pairs.ptr, i8p), ir.Constant(I64, n),
                       ir.Constant(I64, _PAIR_BYTES), cmp])

        def unpack(k):
            p = pair(k)
            field = 0 if indices else 1
            v = b.load(b.gep(p, [ir.Constant(I32, 0), ir.Constant(I32, field)]))
            if dtype == "i1" and not indices:
                v = b.trunc(v, reg_type("i1"))
            ctx.store(out, at(k), v)
        ctx.counted_loop(n, unpack)
    if n:
        ctx.loop_nest(lanes, lane)
    return [out]


def _static_only(op):
    if not op.operands[0].type.static:
        return "sorting a value whose length is known only at run time"
    return None


def _sort_values(op, ctx):
    return _sort(op, ctx, indices=False)


def _argsort(op, ctx):
    return _sort(op, ctx, indices=True)


_sort_values.check = _argsort.check = _static_only

RULES = {"tensor.sort": _sort_values, "tensor.argsort": _argsort}
