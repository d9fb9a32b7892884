"""VJP rules of the factorizations and triangular solves (``solvent.ops.linalg``,
``solvent.ops.decompositions``, ``solvent.ops.triangular``), for real matrices.

Identities (``A`` symmetric perturbations where the op reads one triangle):

* ``triangular_solve``: ``x = T^-1 b`` => ``ct_b = T^-T ct``, ``ct_T = -ct_b x^T`` on ``T``'s
  triangle (strict with a unit diagonal).
* ``cholesky`` (Murray 2016): ``S = L^-T Phi(L^T ct_L) L^-1``, ``Phi`` = lower triangle with the
  diagonal halved.
* ``eigh``: ``S = V (diag(ct_w) + F o (V^T ct_V)) V^T``, ``F_ij = 1 / (w_j - w_i)`` off the
  diagonal.
* cholesky and eigh read one triangle of ``A``: an off-diagonal entry there stands for both
  ``A_ij`` and ``A_ji``, so ``ct_A = S + S^T`` on that triangle, ``S_ii`` on the diagonal, 0
  on the other (``_fold``).
* ``svd`` (Townsend 2016, thin factors): ``ct_A = U [(F o (U^T ct_U - ct_U^T U)) S + diag(ct_s)
  + S (F o (V^T ct_V - ct_V^T V))] V^T + (I - U U^T) ct_U S^-1 V^T + U S^-1 ct_V^T (I - V V^T)``,
  ``F_ij = 1 / (s_j^2 - s_i^2)``; singular values only: ``U diag(ct_s) V^T``.
* ``qr`` (reduced, ``m >= n``): ``ct_A = (ct_Q + Q copyltu(M)) R^-T``, ``M = R ct_R^T - ct_Q^T Q``,
  ``copyltu(M)`` the symmetric matrix of ``M``'s lower triangle; ``m < n``: ``A = Q [X | Y]``
  splits into the square case on ``X`` with ``ct_Q + Y ct_RY^T`` and ``ct_Y = Q ct_RY``.

Degenerate inputs (repeated eigen- or singular values, rank deficiency) have no derivative;
the rules then give inf/NaN, as the formulas do.
"""
from __future__ import annotations

from ..ir.registry import register_vjp
from ..ir.types import TensorType
from . import emit as E
from .rules_reductions import _matmul, _mT
from .transform import DifferentiationError


def _eye(b, shape, dtype):
    """The identity on the last two dims of ``shape`` (broadcast over the batch), as 0/1
    values of ``dtype`` and the boolean mask."""
    n, m = shape[-2], shape[-1]
    r = b.one("tensor.iota", shape=[n, m], dim=0, dtype="i64")
    c = b.one("tensor.iota", shape=[n, m], dim=1, dtype="i64")
    mask = b.one("tensor.eq", r, c)
    if tuple(shape) != (n, m):
        mask = b.one("tensor.broadcast_to", mask, shape=list(shape))
    return b.one("tensor.convert", mask, dtype=dtype), mask


def _tri(b, x, lower: bool, k: int = 0):
    return b.one("tensor.triangle", x, part="lower" if lower else "upper", k=k)


def _fold(b, s, lower: bool):
    """The cotangent of an op that reads ``lower`` (or the upper) triangle of a symmetric
    matrix, from ``S`` with ``<S, dA>`` the derivative along symmetric ``dA``."""
    eye, _ = _eye(b, s.type.shape, s.type.dtype)
    both = b.one("tensor.add", s, _mT(b, s))
    return b.one("tensor.sub", _tri(b, both, lower), b.one("tensor.mul", s, eye))


def _offdiag_inverse_gaps(b, w):
    """``F_ij = 1 / (w_j - w_i)`` for ``i != j``, 0 on the diagonal (``w``: (..., n))."""
    shape = list(w.type.shape) + [w.type.shape[-1]]
    wj = b.one("tensor.broadcast_to", b.one("tensor.reshape", w, shape=shape[:-2] + [1, shape[-1]]),
               shape=shape)
    wi = b.one("tensor.broadcast_to", b.one("tensor.reshape", w, shape=shape[:-1] + [1]),
               shape=shape)
    eye, mask = _eye(b, shape, w.type.dtype)
    gap = b.one("tensor.select", mask, eye, b.one("tensor.sub", wj, wi))
    return b.one("tensor.select", mask, E.zeros(b, TensorType(tuple(shape), w.type.dtype)),
                 b.one("tensor.div", b.constant(1.0, w.type.dtype), gap))


def _diag(b, v, like):
    """``diag(v)`` shaped like ``like`` (v: (..., n))."""
    shape = list(like.type.shape)
    eye, _ = _eye(b, shape, like.type.dtype)
    vj = b.one("tensor.broadcast_to", b.one("tensor.reshape", v, shape=shape[:-2] + [1, shape[-1]]),
               shape=shape)
    return b.one("tensor.mul", vj, eye)


def _scale_cols(b, x, v):
    """``x @ diag(v)``: column j of ``x`` times ``v_j``."""
    shape = list(x.type.shape)
    vj = b.one("tensor.reshape", v, shape=shape[:-2] + [1, shape[-1]])
    return b.one("tensor.mul", x, b.one("tensor.broadcast_to", vj, shape=shape))


def _scale_rows(b, x, v):
    """``diag(v) @ x``."""
    shape = list(x.type.shape)
    vi = b.one("tensor.reshape", v, shape=shape[:-1] + [1])
    return b.one("tensor.mul", x, b.one("tensor.broadcast_to", vi, shape=shape))


def _ct(b, ct, t):
    return ct if ct is not None else E.zeros(b, t)


def _real_only(op, xs):
    if xs[0].type.dtype[0] != "f":
        raise DifferentiationError(f"{op.name}: complex matrices are not differentiated yet")


def _triangular_solve(b, op, xs, ys, cts):
    a, rhs = xs
    x, ct = ys[0], cts[0]
    lower, unit = op.attrs["lower"], op.attrs["unit_diagonal"]
    ct_b = b.one("tensor.triangular_solve", b.one("tensor.transpose", a, perm=[1, 0]), ct,
                 lower=not lower, unit_diagonal=unit)
    if x.type.rank == 1:
        outer = b.one("tensor.dot_general", ct_b, x, lhs_batch=[], rhs_batch=[],
                      lhs_contract=[], rhs_contract=[])
    else:
        outer = _matmul(b, ct_b, _mT(b, x))
    k = (-1 if lower else 1) if unit else 0
    return [_tri(b, b.one("tensor.neg", outer), lower, k), ct_b]


def _cholesky(b, op, xs, ys, cts):
    _real_only(op, xs)
    low, ct = ys[0], cts[0]
    eye, _ = _eye(b, low.type.shape, low.type.dtype)
    p = _matmul(b, _mT(b, low), ct)
    half = b.one("tensor.mul", p, eye)
    phi = b.one("tensor.sub", _tri(b, p, True),
                b.one("tensor.mul", half, b.constant(0.5, low.type.dtype)))
    linv = b.one("tensor.inv", low)
    s = _matmul(b, _matmul(b, _mT(b, linv), phi), linv)
    return [_fold(b, s, True)]


def _eigh(b, op, xs, ys, cts):
    _real_only(op, xs)
    w, v = ys
    ct_w, ct_v = _ct(b, cts[0], w.type), _ct(b, cts[1], v.type)
    inner = b.one("tensor.mul", _offdiag_inverse_gaps(b, w), _matmul(b, _mT(b, v), ct_v))
    inner = b.one("tensor.add", inner, _diag(b, ct_w, v))
    s = _matmul(b, _matmul(b, v, inner), _mT(b, v))
    return [_fold(b, s, op.attrs["uplo"] == "L")]


def _svd(b, op, xs, ys, cts):
    _real_only(op, xs)
    a = xs[0]
    if not op.attrs["compute_uv"]:
        u, _, vh = b.create("tensor.svd", [a], {"full_matrices": False,
                                               "compute_uv": True}).results
        return [_matmul(b, _scale_cols(b, u, cts[0]), vh)]
    if op.attrs["full_matrices"] and a.type.shape[-1] != a.type.shape[-2]:
        raise DifferentiationError(
            "tensor.svd with full_matrices=True on a non-square matrix: the extra singular "
            "vectors are not unique, so they have no derivative (use full_matrices=False)")
    u, s, vh = ys
    ct_u, ct_s, ct_vh = (_ct(b, c, y.type) for c, y in zip(cts, ys))
    v, ct_v = _mT(b, vh), _mT(b, ct_vh)
    dt = s.type.dtype
    f = _offdiag_inverse_gaps(b, b.one("tensor.mul", s, s))
    ut_cu = _matmul(b, _mT(b, u), ct_u)
    vt_cv = _matmul(b, _mT(b, v), ct_v)
    j = _scale_cols(b, b.one("tensor.mul", f, b.one("tensor.sub", ut_cu, _mT(b, ut_cu))), s)
    k = _scale_rows(b, b.one("tensor.mul", f, b.one("tensor.sub", vt_cv, _mT(b, vt_cv))), s)
    core = b.one("tensor.add", b.one("tensor.add", j, k), _diag(b, ct_s, j))
    out = _matmul(b, _matmul(b, u, core), vh)
    inv_s = b.one("tensor.div", b.constant(1.0, dt), s)
    m, n = a.type.shape[-2], a.type.shape[-1]
    if m > s.type.shape[-1]:  # (I - U U^T) ct_U S^-1 V^T
        proj = b.one("tensor.sub", ct_u, _matmul(b, u, ut_cu))
        out = b.one("tensor.add", out, _matmul(b, _scale_cols(b, proj, inv_s), vh))
    if n > s.type.shape[-1]:  # U S^-1 ct_V^T (I - V V^T)
        proj = b.one("tensor.sub", ct_vh, _matmul(b, _mT(b, vt_cv), vh))
        out = b.one("tensor.add", out, _matmul(b, u, _scale_rows(b, proj, inv_s)))
    return [out]


def _qr_square(b, q, r, ct_q, ct_r):
    """``(ct_Q + Q copyltu(M)) R^-T`` for ``m >= n`` (2-D)."""
    m = b.one("tensor.sub", _matmul(b, r, _mT(b, ct_r)), _matmul(b, _mT(b, ct_q), q))
    sym = b.one("tensor.add", _tri(b, m, True), _mT(b, _tri(b, m, True, -1)))
    rhs = b.one("tensor.add", ct_q, _matmul(b, q, sym))
    # X R^T = rhs  <=>  R X^T = rhs^T
    xt = b.one("tensor.triangular_solve", r, _mT(b, rhs), lower=False, unit_diagonal=False)
    return _mT(b, xt)


def _qr(b, op, xs, ys, cts):
    _real_only(op, xs)
    a = xs[0]
    if a.type.rank != 2:
        raise DifferentiationError("tensor.qr of a stack of matrices is not differentiated yet")
    q, r = ys
    ct_q, ct_r = _ct(b, cts[0], q.type), _ct(b, cts[1], r.type)
    m, n = a.type.shape
    if m >= n:
        return [_qr_square(b, q, r, ct_q, ct_r)]
    sq = [["s", 0, m, 1], ["s", 0, m, 1]]
    rest = [["s", 0, m, 1], ["s", m, n, 1]]
    y = b.create("tensor.slice", [a], {"spec": rest}).result
    r1 = b.create("tensor.slice", [r], {"spec": sq}).result
    ct_r1 = b.create("tensor.slice", [ct_r], {"spec": sq}).result
    ct_r2 = b.create("tensor.slice", [ct_r], {"spec": rest}).result
    ct_x = _qr_square(b, q, r1, b.one("tensor.add", ct_q, _matmul(b, y, _mT(b, ct_r2))), ct_r1)
    return [b.one("tensor.concatenate", ct_x, _matmul(b, q, ct_r2), axis=1)]


for _name, _rule in (("triangular_solve", _triangular_solve), ("cholesky", _cholesky),
                     ("eigh", _eigh), ("svd", _svd), ("qr", _qr)):
    register_vjp(f"tensor.{_name}", _rule)
