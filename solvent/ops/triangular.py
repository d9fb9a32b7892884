"""Triangular solves: ``tensor.triangular_solve`` (scipy.linalg.solve_triangular(a, b,
lower={lower}, unit_diagonal={unit_diagonal})), reading only ``a``'s triangle.

The rule is total: a zero on the diagonal gives inf/NaN as XLA does, where SciPy raises
LinAlgError (the frontend's error.check raises it with the source line)."""
from __future__ import annotations

import numpy as np

from ..ir.registry import OpDef, expect, register

try:
    import jax.scipy.linalg as jsl
except ImportError:  # pragma: no cover
    jsl = None


def _infer(types, attrs):
    expect(len(types) == 2, "tensor.triangular_solve takes (a, b)")
    a, b = types
    expect(a.rank == 2 and a.shape[0] == a.shape[1], "tensor.triangular_solve needs a square a")
    expect(b.rank in (1, 2) and b.shape[0] == a.shape[0], "tensor.triangular_solve rhs shape")
    expect(a.dtype == b.dtype and a.dtype[0] in "fc", "tensor.triangular_solve dtype")
    expect(isinstance(attrs.get("lower"), bool) and isinstance(attrs.get("unit_diagonal"), bool),
           "tensor.triangular_solve: lower and unit_diagonal are bools")
    return [b]


def _interp(op, args, ctx):
    a, b = (np.asarray(x) for x in args)
    lower, unit = op.attrs["lower"], op.attrs["unit_diagonal"]
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        t = t - np.diag(np.diag(t)) + np.eye(len(t), dtype=t.dtype)
    # forward/back substitution, as LAPACK's trtrs does (a zero pivot gives inf/NaN)
    x = b.astype(b.dtype, copy=True)
    order = range(len(t)) if lower else range(len(t) - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            rest = t[i, :i] @ x[:i] if lower else t[i, i + 1:] @ x[i + 1:]
            x[i] = (x[i] - rest) / t[i, i]
    return [x]


register(OpDef(
    name="tensor.triangular_solve",
    doc="scipy.linalg.solve_triangular(a, b, lower={lower}, unit_diagonal={unit_diagonal})",
    infer=_infer, cost="expensive",
), interp=_interp, xla=lambda op, args, ctx: [jsl.solve_triangular(
    args[0], args[1], lower=op.attrs["lower"], unit_diagonal=op.attrs["unit_diagonal"])])
