"""Lowering rules of reductions (sum, prod, max, min, any, all over axes) and scans.

Identity: ``reduce_<kind>(x, axes)`` is a left fold of ``x``'s elements in C order with the
kind's combining function (NumPy's ``maximum``/``minimum`` for max/min, so NaN propagates),
starting from the kind's identity. Float sums are folded sequentially (NumPy sums pairwise:
the two agree to rounding). A reduction to a scalar keeps its accumulator in a register; to
an array, the result buffer is the accumulator.
"""
from __future__ import annotations

import math

from . import rules_complex, scalar_math
from .types import const, is_float, is_signed, bits

def _complex_aware(real, name):
    """``real``, or on complex values rules_complex's ``name`` (NumPy's complex add and
    multiply, part by part)."""
    def f(ctx, dt, a, b):
        if dt[0] == "c":
            return rules_complex.BINARY[name](ctx, dt, a, b)
        return real(ctx, dt, a, b)
    return f


_COMBINE = {
    "sum": _complex_aware(scalar_math.add, "add"), "prod": _complex_aware(scalar_math.mul, "mul"),
    "max": scalar_math.BINARY["max"], "min": scalar_math.BINARY["min"],
    "any": lambda ctx, dt, a, b: ctx.b.or_(a, b), "all": lambda ctx, dt, a, b: ctx.b.and_(a, b),
}


def identity(kind, dt):
    """The starting value of a ``reduce_<kind>`` of ``dt`` elements."""
    if kind in ("sum", "any"):
        return const(dt, 0)
    if kind in ("prod", "all"):
        return const(dt, 1)
    big = kind == "min"
    if is_float(dt):
        return const(dt, math.inf if big else -math.inf)
    if dt == "i1":
        return const(dt, 1 if big else 0)
    w = bits(dt)
    if is_signed(dt):
        return const(dt, (1 << (w - 1)) - 1 if big else -(1 << (w - 1)))
    return const(dt, (1 << w) - 1 if big else 0)


def _reassociable(combine):
    """Float sums/products whose additions LLVM may reorder (and so vectorize): NumPy sums
    pairwise, not left to right, so no order is the reference one."""
    def f(ctx, dt, a, b):
        r = combine(ctx, dt, a, b)
        if dt[0] == "f":
            r.flags.extend(["reassoc", "contract"])
        return r
    return f


def _ieee_extreme(kind, fallback):
    """Float max/min as ``llvm.maximum``/``llvm.minimum``: NaN propagates as in NumPy, and
    LLVM recognizes (and vectorizes) the reduction, which it cannot do for the select chain.
    It orders -0.0 below +0.0, where NumPy keeps whichever comes first: equal values."""
    def f(ctx, dt, a, b):
        if dt[0] != "f":
            return fallback(ctx, dt, a, b)
        fn = scalar_math._intrinsic(ctx, "maximum" if kind == "max" else "minimum", dt, 2)
        return ctx.b.call(fn, [a, b])
    return f


def combiner(kind):
    """The combining function ``(ctx, dtype, acc, x) -> register`` of ``reduce_<kind>``."""
    combine = _COMBINE[kind]
    if kind in ("sum", "prod"):
        return _reassociable(combine)
    if kind in ("max", "min"):
        return _ieee_extreme(kind, combine)
    return combine


def _reduce(kind):
    combine = combiner(kind)

    def rule(op, ctx):
        xv = op.operands[0]
        x = ctx.get(xv)
        dt = xv.type.dtype
        res = op.results[0]
        axes = set(op.attrs["axes"])
        keep = op.attrs["keepdims"]
        if xv.type.rank == 0:
            return [x]
        if res.type.rank == 0:
            acc = ctx.slot(dt)
            ctx.b.store(identity(kind, dt), acc)
            ctx.loop_nest(ctx.dims(xv), lambda idx: ctx.b.store(
                combine(ctx, dt, ctx.b.load(acc), ctx.element(x, idx)), acc))
            return [ctx.b.load(acc)]
        dims = ctx.dims(xv)
        out = ctx.out(op, shape=tuple(1 if a in axes else d for a, d in enumerate(dims)) if keep
                      else tuple(d for a, d in enumerate(dims) if a not in axes))
        lead = len(dims) - len(axes)
        if axes == set(range(lead, len(dims))):
            # trailing axes (a row sum): each result element folds in a register, which
            # LLVM vectorizes; the accumulator in the result buffer would be reloaded and
            # stored every step (it may alias the operand as far as LLVM knows)
            acc = ctx.slot(dt)

            def row(oidx):
                ctx.b.store(identity(kind, dt), acc)
                ctx.loop_nest(dims[lead:], lambda ridx: ctx.b.store(
                    combine(ctx, dt, ctx.b.load(acc), ctx.element(x, list(oidx) + list(ridx))),
                    acc))
                o = list(oidx) + [0] * (len(dims) - lead) if keep else list(oidx)
                ctx.store(out, o, ctx.b.load(acc))
            ctx.loop_nest(dims[:lead], row)
            return [out]
        ctx.loop_nest(out.shape, lambda idx: ctx.store(out, idx, identity(kind, dt)))

        def body(idx):
            o = [0 if a in axes else i for a, i in enumerate(idx)] if keep else \
                [i for a, i in enumerate(idx) if a not in axes]
            ctx.store(out, o, combine(ctx, dt, ctx.load(out, o), ctx.element(x, idx)))
        ctx.loop_nest(dims, body)
        return [out]
    return rule


def _running_extreme(kind, fallback):
    """A running float max/min step ``m, v -> v if v >= m (<= for min) or v is NaN else m``:
    a NaN running value stays, a NaN element takes over, and of equal values (-0.0, +0.0)
    the new one wins, as in NumPy's np.maximum(m, v); one compare and a select on the chain
    from step to step, where ``llvm.maximum`` expands to several (and orders -0.0 first)."""
    def f(ctx, dt, m, v):
        if dt[0] != "f":
            return fallback(ctx, dt, m, v)
        b = ctx.b
        beats = b.fcmp_unordered(">=" if kind == "max" else "<=", v, m)
        nan_m = b.fcmp_unordered("uno", m, m)
        return b.select(b.and_(beats, b.not_(nan_m)), v, m)
    return f


def _scan(kind):
    combine = _COMBINE[kind]
    if kind in ("max", "min"):
        combine = _running_extreme(kind, combine)   # NaN propagates forward, as in NumPy

    def rule(op, ctx):
        xv = op.operands[0]
        x = ctx.get(xv)
        dims = ctx.dims(xv)     # registers for dims known only at run time
        out = ctx.out(op, shape=dims)
        dt = xv.type.dtype
        axis = op.attrs["axis"]
        b = ctx.b

        n = dims[axis]
        if axis == len(dims) - 1:
            # along the innermost dim: the running value stays in a register (a reload of
            # out[i - 1] puts a store-to-load forward on the dependence chain of every step)
            acc = ctx.slot(dt)

            def row(outer):
                b.store(ctx.load(x, outer + [const("i64", 0)]), acc)
                ctx.store(out, outer + [const("i64", 0)], b.load(acc))

                def step(i):
                    j = b.add(i, const("i64", 1))
                    r = combine(ctx, dt, b.load(acc), ctx.load(x, outer + [j]))
                    b.store(r, acc)
                    ctx.store(out, outer + [j], r)
                ctx.counted_loop(b.sub(n, const("i64", 1)) if not isinstance(n, int)
                                 else n - 1, step)
            if isinstance(n, int) and n == 0:
                return [out]
            if isinstance(n, int):
                ctx.loop_nest(dims[:-1], row)
            else:
                nonempty = b.icmp_signed(">", n, const("i64", 0))
                with b.if_then(nonempty):
                    ctx.loop_nest(dims[:-1], row)
            return [out]

        def body(idx):
            v = ctx.load(x, idx)
            first = ctx.fn.append_basic_block("scan.first")
            rest = ctx.fn.append_basic_block("scan.rest")
            join = ctx.fn.append_basic_block("scan.join")
            b.cbranch(b.icmp_signed("==", idx[axis], const("i64", 0)), first, rest)
            b.position_at_end(first)
            ctx.store(out, idx, v)
            b.branch(join)
            b.position_at_end(rest)
            prev = list(idx)
            prev[axis] = b.sub(idx[axis], const("i64", 1))
            ctx.store(out, idx, combine(ctx, dt, ctx.load(out, prev), v))
            b.branch(join)
            b.position_at_end(join)
        ctx.loop_nest(dims, body)
        return [out]
    return rule


RULES = {f"tensor.reduce_{k}": _reduce(k) for k in _COMBINE}
RULES.update({"tensor.cumsum": _scan("sum"), "tensor.cumprod": _scan("prod"),
              "tensor.cummax": _scan("max"), "tensor.cummin": _scan("min")})


# elements per block of argmax/argmin's first pass (16 KiB of float64: the block the search
# reads again is still in the L1/L2 cache)
ARG_BLOCK = 2048


def _arg(kind):
    """numpy.argmax/argmin: the first extreme element; the first NaN wins. Dims known only
    at run time are read from the buffer; the frontend's check has made sure the reduced
    length is not zero where the op runs, and a run-time length is scanned from its element
    0 without reading it ahead (a failed check must not turn into a read past the end)."""
    better = ">" if kind == "argmax" else "<"
    extreme_kind = "max" if kind == "argmax" else "min"
    extreme = _ieee_extreme(extreme_kind, _COMBINE[extreme_kind])

    def rule(op, ctx):
        b = ctx.b
        xv = op.operands[0]
        x = ctx.get(xv)
        dt = xv.type.dtype
        shape = ctx.dims(xv)
        axis = op.attrs["axis"]
        res = op.results[0]
        flat = axis is None
        if flat:
            n = 1
            for d in shape:
                n = n * d if isinstance(n, int) and isinstance(d, int) else \
                    b.mul(ctx.as_value(n), ctx.as_value(d))
            x = type(x)(x.ptr, (n,), dt) if len(shape) != 1 else x
            outer, axis, along = (), 0, n
        else:
            outer = tuple(d for a, d in enumerate(shape) if a != axis)
            along = shape[axis]
        best = ctx.slot(dt)
        where = ctx.slot("i64")
        results = []
        out_shape = None
        if res.type.rank and not res.type.static:
            out_shape = ((1,) * len(shape) if flat else
                         tuple(1 if a == axis else d for a, d in enumerate(shape))) \
                if op.attrs["keepdims"] else outer
        out = ctx.out(op, shape=out_shape) if res.type.rank else None

        def two_pass(oidx):
            """The extreme value first (a reduction LLVM vectorizes), then the first index
            holding it (equal, or NaN where the extreme is NaN), stopping there: two passes,
            where the one-pass scan carries the index on the critical path of every step
            (argmax along rows of 1505x1500: 9.8 ms, NumPy 0.6 ms). The first pass goes by
            blocks of ``ARG_BLOCK`` elements and remembers the first block whose extreme
            beats the extreme so far (NaN beats any number), so the search reads that block
            only, not on average half the array (1e7 float64: 0.41x -> see ops_vs_numpy)."""
            at = (lambda i: list(oidx[:axis]) + [i] + list(oidx[axis:]))
            b.store(identity(extreme_kind, dt), best)
            b.store(const("i64", 0), where)
            blk_best = ctx.slot(dt)
            if isinstance(along, int):
                nblocks = -(-along // ARG_BLOCK)
            else:
                nblocks = b.sdiv(b.add(along, const("i64", ARG_BLOCK - 1)),
                                 const("i64", ARG_BLOCK))

            def block(k):
                start = b.mul(k, const("i64", ARG_BLOCK))
                length = ctx.smin(const("i64", ARG_BLOCK), b.sub(ctx.as_value(along), start))
                b.store(identity(extreme_kind, dt), blk_best)
                ctx.counted_loop(length, lambda i: b.store(
                    extreme(ctx, dt, b.load(blk_best), ctx.load(x, at(b.add(start, i)))),
                    blk_best))
                bm, cur = b.load(blk_best), b.load(best)
                if dt[0] == "f":
                    beats = b.or_(b.fcmp_ordered(better, bm, cur),
                                  b.and_(b.fcmp_unordered("uno", bm, bm),
                                         b.fcmp_ordered("ord", cur, cur)))
                elif is_signed(dt):
                    beats = b.icmp_signed(better, bm, cur)
                else:
                    beats = b.icmp_unsigned(better, bm, cur)
                b.store(b.select(beats, bm, cur), best)
                b.store(b.select(beats, start, b.load(where)), where)
            ctx.counted_loop(nblocks, block)
            m = b.load(best)
            n = ctx.as_value(along)
            head = ctx.fn.append_basic_block("arg.find")
            body = ctx.fn.append_basic_block("arg.test")
            done = ctx.fn.append_basic_block("arg.found")
            b.branch(head)
            b.position_at_end(head)
            i = b.load(where)
            b.cbranch(b.icmp_signed("<", i, n), body, done)
            b.position_at_end(body)
            v = ctx.load(x, at(i))
            if dt[0] == "f":
                hit = b.or_(b.fcmp_ordered("==", v, m),
                            b.and_(b.fcmp_unordered("uno", v, v), b.fcmp_unordered("uno", m, m)))
            else:
                hit = b.icmp_signed("==", v, m)
            # the next index does not wait for this compare (a select on it would put the
            # load's latency on the loop's critical path: 4.7 ns an element)
            step = ctx.fn.append_basic_block("arg.next")
            b.cbranch(hit, done, step)
            b.position_at_end(step)
            b.store(b.add(i, const("i64", 1)), where)
            b.branch(head)
            b.position_at_end(done)
            # an empty run-time length finds nothing: index 0, as the one-pass scan gives
            b.store(b.select(b.icmp_signed("<", b.load(where), n), b.load(where),
                             const("i64", 0)), where)

        def per_outer(oidx):
            if dt != "i1":
                two_pass(oidx)
                store_result(oidx)
                return
            at = (lambda i: list(oidx[:axis]) + [i] + list(oidx[axis:]))
            run_time = not isinstance(along, int)
            if run_time:
                b.store(const(dt, 0), best)
            else:
                b.store(ctx.load(x, at(const("i64", 0))), best)
            b.store(const("i64", 0), where)

            def step(i):
                v = ctx.load(x, at(i))
                cur = b.load(best)
                if dt[0] == "f":
                    take = b.and_(b.fcmp_ordered("ord", cur, cur),
                                  b.or_(b.fcmp_ordered(better, v, cur), b.fcmp_unordered("uno", v, v)))
                elif dt[0] == "i" and dt != "i1":
                    take = b.icmp_signed(better, v, cur)
                else:
                    take = b.icmp_unsigned(better, v, cur)
                if run_time:   # element 0 starts the scan
                    take = b.or_(b.icmp_signed("==", i, const("i64", 0)), take)
                b.store(b.select(take, v, cur), best)
                b.store(b.select(take, i, b.load(where)), where)
            ctx.counted_loop(along, step)
            store_result(oidx)

        def store_result(oidx):
            if res.type.rank == 0:
                results.append(b.load(where))
            else:
                o = list(oidx)
                if op.attrs["keepdims"]:
                    o = [const("i64", 0)] * len(res.type.shape) if flat else \
                        list(oidx[:axis]) + [const("i64", 0)] + list(oidx[axis:])
                ctx.store(out, o, b.load(where))
        ctx.loop_nest(outer, per_outer) if outer else per_outer([])
        return [results[0]] if res.type.rank == 0 else [out]
    return rule


RULES.update({"tensor.argmax": _arg("argmax"), "tensor.argmin": _arg("argmin")})
