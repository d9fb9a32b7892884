"""Lowering rules of ``tensor.slice`` and ``tensor.update_slice`` (basic-index specs).

Dynamic integer indices (``["i", j]``) follow NumPy: negative wraps once, and an index still
outside the dimension stops the program with an IndexError naming the op's source line
(``ctx.checked_index``): the check runs once per op execution, before the element loops.
An access that if-conversion made unconditional is marked ``unchecked``: its index is
clamped (the IR's total semantics), since the program might not have made it.
Dynamic slice starts (``["d", j, size]``) are clamped so the slice fits, as the IR defines.
Run-time slices (``["r", j, k, step]``) compute start and length as Python's
``slice.indices`` does (out-of-range bounds clamp, never raise); their result buffers are
allocated at run time (``ctx.out`` with the run-time shape).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ...ops import indexspec
from .context import BufRef, Lazy
from .types import I64, const


def runtime_bounds(ctx, n, lo, hi, step):
    """(start, length) registers of ``slice(lo, hi, step)`` on a dim of length ``n``
    (``lo``/``hi``: i64 registers or None), as ``len(range(*slice.indices(n)))``; ``step``
    an int, or a non-zero i64 register (a run-time step: both signs computed, one
    selected)."""
    b = ctx.b
    if not isinstance(step, int):
        zero = ir.Constant(I64, 0)
        pos = b.icmp_signed(">", step, zero)
        s = b.select(pos, step, b.sub(zero, step))
        p_start, p_len = _bounds(ctx, n, lo, hi, 1, s)
        m_start, m_len = _bounds(ctx, n, lo, hi, -1, s)
        return b.select(pos, p_start, m_start), b.select(pos, p_len, m_len)
    return _bounds(ctx, n, lo, hi, 1 if step > 0 else -1, ir.Constant(I64, abs(step)))


def _bounds(ctx, n, lo, hi, sign, s):
    """(start, length) for a step of sign ``sign`` and magnitude ``s`` (an i64 register)."""
    b = ctx.b
    n = ctx.as_value(n)
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)

    def bound(x, default, lo_, hi_):
        if x is None:
            return default
        x = b.select(b.icmp_signed("<", x, zero), b.add(x, n), x)
        x = b.select(b.icmp_signed("<", x, lo_), lo_, x)
        return b.select(b.icmp_signed(">", x, hi_), hi_, x)
    if sign > 0:
        start = bound(lo, zero, zero, n)
        stop = bound(hi, n, zero, n)
        span = b.sub(stop, start)
    else:
        last = b.sub(n, one)
        minus1 = ir.Constant(I64, -1)
        start = bound(lo, last, minus1, last)
        stop = bound(hi, minus1, minus1, last)
        span = b.sub(start, stop)
    length = b.sdiv(b.add(span, b.sub(s, one)), s)
    length = b.select(b.icmp_signed("<", length, zero), zero, length)
    return start, length


def _resolve(op, ctx, spec, in_shape, dyn):
    """Per spec item: ("at", i64) for a dropped dim, ("run", start, step, length) for a kept
    one, ("new",) for a newaxis; checks run here, once."""
    b = ctx.b
    out = []
    d = 0
    for it in spec:
        kind = it[0]
        if kind == "n":
            out.append(("new",))
            continue
        n = in_shape[d]
        if kind == "r":
            lo, hi = (None if j < 0 else ctx.to_i64(ctx.get(dyn[j]), dyn[j].type.dtype)
                      for j in it[1:3])
            if len(it) == 5:   # a run-time step
                v = dyn[it[4]]
                step = ctx.to_i64(ctx.get(v), v.type.dtype)
                step = b.select(b.icmp_signed("==", step, ir.Constant(I64, 0)),
                                ir.Constant(I64, 1), step)   # refused by a check; total
                start, length = runtime_bounds(ctx, n, lo, hi, step)
            else:
                step = it[3]
                start, length = runtime_bounds(ctx, n, lo, hi, step)
            out.append(("run", start, step, length))
        elif kind == "c":
            out.append(("at", ir.Constant(I64, it[1])))
        elif kind == "i":
            v = dyn[it[1]]
            if op.attrs.get("unchecked"):   # speculated by if-conversion: clamp, never raise
                out.append(("at", ctx.clamped_index(ctx.get(v), v.type.dtype, n)))
            else:
                out.append(("at", ctx.checked_index(op, ctx.get(v), v.type.dtype, d, n)))
        elif kind == "s":
            out.append(("run", ir.Constant(I64, it[1]), it[3], len(range(*it[1:]))))
        else:  # "d": start clamped into [0, n - size]
            v = dyn[it[1]]
            k = ctx.to_i64(ctx.get(v), v.type.dtype)
            hi = ir.Constant(I64, n - it[2])
            k = b.select(b.icmp_signed("<", k, ir.Constant(I64, 0)), ir.Constant(I64, 0), k)
            k = b.select(b.icmp_signed(">", k, hi), hi, k)
            out.append(("run", k, 1, it[2]))
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
            _, start, step, _ = item
            i = idx[r]
            r += 1
            off = i if isinstance(step, int) and step == 1 else \
                b.mul(i, step if not isinstance(step, int) else ir.Constant(I64, step))
            src.append(b.add(start, off))
    return src


def _kept_shape(items):
    """The result's shape: one length per kept dim (ints, registers for run-time slices)."""
    return tuple(1 if it[0] == "new" else it[3] for it in items if it[0] != "at")


def _on_empty_axis(spec, dims) -> bool:
    """Whether one integer index of ``spec`` falls on a dim of static length 0: a checked
    access has raised by then, a speculated (clamped) one must read nothing (there is no
    element to clamp to) and gives zeros."""
    static = tuple(n if isinstance(n, int) else 1 for n in dims)
    return indexspec.int_index_on_empty_axis(spec, static) is not None


def _scaled(ctx, stride, step):
    """``stride * step`` (an int, or an i64 register for a run-time stride)."""
    if isinstance(stride, int) and isinstance(step, int):
        return stride * step
    if isinstance(step, int):
        return stride if step == 1 else ctx.b.mul(stride, ir.Constant(I64, step))
    return ctx.b.mul(ctx.as_value(stride), step)


def _slice(op, ctx):
    x = ctx.get(op.operands[0])
    if op.operands[0].type.rank == 0:
        res = op.results[0].type
        if res.rank == 0:                      # x[()] of a scalar
            return [x]
        # x[np.newaxis, ...] of a scalar: one element, in a shape of ones
        if op in ctx.plan.fused:
            return [Lazy(lambda idx: x, res.shape, res.dtype)]
        out = ctx.out(op, shape=res.shape)
        ctx.loop_nest(res.shape, lambda idx: ctx.store(out, idx, x))
        return [out]
    dims = ctx.dims(op.operands[0])
    items = _resolve(op, ctx, op.attrs["spec"], dims, op.operands[1:])
    res = op.results[0]
    read = lambda idx: ctx.element(x, _source_index(ctx, items, idx))
    zero_read = None
    if _on_empty_axis(op.attrs["spec"], dims):
        zero = const(res.type.dtype, 0)
        read = zero_read = lambda idx: zero
    if res.type.rank == 0:
        return [read([])]
    shape = _kept_shape(items)
    if op in ctx.plan.fused:
        view = None
        if isinstance(x, BufRef) and read is not zero_read and all(
                it[0] == "at" or (it[0] == "run" and isinstance(it[2], int) and it[2] > 0)
                for it in items):
            origin = ctx.b.gep(x.ptr, [ctx.offset(x, _source_index(
                ctx, items, [ir.Constant(I64, 0)] * len(shape)))], inbounds=False)
            view = (origin, [_scaled(ctx, s, it[2]) for it, s in zip(items, x.strides)
                             if it[0] == "run"])
        return [Lazy(read, shape, res.type.dtype, view)]
    out = ctx.out(op, shape=shape)
    ctx.loop_nest(shape, lambda idx: ctx.store(out, idx, read(idx)))
    return [out]


def _update_slice(op, ctx):
    xv, vv = op.operands[0], op.operands[1]
    if xv.type.rank == 0:                      # x[()] = v on a scalar
        return [ctx.get(vv)]
    if op in ctx.plan.inplace and not xv.type.static:   # x's own run-time-sized buffer
        out = ctx.get(xv)
        ctx.bufs[ctx.plan.of[op.results[0]].id] = out
    else:
        out = ctx.out(op, shape=ctx.dims(xv))
    if op not in ctx.plan.inplace:
        ctx.copy(out, ctx.get(xv))
    xs = ctx.dims(xv)
    keep = _keeps_old_value(op)
    if keep is not None:   # x[i] = a if c else x[i]: stores only when c holds
        cond, taken = keep
        b = ctx.b
        resolve = lambda: _resolve(op, ctx, op.attrs["spec"], xs, op.operands[2:])
        # a clamped index is computed where c holds (LLVM may then drop the clamp); a
        # checked one is checked whether or not c holds, as the unconditional update was
        items = None if op.attrs.get("unchecked") else resolve()
        with b.if_then(ctx.get(cond) if taken else b.not_(ctx.get(cond))):
            ctx.store(out, _source_index(ctx, resolve() if items is None else items, []),
                      ctx.get(vv.owner.operands[2 - taken]))
        return [out]
    items = _resolve(op, ctx, op.attrs["spec"], xs, op.operands[2:])
    v = ctx.get(vv)
    shape = _kept_shape(items)
    if vv.type.rank == 0:   # one element, or a run-time slice filled with a scalar
        ctx.loop_nest(shape, lambda idx: ctx.store(out, _source_index(ctx, items, idx), v))
    else:
        # lengths agree where the frontend's checks passed; the smaller keeps a failed run
        # inside both buffers (its error is raised, this result never seen)
        shape = tuple(ctx.smin(a, c) if not (isinstance(a, int) and isinstance(c, int)) else a
                      for a, c in zip(shape, ctx.dims(vv)))
        ctx.loop_nest(shape,
                      lambda idx: ctx.store(out, _source_index(ctx, items, idx), ctx.element(v, idx)))
    return [out]


def _keeps_old_value(op):
    """``(c, True)`` when ``op`` writes one element ``select(c, a, x[i])`` of ``x`` at the
    same ``i`` (``(c, False)`` for ``select(c, x[i], a)``), else None. If-conversion makes
    ``if c: x[i] = a`` this way; storing ``x[i]`` back is a no-op, so the native code
    stores ``a`` only when it changes something: a branch the CPU predicts, instead of a
    read-modify-write of memory every iteration."""
    xv, vv = op.operands[0], op.operands[1]
    sel = vv.owner
    if vv.type.rank or getattr(sel, "name", None) != "tensor.select" \
            or any(it[0] not in "ic" for it in op.attrs["spec"]):
        return None
    for k in (2, 1):
        old = sel.operands[k].owner
        if getattr(old, "name", None) == "tensor.slice" and old.operands[0] is xv \
                and old.attrs["spec"] == op.attrs["spec"] \
                and list(old.operands[1:]) == list(op.operands[2:]) \
                and sel.operands[0].type.rank == 0:
            return sel.operands[0], k == 2
    return None


def _nothing_written_between(first, last) -> bool:
    """Whether ``first`` and ``last`` are ops of one block with only scalar ops without
    regions between them: no buffer (one updated in place included) changes in between, so
    a read moved from ``first`` to ``last`` reads the same element."""
    block = first.parent
    if block is None or last.parent is not block:
        return False
    ops = block.ops
    try:
        i, j = ops.index(first), ops.index(last)
    except ValueError:
        return False
    return i < j and all(not o.regions and all(r.type.rank == 0 for r in o.results)
                         for o in ops[i + 1:j])


def guarded_read(op, ctx):
    """``select(c, x[i], y)`` (or ``select(c, y, x[i])``) of one element, where ``x[i]`` is a
    speculated read (``unchecked``: if-conversion made ``if c: v = x[i]`` unconditional, so
    the read clamps its index): the element is read in a branch where the select takes it,
    its index clamped there, None when the pattern does not apply. Where ``c`` implies the
    index is in range (the guard ``if t * 16 + tx < k`` of a kernel's tile load), LLVM drops
    the clamp and the read is affine in the loop: the loop over threads then vectorizes
    with masked loads instead of one clamped scalar load per element (matmul_tiled's tile
    copies at ragged sizes: about 70 instructions per 4 elements). Identity: the select's
    value is the read where it takes the read, ``y`` elsewhere; the read has no effect and
    the unconditional one, left unused, is dropped by LLVM."""
    cond = op.operands[0]
    if cond.type.rank or op.results[0].type.rank:
        return None
    for k in (1, 2):
        s = op.operands[k].owner
        if getattr(s, "name", None) == "tensor.slice" and s.attrs.get("unchecked") and \
                s.results[0].type.rank == 0 and s.operands[0].type.rank > 0 and \
                all(it[0] in "ic" for it in s.attrs["spec"]) and \
                s.results[0] in ctx.env and isinstance(ctx.env.get(s.operands[0]), BufRef) \
                and _nothing_written_between(s, op):
            break   # (lowered here, from a buffer: not one a fused loop computes)
    else:
        return None
    dims = ctx.dims(s.operands[0])
    if _on_empty_axis(s.attrs["spec"], dims):
        return None
    b = ctx.b
    other = ctx.get(op.operands[3 - k])
    c = ctx.get(cond)
    with b.if_else(c if k == 1 else b.not_(c)) as (taken, not_taken):
        with taken:
            items = _resolve(s, ctx, s.attrs["spec"], dims, s.operands[1:])
            read = ctx.load(ctx.get(s.operands[0]), _source_index(ctx, items, []))
            read_block = b.block
        with not_taken:
            other_block = b.block
    out = b.phi(read.type)
    out.add_incoming(read, read_block)
    out.add_incoming(other, other_block)
    return out


RULES = {
    "tensor.slice": _slice,
    "tensor.update_slice": _update_slice,
}


def index_shape(ctx, idx_vals) -> tuple:
    """The broadcast shape of a gather's or scatter's index arrays: ints, and i64 registers
    for run-time lengths. Where an index array's length is known only at run time the
    frontend checks that the arrays' lengths agree (NumPy's IndexError; a length of 1 known
    at compile time broadcasts); that check may be reported after this op runs, so a
    run-time length here is the smallest of the arrays' lengths that are not a static 1:
    no index array is read past its end whatever the check finds."""
    if all(v.type.static for v in idx_vals):
        return tuple(np.broadcast_shapes(*(v.type.shape for v in idx_vals)))
    rank = max(v.type.rank for v in idx_vals)
    out = []
    for d in range(rank):
        lengths = [ctx.dims(v)[v.type.rank - rank + d] for v in idx_vals
                   if v.type.rank - rank + d >= 0 and v.type.shape[v.type.rank - rank + d] != 1]
        n = lengths[0] if lengths else 1
        for m in lengths[1:]:
            n = ctx.smin(n, m)
        out.append(n)
    return tuple(out)


def _gather(op, ctx):
    """NumPy advanced indexing by integer arrays on ``axes`` (indices broadcast together);
    each index is checked (negative wraps once, outside the dim raises IndexError)."""
    xv, idx_vals = op.operands[0], op.operands[1:]
    x = ctx.get(xv)
    axes = list(op.attrs["axes"])
    xs = ctx.dims(xv)        # ints, and registers for run-time lengths
    bshape = index_shape(ctx, idx_vals)
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    front = op.attrs["front"] or not adjacent
    nb = len(bshape)
    rest_dims = [a for a in range(len(xs)) if a not in axes]
    rest = [xs[a] for a in rest_dims]
    out_shape = tuple(bshape) + tuple(rest) if front else \
        tuple(rest[:axes[0]]) + tuple(bshape) + tuple(rest[axes[0]:])

    def element(idx, mode="check"):
        """Element ``idx``; ``mode``: "check" raises at a bad index ("check-only": and
        reads nothing), "clamp" clamps it (a speculated read), "flag" clamps it and records
        in ``bad`` that it was bad."""
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
            raw = iv if k == 0 else ctx.element(iv, sub)   # an index may be fused (Lazy)
            if mode in ("check", "check-only"):
                src[a] = ctx.checked_index(op, raw, v.type.dtype, a, xs[a], defer=False)
                continue
            src[a] = ctx.clamped_index(raw, v.type.dtype, xs[a])
            if mode == "flag":
                b = ctx.b
                i = ctx.to_i64(raw, v.type.dtype)
                n = ctx.as_value(xs[a])
                i = b.select(b.icmp_signed("<", i, ir.Constant(I64, 0)), b.add(i, n), i)
                b.store(b.or_(b.load(bad), b.icmp_unsigned(">=", i, n)), bad)
        if mode == "check-only":
            return None
        if any(isinstance(xs[a], int) and xs[a] == 0 for a in axes):
            return const(op.results[0].type.dtype, 0)   # nothing to read (see _on_empty_axis)
        return ctx.load(x, src)

    unchecked = op.attrs.get("unchecked")   # a speculated read (if-conversion): clamp
    if len(out_shape) == 0:
        return [element([], "clamp" if unchecked else "check")]
    if op in ctx.plan.fused:   # bufferize.pointwise_gather: read where its consumer reads
        return [Lazy(lambda idx: element(list(idx), "clamp"), out_shape,
                     op.results[0].type.dtype)]
    out = ctx.out(op, shape=out_shape)
    if unchecked:
        ctx.loop_nest(out_shape, lambda idx: ctx.store(out, idx, element(list(idx), "clamp")))
        return [out]
    # checked without a branch per element (the gather loop vectorizes): indices are
    # clamped and a bad one noted; only then a second pass checks them in order and raises
    # at the first bad one, the error the checked loop would have raised
    b = ctx.b
    bad = ctx.alloca_builder.alloca(ir.IntType(1))
    b.store(ir.Constant(ir.IntType(1), 0), bad)
    ctx.loop_nest(out_shape, lambda idx: ctx.store(out, idx, element(list(idx), "flag")))
    with b.if_then(b.load(bad), likely=False):
        ctx.loop_nest(out_shape, lambda idx: element(list(idx), "check-only"))
    return [out]


RULES["tensor.gather"] = _gather


def _scatter(kind):
    """``y = x.copy(); y[idx] = value`` (``set``: in C order, the last write wins, as in
    NumPy) or ``np.add.at(y, idx, value)`` (``add``: every duplicate adds; bool adds as
    or, integers wrap), one element of ``value`` at a time, each index checked (negative
    wraps once, outside the dim raises IndexError). ``value`` has the gathered shape."""
    def rule(op, ctx):
        from . import scalar_math
        xv, vv, idx_vals = op.operands[0], op.operands[1], list(op.operands[2:])
        xs, axes = ctx.dims(xv), list(op.attrs["axes"])   # run-time lengths as registers
        bshape = index_shape(ctx, idx_vals)
        adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
        nb, p = len(bshape), (axes[0] if adjacent else 0)
        rest_dims = [a for a in range(len(xs)) if a not in axes]
        out = ctx.out(op, shape=xs)
        ctx.copy(out, ctx.get(xv))
        v = ctx.get(vv)

        def put(idx):
            idx = list(idx)
            bidx, ridx = idx[p:p + nb], idx[:p] + idx[p + nb:]
            dst = [None] * len(xs)
            for a, r in zip(rest_dims, ridx):
                dst[a] = r
            for a, iv in zip(axes, idx_vals):
                sub = [0 if n == 1 and bshape[nb - iv.type.rank + d] != 1
                       else bidx[nb - iv.type.rank + d] for d, n in enumerate(iv.type.shape)]
                raw = ctx.get(iv) if iv.type.rank == 0 else ctx.load(ctx.get(iv), sub)
                dst[a] = ctx.checked_index(op, raw, iv.type.dtype, a, xs[a], defer=False)
            new = v if vv.type.rank == 0 else ctx.load(v, idx)
            if kind == "add":
                new = scalar_math.add(ctx, xv.type.dtype, ctx.load(out, dst), new)
            ctx.store(out, dst, new)
        dims = list(ctx.dims(vv))
        if not all(v.type.static for v in idx_vals):
            # a run-time index length: the frontend's check (NumPy's ValueError) makes a
            # value of another length fail after this op, so never read past the shorter
            # of the two here (the index array's end, or the value's)
            b = ctx.b
            for d in range(p, p + nb):
                n, g = ctx.as_value(dims[d]), ctx.as_value(bshape[d - p])
                dims[d] = b.select(b.icmp_signed("<", n, g), n, g)
        ctx.loop_nest(tuple(dims), put)
        return [out]
    return rule


RULES["tensor.scatter"] = _scatter("set")
RULES["tensor.scatter_add"] = _scatter("add")
