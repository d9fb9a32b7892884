"""Discrete Fourier transforms along one axis: ``tensor.fft`` with ``kind`` one of fft,
ifft, rfft, irfft, the length ``n`` and the ``axis`` (NumPy's norm="backward").

Dtypes follow NumPy 2: complex64 results for float32/complex64 input, complex128 for
float64/complex128 (the frontend converts other inputs to float64/complex128 first);
irfft gives the real dtype of that precision.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import TensorType, np_dtype
from ..ir.registry import OpDef, expect, register

try:
    import jax.numpy as jnp
except ImportError:  # pragma: no cover
    jnp = None

KINDS = ("fft", "ifft", "rfft", "irfft")
_COMPLEX = {"f32": "c64", "f64": "c128", "c64": "c64", "c128": "c128"}
_REAL = {"c64": "f32", "c128": "f64", "f32": "f32", "f64": "f64"}


def _infer(types, attrs):
    expect(len(types) == 1, "tensor.fft takes one tensor")
    t = types[0]
    kind, n, ax = attrs.get("kind"), attrs.get("n"), attrs.get("axis")
    expect(kind in KINDS, f"tensor.fft: kind {kind!r} is not one of {KINDS}")
    expect(t.rank >= 1 and isinstance(ax, int) and 0 <= ax < t.rank,
           f"tensor.fft: axis {ax!r} out of range for {t}")
    expect(isinstance(n, int) and n >= 1, f"tensor.fft: n must be a positive int, got {n!r}")
    expect(t.dtype in _COMPLEX, f"tensor.fft needs f32/f64/c64/c128, got {t.dtype}")
    expect(kind != "rfft" or t.dtype[0] == "f", "tensor.fft rfft needs a real tensor")
    shape = list(t.shape)
    if kind == "rfft":
        shape[ax] = n // 2 + 1
        return [TensorType(tuple(shape), _COMPLEX[t.dtype])]
    shape[ax] = n
    return [TensorType(tuple(shape), (_REAL if kind == "irfft" else _COMPLEX)[t.dtype])]


def _interp(op, args, ctx):
    a = op.attrs
    out = getattr(np.fft, a["kind"])(np.asarray(args[0]), n=a["n"], axis=a["axis"])
    return [np.asarray(out).astype(np_dtype(op.results[0].type.dtype), copy=False)]


def _xla(op, args, ctx):
    a = op.attrs
    out = getattr(jnp.fft, a["kind"])(args[0], n=a["n"], axis=a["axis"])
    return [out.astype(np_dtype(op.results[0].type.dtype))]


register(OpDef(
    name="tensor.fft", doc="numpy.fft.{kind}(x, n={n}, axis={axis})",
    infer=_infer, cost="expensive",
), interp=_interp, xla=_xla)
