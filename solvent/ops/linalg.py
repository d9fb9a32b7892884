"""Contractions and dense linear algebra, one record each."""
from __future__ import annotations

import numpy as np

from ..ir.types import TensorType, np_dtype
from ..ir.registry import OpDef, expect, register

try:
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # pragma: no cover
    jnp = lax = None


def _free(rank, *used):
    taken = {a for group in used for a in group}
    return [a for a in range(rank) if a not in taken]


def _dot_infer(types, attrs):
    expect(len(types) == 2, "tensor.dot_general takes two tensors")
    a, b = types
    expect(a.dtype == b.dtype, "tensor.dot_general operands must share one dtype")
    lb, rb, lc, rc = (list(attrs[k]) for k in ("lhs_batch", "rhs_batch", "lhs_contract",
                                                 "rhs_contract"))
    expect(len(lb) == len(rb) and len(lc) == len(rc), "dot_general dimension lists differ")
    for x, y in zip(lb + lc, rb + rc):
        expect(0 <= x < a.rank and 0 <= y < b.rank and (a.shape[x] == b.shape[y] or None in (a.shape[x], b.shape[y])),
               f"dot_general dims {x} of {a} and {y} of {b} do not match")
    shape = ([a.shape[i] for i in lb] + [a.shape[i] for i in _free(a.rank, lb, lc)]
             + [b.shape[i] for i in _free(b.rank, rb, rc)])
    return [TensorType(tuple(shape), a.dtype)]


def _dot_interp(op, args, ctx):
    a, b = (np.asarray(x) for x in args)
    lb, rb, lc, rc = (list(op.attrs[k]) for k in ("lhs_batch", "rhs_batch", "lhs_contract",
                                                    "rhs_contract"))
    lf, rf = _free(a.ndim, lb, lc), _free(b.ndim, rb, rc)
    size = lambda x, dims: int(np.prod([x.shape[d] for d in dims], dtype=np.int64))
    at = np.transpose(a, lb + lf + lc).reshape(size(a, lb), size(a, lf), size(a, lc))
    bt = np.transpose(b, rb + rc + rf).reshape(size(b, rb), size(b, rc), size(b, rf))
    out = np.matmul(at, bt)
    shape = [a.shape[d] for d in lb] + [a.shape[d] for d in lf] + [b.shape[d] for d in rf]
    return [out.reshape(shape)]


def _dot_xla(op, args, ctx):
    a, b = args
    dims = ((tuple(op.attrs["lhs_contract"]), tuple(op.attrs["rhs_contract"])),
            (tuple(op.attrs["lhs_batch"]), tuple(op.attrs["rhs_batch"])))
    return [lax.dot_general(a, b, dims, precision=lax.Precision.HIGHEST)]


register(OpDef(
    name="tensor.dot_general",
    doc="contraction over {lhs_contract}/{rhs_contract} with batch dims {lhs_batch}/{rhs_batch}; "
        "result dims are batch, lhs free, rhs free (XLA DotGeneral)",
    infer=_dot_infer, cost="expensive",
), interp=_dot_interp, xla=_dot_xla)


def _total(fn, op, args):
    """NumPy's factorization, with NaN where NumPy raises LinAlgError (as XLA gives): ops are
    total; the frontend's error.check raises LinAlgError with the source line."""
    try:
        return fn(*args)
    except np.linalg.LinAlgError:
        t = op.results[0].type
        return np.full(t.shape, np.nan, dtype=np_dtype(t.dtype))


def _square_infer(name):
    def infer(types, attrs):
        expect(len(types) == 1, f"{name} takes one tensor")
        t = types[0]
        expect(t.rank >= 2 and t.shape[-1] == t.shape[-2], f"{name} needs square matrices")
        expect(t.dtype[0] in "fc", f"{name} needs float or complex, got {t.dtype}")
        return [t]
    return infer


def _solve_infer(types, attrs):
    expect(len(types) == 2, "tensor.solve takes (a, b)")
    a, b = types
    expect(a.rank == 2 and a.shape[0] == a.shape[1], "tensor.solve needs a square matrix")
    expect(b.rank in (1, 2) and b.shape[0] == a.shape[0], "tensor.solve rhs shape")
    expect(a.dtype == b.dtype and a.dtype[0] in "fc", "tensor.solve dtype")
    return [b]


register(OpDef(
    name="tensor.solve", doc="numpy.linalg.solve(a, b) for one square matrix",
    infer=_solve_infer, cost="expensive",
),
    interp=lambda op, args, ctx: [_total(np.linalg.solve, op, args)],
    xla=lambda op, args, ctx: [jnp.linalg.solve(*args)],
)
register(OpDef(
    name="tensor.inv", doc="numpy.linalg.inv(a)",
    infer=_square_infer("tensor.inv"), cost="expensive",
),
    interp=lambda op, args, ctx: [_total(np.linalg.inv, op, args)],
    xla=lambda op, args, ctx: [jnp.linalg.inv(args[0])],
)
register(OpDef(
    name="tensor.cholesky", doc="numpy.linalg.cholesky(a) (lower factor)",
    infer=_square_infer("tensor.cholesky"), cost="expensive",
),
    interp=lambda op, args, ctx: [_total(np.linalg.cholesky, op, args)],
    # NumPy reads only the lower triangle (XLA's default symmetrizes (a + a^H) / 2 first)
    xla=lambda op, args, ctx: [jnp.linalg.cholesky(args[0], symmetrize_input=False)],
)


def _det_infer(types, attrs):
    (t,) = _square_infer("tensor.det")(types, attrs)
    return [TensorType(t.shape[:-2], t.dtype)]


register(OpDef(
    name="tensor.det", doc="numpy.linalg.det(a)",
    infer=_det_infer, cost="expensive",
),
    interp=lambda op, args, ctx: [np.linalg.det(args[0])],
    xla=lambda op, args, ctx: [jnp.linalg.det(args[0])],
)


def _slogdet_infer(types, attrs):
    (t,) = _square_infer("tensor.slogdet")(types, attrs)
    expect(t.dtype[0] == "f", f"tensor.slogdet takes real matrices, got {t.dtype}")
    return [TensorType(t.shape[:-2], t.dtype)] * 2


register(OpDef(
    name="tensor.slogdet",
    doc="numpy.linalg.slogdet(a): (sign, log|det|) of real matrices, from an LU factorization "
        "(sign 0 and -inf for a singular one)",
    infer=_slogdet_infer, cost="expensive",
),
    interp=lambda op, args, ctx: [np.asarray(r) for r in np.linalg.slogdet(args[0])],
    xla=lambda op, args, ctx: list(jnp.linalg.slogdet(args[0])),
)
