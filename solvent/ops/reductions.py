"""Reductions and scans, one record each.

Identity: ``tensor.reduce_<kind> {axes, keepdims}`` computes ``numpy.<kind>(x, axis=axes,
keepdims=keepdims)`` with the operand already converted to the accumulation dtype NumPy
would use (the frontend inserts the conversion), so the result keeps the operand's dtype.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import TensorType
from ..ir.registry import OpDef, expect, register

try:
    import jax.numpy as jnp
except ImportError:  # pragma: no cover
    jnp = None


def reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if a in axes else d for a, d in enumerate(shape))
    return tuple(d for a, d in enumerate(shape) if a not in axes)


REDUCTIONS = {
    # name: (numpy fn, jnp fn name, result dtype rule, accepts bool input)
    "sum": (np.sum, "sum", "same"),
    "prod": (np.prod, "prod", "same"),
    "max": (np.max, "max", "same"),
    "min": (np.min, "min", "same"),
    "any": (np.any, "any", "bool"),
    "all": (np.all, "all", "bool"),
}


# --- XLA-only lowering strategies (the fold and the NaN guard serve the xla rules below;
# the interpreter and other backends do not use them) -------------------------------------
#
# Folding leading reduced axes: when a float reduction also reduces the contiguous last
# axis, each other reduced axis is first folded to length 1 by combining its rows
# elementwise (``x[0] op x[1] op ...`` as a balanced tree), which XLA:CPU emits as one loop
# vectorized along the last axis; XLA's own reduction of a computed float operand is a serial
# chain (max/min with NaN propagation and float sums are not reassociated). XLA's reduction
# of the last axis then finishes the job; it also keeps XLA from fusing the combine tree into
# the result's consumers, which would recompute the tree for every element (optimization
# barriers do not survive on CPU). max/min are exact in any order; sums become tree-ordered,
# closer to NumPy's pairwise summation than a serial chain.
#
# The window below is where folding measured faster (``benchmarks/reduce_lowering.py
# --which fold``, a time loop reducing a computed operand each step; two runs): 200x200 max
# 2.1-2.8x, sum 1.6-1.8x; 30x30x50 max 2.0-2.5x, sum 1.0-1.2x; 64x64 and 100x100 1.1-1.6x;
# laplace_converge 21 -> 11 ms per call. Thin or large operands (16x4096, 4096x16, 300x300,
# 500x500, 60x1000) ran 1.3-3x slower folded, so they keep XLA's reduction.
_FOLD_SIZES = (4096, 1 << 16)   # operand elements
_FOLD_LANES = (8, 256)          # length of the contiguous last axis
_FOLD_MAX_ROWS = 256            # longest axis folded (one elementwise pass)


def _fold_leading_axes(x, axes, kind):
    """Fold each reduced axis but the last to length 1 where that measured faster; the caller
    reduces what is left, which includes the last axis."""
    from jax import lax
    lead = sorted(axes)[:-1]
    if x.ndim < 2 or x.ndim - 1 not in axes or not lead or \
            not jnp.issubdtype(x.dtype, jnp.floating) or \
            not _FOLD_SIZES[0] <= x.size <= _FOLD_SIZES[1] or \
            not _FOLD_LANES[0] <= x.shape[-1] <= _FOLD_LANES[1] or \
            any(x.shape[a] > _FOLD_MAX_ROWS for a in lead):
        return x
    combine = {"sum": lax.add, "max": lax.max, "min": lax.min}[kind]
    for a in lead:
        parts = [lax.slice_in_dim(x, i, i + 1, axis=a) for i in range(x.shape[a])]
        while len(parts) > 1:
            parts = [combine(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                     for i in range(0, len(parts), 2)]
        x = parts[0]
    return x


def _nan_guard(x, axes, r):
    """``r`` (a max/min of ``x`` over ``axes``, keepdims) with NaN wherever ``x`` had one.

    XLA:CPU hands large max/min reductions to YNNPACK, which skips NaN (jax 0.10:
    a 200x200 max with one NaN gave a number); NumPy propagates NaN. The check is a
    second reduction, and it costs (``benchmarks/reduce_lowering.py --which nan-guard``): a
    2000x2000 max 1.4-1.8x, and 2.4-4.7x when it is taken each step of a time loop. Cheaper
    detectors tried (u8 max, float sum of a mask, an inf-triggered lax.cond, NaN-propagating
    sum(x - x)) measured no better in ad-hoc JAX runs (not kept)."""
    return jnp.where(jnp.any(jnp.isnan(x), axis=axes, keepdims=True),
                     jnp.asarray(np.nan, x.dtype), r)


def _complex_nan_guard(x, axes, r):
    """``r`` (a complex max/min of ``x`` over ``axes``, keepdims) replaced by the first
    element with a NaN part wherever there is one, as NumPy's complex maximum gives (jnp's
    complex max skips them: fuzzer seed 628)."""
    k = len(axes)
    moved = jnp.moveaxis(x, axes, tuple(range(x.ndim - k, x.ndim)))
    flat = jnp.reshape(moved, moved.shape[:x.ndim - k] + (
        int(np.prod([x.shape[a] for a in axes], dtype=np.int64)),))
    bad = jnp.isnan(flat)
    first = jnp.take_along_axis(flat, jnp.argmax(bad, axis=-1, keepdims=True), axis=-1)
    return jnp.where(jnp.any(bad, axis=-1).reshape(r.shape), first.reshape(r.shape), r)


def _complex_extreme(x, axes, kind):
    """NumPy's complex max/min of ``x`` over ``axes`` (keepdims; lexicographic on (real,
    imag), NaN left to ``_complex_nan_guard``) as two float reductions: the extreme real
    part, then the extreme imaginary part among the elements that have it. jnp's complex
    max is one reduction with a comparison of its own, which XLA's SPMD partitioner cannot
    combine across devices (UNIMPLEMENTED "Unsupported reduction computation" on a
    sharded axis)."""
    from jax import lax
    red = jnp.max if kind == "max" else jnp.min
    far = jnp.asarray(-np.inf if kind == "max" else np.inf, jnp.real(x).dtype)
    re, im = jnp.real(x), jnp.imag(x)
    top = red(re, axis=axes, keepdims=True)
    return lax.complex(top, red(jnp.where(re == top, im, far), axis=axes, keepdims=True))


def _arg_extreme_xla(kind):
    """argmax/argmin. jnp's is one variadic reduction (value, index), which refuses complex
    operands and which XLA's SPMD partitioner does by gathering the whole operand onto
    every device. For complex operands, and on a mesh (``ctx.sharded``), it is the first
    element equal to the extreme (or the first NaN, as NumPy gives): plain max/min
    reductions, one all-reduce each on a mesh."""
    def lower(op, args, ctx):
        x, axis, keep = args[0], op.attrs["axis"], op.attrs["keepdims"]
        sharded = getattr(ctx, "sharded", False)
        complex_ = jnp.issubdtype(x.dtype, jnp.complexfloating)
        if not complex_ and not sharded:
            return [getattr(jnp, kind)(x, axis=axis, keepdims=keep).astype(jnp.int64)]
        axes = tuple(range(x.ndim)) if axis is None else (axis,)
        if complex_:
            hit = x == _complex_extreme(x, axes, kind[3:])
        else:
            hit = x == (jnp.max if kind == "argmax" else jnp.min)(x, axis=axes, keepdims=True)
        if complex_ or jnp.issubdtype(x.dtype, jnp.floating):
            bad = jnp.isnan(x)
            hit = jnp.where(jnp.any(bad, axis=axes, keepdims=True), bad, hit)
        if not sharded:
            return [jnp.argmax(hit, axis=axis, keepdims=keep).astype(jnp.int64)]
        # the first True: the least index (flat, without an axis) where hit holds
        from jax import lax
        if axis is None:
            where = jnp.reshape(jnp.arange(x.size, dtype=jnp.int64), x.shape)
        else:
            where = lax.broadcasted_iota(jnp.int64, x.shape, axis)
        first = jnp.min(jnp.where(hit, where, jnp.int64(x.size)), axis=axis, keepdims=keep)
        return [first]
    return lower


def _empty_identity(kind, dtype):
    dt = np.dtype(dtype)
    if dt.kind in "fc":
        return -np.inf if kind == "max" else np.inf
    if dt.kind == "b":
        return kind == "min"
    info = np.iinfo(dt)
    return info.min if kind == "max" else info.max


def _make_reduce(kind, np_fn, jnp_name, rule):
    name = f"tensor.reduce_{kind}"

    def infer(types, attrs):
        expect(len(types) == 1 and isinstance(types[0], TensorType), f"{name} takes one tensor")
        t = types[0]
        axes = tuple(attrs["axes"])
        expect(all(0 <= a < t.rank for a in axes) and len(set(axes)) == len(axes),
               f"{name}: bad axes {axes} for rank {t.rank}")
        if kind in ("max", "min"):
            # a run-time axis is checked where it runs (the frontend's error.check)
            expect(all(t.shape[a] is None or t.shape[a] > 0 for a in axes),
                   f"{name} of an empty axis has no identity")
        if rule == "bool":
            expect(t.dtype == "i1", f"{name} takes i1")
        return [TensorType(reduced_shape(t.shape, axes, attrs["keepdims"]),
                           "i1" if rule == "bool" else t.dtype)]

    keep_dtype = kind in ("sum", "prod")  # NumPy would widen small ints; the IR does not

    def interp(op, args, ctx):
        kw = {"dtype": args[0].dtype} if keep_dtype else {}
        if kind in ("max", "min") and np.size(args[0]) == 0:
            # a run-time axis that is empty: the frontend's check raises NumPy's error; the
            # op itself stays total, giving the kind's identity (as the native loop does)
            kw["initial"] = _empty_identity(kind, args[0].dtype)
        r = np_fn(args[0], axis=tuple(op.attrs["axes"]), keepdims=op.attrs["keepdims"], **kw)
        return [r]

    def xla(op, args, ctx):
        kw = {"dtype": args[0].dtype} if keep_dtype else {}
        x, axes, keep = args[0], tuple(op.attrs["axes"]), op.attrs["keepdims"]
        if kind in ("sum", "max", "min") and not getattr(ctx, "sharded", False):
            # (on a mesh, slicing a sharded axis row by row cost a collective-permute a row)
            x = _fold_leading_axes(x, axes, kind)
        if kind in ("max", "min") and jnp.issubdtype(x.dtype, jnp.complexfloating):
            r = _complex_nan_guard(x, axes, _complex_extreme(x, axes, kind))
        else:
            r = getattr(jnp, jnp_name)(x, axis=axes, keepdims=True, **kw)
        if kind in ("max", "min") and jnp.issubdtype(x.dtype, jnp.floating):
            r = _nan_guard(x, axes, r)
        return [r if keep else jnp.reshape(r, reduced_shape(x.shape, axes, False))]

    register(OpDef(name=name, doc=f"numpy.{kind}(x, axis=axes, keepdims)", infer=infer),
             interp=interp, xla=xla)


for _k, (_f, _j, _r) in REDUCTIONS.items():
    _make_reduce(_k, _f, _j, _r)


def _arg_infer(types, attrs):
    expect(len(types) == 1, "argmax/argmin take one tensor")
    t = types[0]
    axis = attrs["axis"]
    expect(axis is None or 0 <= axis < t.rank, "argmax/argmin axis out of range")
    # a run-time length is checked where it runs (the frontend's ValueError check)
    expect(not t.static or t.size > 0, "argmax/argmin of an empty tensor")
    if axis is None:
        shape = (1,) * t.rank if attrs["keepdims"] else ()
    else:
        shape = reduced_shape(t.shape, (axis,), attrs["keepdims"])
    return [TensorType(shape, "i64")]


for _k in ("argmax", "argmin"):
    register(OpDef(
        name=f"tensor.{_k}",
        doc=f"numpy.{_k}(x, axis, keepdims) (first occurrence; NaN wins as in NumPy)",
        infer=_arg_infer,
    ),
        interp=(lambda k: lambda op, args, ctx: [np.asarray(getattr(np, k)(
            args[0], axis=op.attrs["axis"], keepdims=op.attrs["keepdims"])).astype(np.int64)])(_k),
        xla=_arg_extreme_xla(_k),
    )


def _scan_infer(types, attrs):
    expect(len(types) == 1, "scan takes one tensor")
    t = types[0]
    expect(0 <= attrs["axis"] < t.rank, "scan axis out of range")
    return [t]


for _k in ("cumsum", "cumprod"):
    register(OpDef(
        name=f"tensor.{_k}",
        doc=f"numpy.{_k}(x, axis) (operand already in the accumulation dtype)",
        infer=_scan_infer,
    ),
        interp=(lambda k: lambda op, args, ctx: [getattr(np, k)(
            args[0], axis=op.attrs["axis"], dtype=args[0].dtype)])(_k),
        xla=(lambda k: lambda op, args, ctx: [getattr(jnp, k)(
            args[0], axis=op.attrs["axis"], dtype=args[0].dtype)])(_k),
    )

def _running_extreme_xla(name):
    def lower(op, args, ctx):
        from jax import lax
        x = args[0]
        if x.dtype == jnp.bool_:   # lax.cummax takes numbers: max of booleans is or
            return [getattr(lax, name)(x.astype(jnp.uint8), axis=op.attrs["axis"]).astype(
                jnp.bool_)]
        return [getattr(lax, name)(x, axis=op.attrs["axis"])]
    return lower


for _k, _uf in (("cummax", np.maximum), ("cummin", np.minimum)):
    register(OpDef(
        name=f"tensor.{_k}",
        doc=f"numpy.{_uf.__name__}.accumulate(x, axis): the running extreme along axis "
            "(NaN propagates forward)",
        infer=_scan_infer,
    ),
        interp=(lambda uf: lambda op, args, ctx: [uf.accumulate(
            args[0], axis=op.attrs["axis"])])(_uf),
        xla=_running_extreme_xla(_k),
    )
