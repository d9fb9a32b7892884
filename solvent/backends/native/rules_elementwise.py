"""Lowering rules of the elementwise ops (``tensor.<ufunc>``, select, convert).

A rank-0 result is one scalar computation; an array result is a loop nest over the result's
shape that reads each operand with NumPy broadcasting (a size-1 or missing dim reads index 0)
and applies the same scalar computation (``scalar_math``). A run-time dim (``?``) of an
operand runs to the smallest of the lengths meeting there: the frontend's checks require
them equal, and where one failed (its error is raised, the result never seen) no read
leaves a buffer.
"""
from __future__ import annotations

from . import rules_complex, scalar_math
from .context import Lazy
from .types import is_complex


def operand_at(ctx, v, idx, shape):
    """The element of operand ``v`` that broadcasts to index ``idx`` of ``shape``."""
    x = ctx.get(v)
    rank = len(v.type.shape)
    if rank == 0:
        return x
    lead = len(shape) - rank
    sub = [0 if n == 1 and shape[lead + d] != 1 else idx[lead + d]
           for d, n in enumerate(v.type.shape)]
    return ctx.element(x, sub)


def result_dims(ctx, op):
    """The run-time shape an elementwise op loops over (see the module docstring)."""
    res = op.results[0]
    rank = res.type.rank
    shape = []
    for d, n in enumerate(res.type.shape):
        cands = [] if n is None else [n]
        for o in op.operands:
            k = o.type.rank - rank + d
            if k >= 0 and o.type.shape[k] is None:
                cands.append(ctx.dim(o, k))
        out = cands[0]
        for c in cands[1:]:
            out = ctx.smin(out, c)
        shape.append(out)
    return tuple(shape)


def elementwise(scalar):
    """A rule from ``scalar(ctx, op, values) -> register``."""
    def rule(op, ctx):
        res = op.results[0]
        if res.type.rank == 0:
            return [scalar(ctx, op, [ctx.get(o) for o in op.operands])]
        shape = res.type.shape
        if not (res.type.static and all(o.type.static for o in op.operands)):
            shape = result_dims(ctx, op)
        if op in ctx.plan.fused:
            return [Lazy(lambda idx: scalar(ctx, op, [operand_at(ctx, o, idx, shape)
                                                      for o in op.operands]),
                         shape, res.type.dtype)]
        out = ctx.out(op, shape=shape)

        def body(idx):
            vals = [operand_at(ctx, o, idx, shape) for o in op.operands]
            ctx.store(out, idx, scalar(ctx, op, vals))
        ctx.loop_nest(shape, body)
        return [out]
    rule.scalar = scalar   # one element: what a multi-output loop computes (multi_output.py)
    return rule


def _unary(name, fn):
    """The rule of elementwise op ``name``: ``fn`` on real operands, rules_complex's on
    complex ones (and its real/imag of a real value)."""
    def scalar(ctx, op, vals):
        dt = op.operands[0].type.dtype
        return rules_complex.scalar_rule(name, dt, fn)(ctx, dt, *vals)
    return elementwise(scalar)


def _select(ctx, op, vals):
    c, a, b = vals
    return ctx.b.select(c, a, b)


def _convert(ctx, op, vals):
    src, dst = op.operands[0].type.dtype, op.results[0].type.dtype
    if is_complex(src) or is_complex(dst):
        return rules_complex.convert(ctx, src, dst, vals[0])
    return scalar_math.convert(ctx, src, dst, vals[0], op.attrs.get("in_range", False))


RULES = {f"tensor.{name}": _unary(name, fn)
         for table in (scalar_math.UNARY, scalar_math.BINARY, rules_complex.REAL_UNARY)
         for name, fn in table.items()}
RULES["tensor.select"] = elementwise(_select)


def _select_rule(base):
    """select's rule: a guarded scalar read is read in a branch (rules_index.guarded_read),
    anything else as any elementwise op."""
    def rule(op, ctx):
        from .rules_index import guarded_read
        out = guarded_read(op, ctx)
        return [out] if out is not None else base(op, ctx)
    rule.scalar = base.scalar
    return rule


RULES["tensor.select"] = _select_rule(RULES["tensor.select"])
RULES["tensor.convert"] = elementwise(_convert)


def _broadcast_rule(base):
    """A fill, left undone where every element is overwritten before it is read
    (``Plan.unfilled``, unfilled_inits.py): the buffer as allocated."""
    def rule(op, ctx):
        if op in ctx.plan.unfilled:
            return [ctx.out(op)]
        return base(op, ctx)
    rule.scalar = base.scalar
    return rule


RULES["tensor.broadcast_to"] = _broadcast_rule(elementwise(lambda ctx, op, vals: vals[0]))
RULES["tensor.complex"] = elementwise(
    lambda ctx, op, vals: rules_complex.pack(ctx, op.results[0].type.dtype, *vals))

# ops whose result element k reads only element k of each same-shaped operand
ELEMENTWISE = frozenset(RULES)
