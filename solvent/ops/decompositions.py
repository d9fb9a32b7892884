"""Matrix decompositions with several results: ``tensor.eigh`` (w, v), ``tensor.svd``
((u, s, vh), or (s,) with ``compute_uv=False``), ``tensor.qr`` (reduced (q, r)), on the
last two axes of a stack.

Eigen- and singular vectors and the QR factors are unique only up to the sign (phase) of
each vector; NumPy's are LAPACK's choice and XLA's may differ. Results are compared as
products that do not depend on it (``v @ diag(w) @ v^H``, ``u @ diag(s) @ vh``, ``q @ r``).
Inputs with NaN give NaN results (XLA) where NumPy raises LinAlgError: the rules are total.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import TensorType, np_dtype
from ..ir.registry import OpDef, expect, register

try:
    import jax.numpy as jnp
except ImportError:  # pragma: no cover
    jnp = None

_REAL = {"f32": "f32", "f64": "f64", "c64": "f32", "c128": "f64"}


def _matrix(name, types, square=False):
    expect(len(types) == 1, f"{name} takes one tensor")
    t = types[0]
    expect(t.rank >= 2, f"{name} needs a matrix (stack), got {t}")
    expect(t.dtype in _REAL, f"{name} needs float or complex, got {t.dtype}")
    expect(not square or t.shape[-1] == t.shape[-2], f"{name} needs square matrices, got {t}")
    return t


def _total(op, fn, args):
    try:
        return [np.asarray(r) for r in fn(*args)]
    except np.linalg.LinAlgError:
        return [np.full(r.type.shape, np.nan, np_dtype(r.type.dtype)) for r in op.results]


# --- eigh ------------------------------------------------------------------------------------
def _eigh_infer(types, attrs):
    t = _matrix("tensor.eigh", types, square=True)
    expect(attrs.get("uplo") in ("L", "U"), "tensor.eigh: uplo must be 'L' or 'U'")
    return [TensorType(t.shape[:-1], _REAL[t.dtype]), t]


register(OpDef(
    name="tensor.eigh",
    doc="numpy.linalg.eigh(a, UPLO={uplo}): eigenvalues ascending and eigenvectors (columns)",
    infer=_eigh_infer, cost="expensive",
),
    interp=lambda op, args, ctx: _total(
        op, lambda a: np.linalg.eigh(np.asarray(a), UPLO=op.attrs["uplo"]), args),
    xla=lambda op, args, ctx: list(jnp.linalg.eigh(args[0], UPLO=op.attrs["uplo"],
                                                   symmetrize_input=False)),
)


# --- svd -------------------------------------------------------------------------------------
def _svd_infer(types, attrs):
    t = _matrix("tensor.svd", types)
    full, uv = attrs.get("full_matrices"), attrs.get("compute_uv")
    expect(isinstance(full, bool) and isinstance(uv, bool),
           "tensor.svd: full_matrices and compute_uv are bools")
    *batch, m, n = t.shape
    k = min(m, n)
    s = TensorType(tuple(batch) + (k,), _REAL[t.dtype])
    if not uv:
        return [s]
    mu, nv = (m, n) if full else (k, k)
    return [TensorType(tuple(batch) + (m, mu), t.dtype), s,
            TensorType(tuple(batch) + (nv, n), t.dtype)]


def _svd_interp(op, args, ctx):
    a = op.attrs
    if not a["compute_uv"]:
        return _total(op, lambda x: [np.linalg.svd(np.asarray(x), compute_uv=False)], args)
    return _total(op, lambda x: np.linalg.svd(np.asarray(x), full_matrices=a["full_matrices"]),
                  args)


def _svd_xla(op, args, ctx):
    a = op.attrs
    if not a["compute_uv"]:
        return [jnp.linalg.svd(args[0], compute_uv=False)]
    return list(jnp.linalg.svd(args[0], full_matrices=a["full_matrices"]))


register(OpDef(
    name="tensor.svd",
    doc="numpy.linalg.svd(a, full_matrices={full_matrices}, compute_uv={compute_uv}): "
        "(u, s, vh) or (s,), singular values descending",
    infer=_svd_infer, cost="expensive",
), interp=_svd_interp, xla=_svd_xla)


# --- qr --------------------------------------------------------------------------------------
def _qr_infer(types, attrs):
    t = _matrix("tensor.qr", types)
    *batch, m, n = t.shape
    k = min(m, n)
    return [TensorType(tuple(batch) + (m, k), t.dtype), TensorType(tuple(batch) + (k, n), t.dtype)]


register(OpDef(
    name="tensor.qr", doc="numpy.linalg.qr(a) (mode='reduced'): q (m x k), r (k x n)",
    infer=_qr_infer, cost="expensive",
),
    interp=lambda op, args, ctx: _total(op, lambda a: np.linalg.qr(np.asarray(a)), args),
    xla=lambda op, args, ctx: list(jnp.linalg.qr(args[0])),
)
