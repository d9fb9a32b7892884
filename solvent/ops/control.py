"""Structured control flow: loop.for, loop.while, loop.if and their terminators.

Loops stay loops: a time loop is one ``loop.for`` whatever its trip count. Loop-carried
values are explicit: the region's block arguments and its ``loop.yield``.
"""
from __future__ import annotations

from ..ir.types import TensorType, np_dtype
from ..ir.registry import OpDef, expect, register

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # pragma: no cover
    jax = jnp = lax = None


def _yield_types(region):
    term = region.block.terminator
    expect(term is not None and term.name == "loop.yield", "region must end with loop.yield")
    return [v.type for v in term.operands]


def _check_int_scalar(t, what):
    expect(isinstance(t, TensorType) and t.rank == 0 and t.dtype[0] in "iu",
           f"{what} must be an integer scalar, got {t}")


# --- loop.for -------------------------------------------------------------------------------
# ``parallel = true``: iterations may run in any order (passes/mark_parallel.py proves it, a
# frontend may state it); ``combiners`` says per carried value how values of iterations run
# apart combine: "shared" (an array whose elements no two iterations share), "last" (a
# scalar: the last iteration's value), "first_error"/"error_payload" (the check flags of
# checks_to_values: the first failure wins), or the op folding a reduction (FOLDS).
# Backends that do not parallelize ignore both.
FOLDS = tuple(f"tensor.{n}" for n in ("add", "mul", "max", "min", "fmax", "fmin", "and", "or",
                                      "xor", "bitand", "bitor", "bitxor"))
COMBINERS = ("shared", "last", "first_error", "error_payload") + FOLDS


def _check_parallel(attrs, inits):
    par = attrs.get("parallel", False)
    expect(isinstance(par, bool), f"loop.for parallel must be true or false, got {par!r}")
    comb = attrs.get("combiners")
    if comb is None:
        expect(not par or all(t.rank > 0 for t in inits),
               "a parallel loop.for that carries scalars needs combiners")
        return
    expect(par, "loop.for has combiners but is not parallel")
    expect(isinstance(comb, (list, tuple)) and len(comb) == len(inits),
           "loop.for combiners: one per carried value")
    for c, t in zip(comb, inits):
        expect(c in COMBINERS, f"loop.for combiner {c!r} is not one of {', '.join(COMBINERS)}")
        expect(c != "shared" or t.rank > 0, "loop.for combiner 'shared' is for arrays")
        expect(c in FOLDS + ("shared",) or t.rank == 0, f"loop.for combiner {c!r} is for scalars")


def _for_infer(types, attrs, regions):
    expect(len(types) >= 3, "loop.for takes (lb, ub, step, *inits)")
    for t, w in zip(types[:3], ("lower bound", "upper bound", "step")):
        _check_int_scalar(t, f"loop.for {w}")
    inits = list(types[3:])
    (body,) = regions
    arg_types = [a.type for a in body.block.args]
    expect(len(arg_types) == 1 + len(inits) and arg_types[1:] == inits,
           "loop.for block args must be (iv, *carried) matching the inits")
    expect(arg_types[0] == types[0], "loop.for induction variable type")
    expect(_yield_types(body) == inits, "loop.for yields must match the carried types")
    _check_parallel(attrs, inits)
    return inits


def _for_interp(op, args, ctx):
    lb, ub, step = (int(a) for a in args[:3])
    carried = list(args[3:])
    if step == 0:  # total, as on XLA: no trips (the frontend's check reports the error)
        return carried
    iv_dtype = op.operands[0].type.dtype
    for i in range(lb, ub, step):
        carried = ctx.run_block(op.regions[0].block, [ctx.scalar(i, iv_dtype)] + carried)
    return carried


def _for_xla(op, args, ctx):
    lb, ub, step = args[:3]
    block = op.regions[0].block
    dtype = op.operands[0].type.dtype
    concrete = all(not isinstance(x, jax.core.Tracer) for x in (lb, ub, step))
    if concrete:
        lb_, ub_, st_ = (int(x) for x in (lb, ub, step))
        if st_ == 0:
            raise ValueError("range() arg 3 must not be zero")
        n = len(range(lb_, ub_, st_))
    else:
        n = jnp.maximum(0, (ub - lb + step - jnp.sign(step)) // step)

    reads = getattr(ctx, "ordered_reads", None)  # the XLA backend's (xla_ordered_reads.py)

    def body(k, carried):
        iv = (lb + k * step).astype(np_dtype(dtype))
        saved = reads.enter(k) if reads is not None else None
        try:
            return tuple(ctx.run_block(block, [iv] + list(carried)))
        finally:
            if reads is not None:
                reads.leave(saved)

    init = tuple(args[3:])
    if concrete and n == 0:
        return list(init)
    out = lax.fori_loop(0, n, body, init)
    return list(out)


register(OpDef(
    name="loop.for",
    doc="for iv in range(lb, ub, step) with carried values; region (iv, *carried) -> yield",
    infer=_for_infer, level="control", num_regions=1, region_terminators=("loop.yield",),
    pure=False, loop_like=True,
), interp=_for_interp, xla=_for_xla)


# --- loop.while -----------------------------------------------------------------------------
def _while_infer(types, attrs, regions):
    cond, body = regions
    inits = list(types)
    expect([a.type for a in cond.block.args] == inits, "loop.while cond args must match inits")
    expect([a.type for a in body.block.args] == inits, "loop.while body args must match inits")
    term = cond.block.terminator
    expect(term is not None and term.name == "loop.condition", "cond must end in loop.condition")
    expect(_yield_types(body) == inits, "loop.while body yields must match inits")
    return inits


def _while_interp(op, args, ctx):
    cond, body = op.regions
    carried = list(args)
    while True:
        (c,) = ctx.run_block(cond.block, carried)
        if not bool(c):
            return carried
        carried = ctx.run_block(body.block, carried)


def _while_xla(op, args, ctx):
    cond, body = op.regions
    out = lax.while_loop(lambda c: ctx.run_block(cond.block, list(c))[0],
                         lambda c: tuple(ctx.run_block(body.block, list(c))), tuple(args))
    return list(out)


register(OpDef(
    name="loop.while",
    doc="while cond(*carried): carried = body(*carried); regions: cond -> loop.condition, "
        "body -> loop.yield",
    infer=_while_infer, level="control", num_regions=2,
    region_terminators=("loop.condition", "loop.yield"), pure=False, loop_like=True,
), interp=_while_interp, xla=_while_xla)


# --- loop.if --------------------------------------------------------------------------------
def _if_infer(types, attrs, regions):
    expect(len(types) == 1 and types[0] == TensorType((), "i1"), "loop.if takes one i1 scalar")
    then, other = regions
    expect(not then.block.args and not other.block.args, "loop.if regions take no arguments")
    rt = _yield_types(then)
    expect(_yield_types(other) == rt, "loop.if branches must yield the same types")
    return rt


def _if_interp(op, args, ctx):
    region = op.regions[0] if bool(args[0]) else op.regions[1]
    return ctx.run_block(region.block, [])


def _if_xla(op, args, ctx):
    then, other = op.regions
    if not isinstance(args[0], jax.core.Tracer):
        return ctx.run_block((then if bool(args[0]) else other).block, [])
    out = lax.cond(args[0], lambda: tuple(ctx.run_block(then.block, [])),
                   lambda: tuple(ctx.run_block(other.block, [])))
    return list(out)


register(OpDef(
    name="loop.if",
    doc="if cond: then-region else else-region; both yield the results",
    infer=_if_infer, level="control", num_regions=2,
    region_terminators=("loop.yield", "loop.yield"), pure=False, region_branch=True,
), interp=_if_interp, xla=_if_xla)


# --- terminators ----------------------------------------------------------------------------
def _no_results(name):
    def infer(types, attrs):
        return []
    return infer


def _cond_infer(types, attrs):
    expect(len(types) == 1 and types[0] == TensorType((), "i1"), "loop.condition takes one i1")
    return []


for _name, _infer, _doc in (
        ("loop.yield", _no_results("loop.yield"), "ends a loop or if region with its values"),
        ("loop.condition", _cond_infer, "ends a while-cond region with the continue flag"),
        ("func.return", _no_results("func.return"), "returns the function's results")):
    register(OpDef(name=_name, doc=_doc, infer=_infer, level="terminator", pure=False))
