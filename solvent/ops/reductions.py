"""Reductions and scans, one record each.

Identity: ``tensor.reduce_<kind> {axes, keepdims}`` computes ``numpy.<kind>(x, axis=axes,
keepdims=keepdims)`` with the operand already converted to the accumulation dtype NumPy
would use (the frontend inserts the conversion), so the result keeps the operand's dtype.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import TensorType
from .registry import OpDef, expect, register

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


def _make_reduce(kind, np_fn, jnp_name, rule):
    name = f"tensor.reduce_{kind}"

    def infer(types, attrs):
        expect(len(types) == 1 and isinstance(types[0], TensorType), f"{name} takes one tensor")
        t = types[0]
        axes = tuple(attrs["axes"])
        expect(all(0 <= a < t.rank for a in axes) and len(set(axes)) == len(axes),
               f"{name}: bad axes {axes} for rank {t.rank}")
        if kind in ("max", "min"):
            expect(all(t.shape[a] > 0 for a in axes), f"{name} of an empty axis has no identity")
        if rule == "bool":
            expect(t.dtype == "i1", f"{name} takes i1")
        return [TensorType(reduced_shape(t.shape, axes, attrs["keepdims"]),
                           "i1" if rule == "bool" else t.dtype)]

    keep_dtype = kind in ("sum", "prod")  # NumPy would widen small ints; the IR does not

    def interp(op, args, ctx):
        kw = {"dtype": args[0].dtype} if keep_dtype else {}
        r = np_fn(args[0], axis=tuple(op.attrs["axes"]), keepdims=op.attrs["keepdims"], **kw)
        return [r]

    def xla(op, args, ctx):
        kw = {"dtype": args[0].dtype} if keep_dtype else {}
        x, axes, keep = args[0], tuple(op.attrs["axes"]), op.attrs["keepdims"]
        r = getattr(jnp, jnp_name)(x, axis=axes, keepdims=True, **kw)
        if kind in ("max", "min") and jnp.issubdtype(x.dtype, jnp.floating):
            # XLA:CPU hands large max/min reductions to YNNPACK, which skips NaN (jax 0.10:
            # a 200x200 max with one NaN gave a number); NumPy propagates NaN.
            r = jnp.where(jnp.any(jnp.isnan(x), axis=axes, keepdims=True),
                          jnp.asarray(np.nan, x.dtype), r)
        return [r if keep else jnp.reshape(r, reduced_shape(x.shape, axes, False))]

    register(OpDef(name=name, doc=f"numpy.{kind}(x, axis=axes, keepdims)", infer=infer,
                   interp=interp, xla=xla))


for _k, (_f, _j, _r) in REDUCTIONS.items():
    _make_reduce(_k, _f, _j, _r)


def _arg_infer(types, attrs):
    expect(len(types) == 1, "argmax/argmin take one tensor")
    t = types[0]
    axis = attrs["axis"]
    expect(axis is None or 0 <= axis < t.rank, "argmax/argmin axis out of range")
    expect(t.size > 0, "argmax/argmin of an empty tensor")
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
        interp=(lambda k: lambda op, args, ctx: [np.asarray(getattr(np, k)(
            args[0], axis=op.attrs["axis"], keepdims=op.attrs["keepdims"])).astype(np.int64)])(_k),
        xla=(lambda k: lambda op, args, ctx: [getattr(jnp, k)(
            args[0], axis=op.attrs["axis"], keepdims=op.attrs["keepdims"]).astype(jnp.int64)])(_k),
    ))


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
        interp=(lambda k: lambda op, args, ctx: [getattr(np, k)(
            args[0], axis=op.attrs["axis"], dtype=args[0].dtype)])(_k),
        xla=(lambda k: lambda op, args, ctx: [getattr(jnp, k)(
            args[0], axis=op.attrs["axis"], dtype=args[0].dtype)])(_k),
    ))
