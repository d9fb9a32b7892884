"""Lowering rules of ``tensor.sort`` and ``tensor.argsort`` (``ops/sorting.py``), one lane
along the axis at a time.

Real dtypes: each element becomes an unsigned integer key whose unsigned order is NumPy's
order, and a stable LSD radix sort (``radix_sort.py``) sorts the keys, with their indices
for argsort. Keys: an unsigned or bool value as it is; a signed integer with its sign bit
flipped; a float's bits with the sign bit flipped when positive and all bits flipped when
negative (ascending as the values, -0.0 just below 0.0). argsort gives NumPy's stable order
(``kind="stable"``) exactly: its float keys count -0.0 as 0.0 and every NaN as the largest
key, so equal values keep their index order. sort gives the values back from the keys (the
inverse map), so every value keeps its bits; a float's NaNs are set aside while the keys are
made and follow the sorted numbers in their original order, as NumPy puts them last. The one
difference from NumPy's stable sort: -0.0 comes out before 0.0 wherever both occur (they are
equal; NumPy's default sort gives no order between equal values either).

Complex dtypes: the C library's ``qsort`` on (index, value) pairs, by value (lexicographic,
NaN last, as NumPy) and ties by index, which is NumPy's stable order; the comparator is an
LLVM function of the module, one per dtype.
"""
from __future__ import annotations

from llvmlite import ir

from .context import BufRef
from .radix_sort import radix_function
from .types import I1, I32, I64, I8, bits, is_complex, is_float, is_signed, mem_type, reg_type

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


def _lanes(op, ctx):
    """(operand, dtype, axis, length along it, result buffer, the other dims)."""
    xv = op.operands[0]
    shape = list(ctx.dims(xv))
    axis = op.attrs["axis"]
    return (ctx.get(xv), xv.type.dtype, axis, shape[axis], ctx.out(op),
            shape[:axis] + shape[axis + 1:])


def _sort(op, ctx, indices: bool):
    if not is_complex(op.operands[0].type.dtype):
        return _radix(op, ctx, indices)
    x, dtype, axis, n, out, lanes = _lanes(op, ctx)
    pairs = ctx.scratch(op, (max(int(n), 1), 2), "i64")
    b = ctx.b
    pt = ir.PointerType(_pair_type(dtype))
    i8p = ir.PointerType(I8)
    cmp = _comparator(ctx, dtype)
    qsort = ctx._libc("qsort", ir.VoidType(), [i8p, I64, I64, cmp.type])

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


def _key(b, v, dtype, indices):
    """The unsigned key of value ``v`` (see the module's docstring)."""
    if dtype == "i1":
        return b.zext(v, I8)
    if not is_float(dtype):
        w = v.type.width
        return b.xor(v, ir.Constant(v.type, 1 << (w - 1))) if is_signed(dtype) else v
    K = ir.IntType(bits(dtype))
    if indices:   # -0.0 counts as 0.0 (ties keep their index order)
        v = b.select(b.fcmp_ordered("==", v, ir.Constant(v.type, 0.0)),
                     ir.Constant(v.type, 0.0), v)
    u = b.bitcast(v, K)
    mask = b.or_(b.ashr(u, ir.Constant(K, K.width - 1)), ir.Constant(K, 1 << (K.width - 1)))
    key = b.xor(u, mask)
    if indices:   # every NaN: the largest key, which no number has
        key = b.select(b.fcmp_unordered("!=", v, v), ir.Constant(K, -1), key)
    return key


def _value(b, key, dtype):
    """The value of ``key`` (``_key``'s inverse for sort, NaNs aside)."""
    if dtype == "i1":
        return b.trunc(key, I1)
    if not is_float(dtype):
        w = key.type.width
        return b.xor(key, ir.Constant(key.type, 1 << (w - 1))) if is_signed(dtype) else key
    K = key.type
    mask = b.or_(b.ashr(b.not_(key), ir.Constant(K, K.width - 1)),
                 ir.Constant(K, 1 << (K.width - 1)))
    return b.bitcast(b.xor(key, mask), reg_type(dtype))


def _radix(op, ctx, indices: bool):
    x, dtype, axis, n, out, lanes = _lanes(op, ctx)
    if not n:
        return [out]
    width = 8 if dtype == "i1" else bits(dtype)
    kdt = f"u{width}"
    b = ctx.b
    keys = ctx.scratch(op, (n,), kdt)
    tmp = ctx.scratch(op, (n,), kdt)
    if indices:
        idx = ctx.scratch(op, (n,), "i64")
        tmpi = ctx.scratch(op, (n,), "i64")
    else:   # no payload: the function's index arguments are never read
        idx = tmpi = BufRef(ir.Constant(ir.PointerType(I64), None), (n,), "i64")
    nans = ctx.scratch(op, (n,), dtype) if is_float(dtype) and not indices else None
    radix = radix_function(ctx.module, width, indices)
    count = ctx.alloca_builder.alloca(I64)     # numbers (not NaN) of the lane so far
    lost = ctx.alloca_builder.alloca(I64)      # NaNs of the lane so far

    def lane(outer):
        def at(k):
            return list(outer[:axis]) + [k] + list(outer[axis:])

        def fill(k):
            v = ctx.element(x, at(k))
            if nans is None:
                ctx.store(keys, [k], _key(b, v, dtype, indices))
                if indices:
                    ctx.store(idx, [k], k)
                return
            is_nan = b.fcmp_unordered("!=", v, v)
            with b.if_else(is_nan) as (then, other):
                with then:
                    j = b.load(lost)
                    ctx.store(nans, [j], v)
                    b.store(b.add(j, ir.Constant(I64, 1)), lost)
                with other:
                    j = b.load(count)
                    ctx.store(keys, [j], _key(b, v, dtype, False))
                    b.store(b.add(j, ir.Constant(I64, 1)), count)
        b.store(ir.Constant(I64, 0), count)
        b.store(ir.Constant(I64, 0), lost)
        ctx.counted_loop(n, fill)
        m = ir.Constant(I64, n) if nans is None else b.load(count)
        swapped = b.call(radix, [keys.ptr, tmp.ptr, idx.ptr, tmpi.ptr, m])
        sk = BufRef(b.select(swapped, tmp.ptr, keys.ptr), (n,), kdt)
        si = BufRef(b.select(swapped, tmpi.ptr, idx.ptr), (n,), "i64")

        def unpack(k):
            v = ctx.load(si, [k]) if indices else _value(b, ctx.load(sk, [k]), dtype)
            ctx.store(out, at(k), v)
        ctx.counted_loop(m, unpack)
        if nans is not None:
            ctx.counted_loop(b.load(lost),
                             lambda k: ctx.store(out, at(b.add(m, k)), ctx.load(nans, [k])))
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
