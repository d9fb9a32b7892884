"""NumPy functions on the sorting, FFT and decomposition ops (``solvent.ops.sorting``,
``solvent.ops.fft``, ``solvent.ops.decompositions``): np.sort/argsort (and the methods),
np.median/percentile/quantile (linear method), np.fft.fft/ifft/rfft/irfft/fftfreq/rfftfreq,
np.linalg.eigh/eigvalsh/svd/qr/pinv."""
from __future__ import annotations

import numpy as np

from .emit import full_spec
from .npapi_creation import implements, reshape_value
from .npapi_math import _float_operand, in_double, norm_axes
from .values import ArrayRef, Const, Tensor, TupleVal


def _none(x) -> bool:
    return x is None or (isinstance(x, Const) and x.value is None)


def _sort_operand(fe, a, axis):
    """The tensor and the one non-negative axis to sort along (axis=None: flattened)."""
    t = fe.tensor(a)
    if _none(axis):
        return fe.tensor(reshape_value(fe, t, Const((-1,)))), 0
    if t.type.rank == 0:
        raise ValueError(f"{fe.b.loc}: axis {fe.static(axis)} is out of bounds for array of "
                         "dimension 0")
    return t, norm_axes(fe, axis, t.type.rank)[0]


def _check_kind(fe, kind, order):
    if not _none(order):
        raise fe.unsupported("sorting with order= (structured arrays)")
    k = None if _none(kind) else fe.static(kind, "kind")
    if k not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"{fe.b.loc}: sort kind must be one of 'quick', 'heap', or 'stable'")


@implements(np.sort)
def _sort(fe, a, axis=Const(-1), kind=None, order=None, stable=None):
    _check_kind(fe, kind, order)
    t, ax = _sort_operand(fe, a, axis)
    return Tensor(fe.b.one("tensor.sort", t.v, axis=ax))


@implements(np.argsort)
def _argsort(fe, a, axis=Const(-1), kind=None, order=None, stable=None):
    """Stable order (NumPy's kind="stable"); NumPy's default quicksort may order ties
    differently."""
    _check_kind(fe, kind, order)
    t, ax = _sort_operand(fe, a, axis)
    return Tensor(fe.b.one("tensor.argsort", t.v, axis=ax))


def sort_method(fe, x, axis=Const(-1), kind=None, order=None, stable=None):
    """``x.sort()``: sorts the array in place, returns None."""
    if not isinstance(x, ArrayRef):
        raise fe.unsupported(".sort() on a temporary value", "use np.sort(x)")
    if _none(axis):
        raise ValueError(f"{fe.b.loc}: axis=None is not valid for ndarray.sort()")
    fe.write_all(x, _sort(fe, x, axis, kind, order))
    return Const(None)


# --- order statistics ---------------------------------------------------------------------
def _take(fe, t, ax, k):
    spec = full_spec(t.shape)
    spec[ax] = ["c", k]
    return Tensor(fe.b.one("tensor.slice", t.v, spec=spec))


def _order_statistic(fe, a, axis, keepdims, compute):
    """Sorts ``a`` along one axis (all axes for None), calls ``compute(sorted, ax, n)`` for
    the reduced value and puts NaN where the slice holds one (NumPy: NaN sort last)."""
    t = fe.tensor(a)
    rank = t.type.rank
    if not _none(axis) and isinstance(fe.static(axis, "axis"), tuple):
        raise fe.unsupported("median/percentile over a tuple of axes", "use one axis or None")
    if t.dtype[0] not in "f":
        if t.dtype[0] == "c":
            raise fe.unsupported("median/percentile of complex values")
        t = fe.convert(t, "f64")
    s, ax = _sort_operand(fe, t, axis)
    s = Tensor(fe.b.one("tensor.sort", s.v, axis=ax))
    n = s.shape[ax]
    if n == 0:
        raise fe.unsupported("median/percentile of an empty axis (NumPy returns NaN with a warning)")
    out = compute(s, ax, n)
    last = _take(fe, s, ax, n - 1)
    nan = fe.ufunc(np.isnan, last)
    if out.shape != last.shape:  # several quantiles: a leading axis
        nan = fe.broadcast(nan, out.shape)
    out = fe.select(nan, fe.convert(fe.constant(np.nan), out.dtype), out)
    if bool(fe.static(keepdims, "keepdims")):
        lead = out.shape[:out.type.rank - last.type.rank]
        kept = list(t.shape) if _none(axis) else list(t.shape)
        if _none(axis):
            kept = [1] * rank
        else:
            kept[ax] = 1
        out = fe.tensor(reshape_value(fe, out, Const(tuple(lead) + tuple(kept))))
    return fe.strong(out)


@implements(np.median)
def _median(fe, a, axis=None, out=None, overwrite_input=Const(False), keepdims=Const(False)):
    if not _none(out):
        raise fe.unsupported("np.median with out=")

    def compute(s, ax, n):
        lo, hi = _take(fe, s, ax, (n - 1) // 2), _take(fe, s, ax, n // 2)
        if n % 2:
            return lo
        two = fe.convert(fe.constant(2.0), s.dtype)
        return fe.ufunc(np.true_divide, fe.ufunc(np.add, lo, hi), two)
    return _order_statistic(fe, a, axis, keepdims, compute)


def _quantile_handler(scale):
    def handler(fe, a, q, axis=None, out=None, overwrite_input=Const(False),
                method=Const("linear"), keepdims=Const(False), *, weights=None,
                interpolation=None):
        if not _none(out) or not _none(weights) or not _none(interpolation):
            raise fe.unsupported("percentile/quantile with out=, weights= or interpolation=")
        m = fe.static(method, "method")
        if m != "linear":
            raise fe.unsupported(f"percentile/quantile with method={m!r}", "use 'linear'")
        raw = fe.static(q, "q (the quantiles)")
        # NumPy's result dtype: the data's with q as given (a Python float is weak, a list
        # of them a float64 array)
        probe = np.asarray(raw) if isinstance(raw, (tuple, list)) else raw
        qv = np.true_divide(np.asarray(raw, dtype=np.float64), scale)
        if np.any((qv < 0) | (qv > 1)) or np.any(np.isnan(qv)):
            raise ValueError(f"{fe.b.loc}: Quantiles must be in the range [0, 1]")

        def one(s, ax, n, qq):
            # NumPy's linear method: virtual index n*q + (1 - q) - 1, lerp between neighbours
            v = n * qq + (1 + qq * -1) - 1
            prev = int(np.clip(np.floor(v), 0, n - 1))
            nxt = int(np.clip(np.floor(v) + 1, 0, n - 1))
            g = float(v - np.floor(v))
            lo, hi = _take(fe, s, ax, prev), _take(fe, s, ax, nxt)
            gt = fe.convert(fe.constant(g if g < 0.5 else 1 - g), s.dtype)
            diff = fe.ufunc(np.subtract, hi, lo)
            if g >= 0.5:
                return fe.ufunc(np.subtract, hi, fe.ufunc(np.multiply, diff, gt))
            return fe.ufunc(np.add, lo, fe.ufunc(np.multiply, diff, gt))

        def compute(s, ax, n):
            from ..ir.types import dtype_name, np_dtype
            s = fe.convert(s, dtype_name(np.result_type(np_dtype(s.dtype), probe)))
            if qv.ndim == 0:
                return one(s, ax, n, float(qv))
            if qv.ndim > 1:
                raise fe.unsupported("percentile/quantile with a multi-dimensional q")
            parts = [one(s, ax, n, float(x)) for x in qv]
            return fe.tensor(TupleVal(tuple(parts)))
        return _order_statistic(fe, a, axis, keepdims, compute)
    return handler


implements(np.percentile)(_quantile_handler(100))
implements(np.quantile)(_quantile_handler(1))


# --- FFT --------------------------------------------------------------------------------------
def _fft_handler(kind):
    def handler(fe, a, n=None, axis=Const(-1), norm=None, out=None):
        if not _none(norm) and fe.static(norm, "norm") != "backward":
            raise fe.unsupported(f"np.fft.{kind} with norm={fe.static(norm)!r}",
                                 "scale the result yourself")
        if not _none(out):
            raise fe.unsupported(f"np.fft.{kind} with out=")
        t = fe.tensor(a)
        if t.type.rank == 0:
            raise ValueError(f"{fe.b.loc}: np.fft.{kind} needs an array of rank >= 1")
        if t.dtype not in ("f32", "f64", "c64", "c128"):
            t = fe.convert(t, "f64")
        if kind == "irfft" and t.dtype[0] == "f":
            t = fe.convert(t, {"f32": "c64", "f64": "c128"}[t.dtype])
        if kind == "rfft" and t.dtype[0] == "c":
            raise TypeError(f"{fe.b.loc}: np.fft.rfft needs real input, got {t.dtype}")
        ax = norm_axes(fe, axis, t.type.rank)[0]
        m = t.shape[ax]
        size = (2 * (m - 1) if kind == "irfft" else m) if _none(n) else fe.static_int(n, "n")
        if size < 1:
            raise ValueError(f"{fe.b.loc}: Invalid number of FFT data points ({size}) specified.")
        return Tensor(fe.b.one("tensor.fft", t.v, kind=kind, n=size, axis=ax))
    return handler


for _kind in ("fft", "ifft", "rfft", "irfft"):
    implements(getattr(np.fft, _kind))(_fft_handler(_kind))


def _freq_scale(fe, ints, n, d):
    val = fe.ufunc(np.true_divide, Const(1.0), fe.ufunc(np.multiply, Const(n), d))
    return fe.ufunc(np.multiply, ints, val)


@implements(np.fft.fftfreq)
def _fftfreq(fe, n, d=Const(1.0), device=None):
    n = fe.static_int(n, "n")
    i = Tensor(fe.b.one("tensor.iota", shape=[n], dim=0, dtype="i64"))
    neg = fe.ufunc(np.subtract, i, fe.constant(n, "i64", weak=False))
    ints = fe.select(fe.ufunc(np.less, i, Const((n - 1) // 2 + 1)), i, neg)
    return _freq_scale(fe, ints, n, d)


@implements(np.fft.rfftfreq)
def _rfftfreq(fe, n, d=Const(1.0), device=None):
    n = fe.static_int(n, "n")
    ints = Tensor(fe.b.one("tensor.iota", shape=[n // 2 + 1], dim=0, dtype="i64"))
    return _freq_scale(fe, ints, n, d)


# --- decompositions ---------------------------------------------------------------------------
def _result_class(example):
    """The named tuple class NumPy returns for ``example()`` (``EighResult``, ``QRResult``,
    ...), or None where NumPy returns a plain tuple."""
    cls = type(example())
    return cls if issubclass(cls, tuple) and hasattr(cls, "_fields") else None


_EYE = np.eye(2)
NAMED = {"eigh": _result_class(lambda: np.linalg.eigh(_EYE)),
         "svd": _result_class(lambda: np.linalg.svd(_EYE)),
         "qr": _result_class(lambda: np.linalg.qr(_EYE)),
         "slogdet": _result_class(lambda: np.linalg.slogdet(_EYE))}


def named_results(fe, kind: str, values):
    """``values`` as NumPy returns them from ``np.linalg.<kind>``: its named tuple (so
    ``np.linalg.eigh(a).eigenvalues`` reads a field and a returned result is an
    ``EighResult``), unpacking and indexing by position as a tuple."""
    cls = NAMED[kind]
    if cls is None:
        return TupleVal(tuple(values))
    return fe.local_record("object", cls, dict(zip(cls._fields, values)))


def _results(fe, kind, op):
    return named_results(fe, kind, [Tensor(r) for r in op.results])


def _uplo(fe, UPLO):
    u = fe.static(UPLO, "UPLO")
    if u not in ("L", "U"):
        raise ValueError(f"{fe.b.loc}: UPLO argument must be 'L' or 'U'")
    return u


@implements(np.linalg.eigh)
@in_double("a")
def _eigh(fe, a, UPLO=Const("L")):
    t = _float_operand(fe, a)
    return _results(fe, "eigh", fe.b.create("tensor.eigh", [t.v], {"uplo": _uplo(fe, UPLO)}))


@implements(np.linalg.eigvalsh)
@in_double("a")
def _eigvalsh(fe, a, UPLO=Const("L")):
    t = _float_operand(fe, a)
    return Tensor(fe.b.create("tensor.eigh", [t.v], {"uplo": _uplo(fe, UPLO)}).results[0])


@implements(np.linalg.svd)
@in_double("a")
def _svd(fe, a, full_matrices=Const(True), compute_uv=Const(True), hermitian=Const(False)):
    if fe.static(hermitian, "hermitian"):
        raise fe.unsupported("np.linalg.svd with hermitian=True")
    t = _float_operand(fe, a)
    uv = bool(fe.static(compute_uv, "compute_uv"))
    op = fe.b.create("tensor.svd", [t.v], {"full_matrices": bool(fe.static(
        full_matrices, "full_matrices")), "compute_uv": uv})
    return _results(fe, "svd", op) if uv else Tensor(op.results[0])


@implements(np.linalg.svdvals)
def _svdvals(fe, x):
    return _svd(fe, x, Const(True), Const(False))


@implements(np.linalg.qr)
@in_double("a")
def _qr(fe, a, mode=Const("reduced")):
    m = fe.static(mode, "mode")
    t = _float_operand(fe, a)
    op = fe.b.create("tensor.qr", [t.v])
    if m == "reduced":
        return _results(fe, "qr", op)
    if m == "r":
        return Tensor(op.results[1])
    raise fe.unsupported(f"np.linalg.qr with mode={m!r}", "use mode='reduced' or 'r'")


# --- SciPy's triangular and banded solves ----------------------------------------------------
try:
    import scipy.linalg as _sla
    from scipy.linalg import lapack as _lapack
except ImportError:  # pragma: no cover  (SciPy is optional: without it nothing registers)
    _sla = _lapack = None


def _solve_operands(fe, a, b):
    from .npapi_math import _float_operand as flt
    a, b = flt(fe, a), flt(fe, b)
    dt = fe.result_dtype([a, b])
    return fe.convert(a, dt), fe.convert(b, dt)


if _sla is not None:
    @implements(_sla.solve_triangular)
    def _solve_triangular(fe, a, b, trans=Const(0), lower=Const(False),
                          unit_diagonal=Const(False), overwrite_b=None, check_finite=None):
        from .npapi_math import _check_factorization
        a, b = _solve_operands(fe, a, b)
        tr = fe.static(trans, "trans")
        tr = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}.get(tr)
        if tr is None:
            raise ValueError(f"{fe.b.loc}: invalid trans {fe.static(trans)!r}")
        low = bool(fe.static(lower, "lower"))
        if tr:
            a = Tensor(fe.b.one("tensor.transpose", a.v, perm=[1, 0]))
            if tr == 2 and a.dtype[0] == "c":
                a = fe.ufunc(np.conjugate, a)
            low = not low
        x = Tensor(fe.b.one("tensor.triangular_solve", a.v, b.v, lower=low,
                            unit_diagonal=bool(fe.static(unit_diagonal, "unit_diagonal"))))
        return _check_factorization(fe, [a, b], x, "singular matrix")

    @implements(_sla.solve_banded)
    def _solve_banded(fe, l_and_u, ab, b, overwrite_ab=None, overwrite_b=None,
                      check_finite=None):
        """The dense matrix of the band (a[i, i + d] = ab[u - d, i + d]), then a dense solve:
        SciPy's gbsv result, at O(n^3) instead of O(n * band^2)."""
        from .npapi_creation import _diag
        from .npapi_math import _solve
        lo, up = (int(v) for v in fe.static(l_and_u, "(l, u)"))
        t = fe.tensor(ab)
        if t.type.rank != 2 or t.shape[0] != lo + up + 1:
            raise ValueError(f"{fe.b.loc}: invalid values for the number of lower and upper "
                             "diagonals: l+u+1 (%d) does not equal ab.shape[0] (%d)"
                             % (lo + up + 1, t.shape[0] if t.type.rank else 0))
        n = t.shape[1]
        dense = None
        for d in range(-lo, up + 1):
            if abs(d) >= n:
                continue
            spec = [["c", up - d], ["s", max(d, 0), n + min(d, 0), 1]]
            band = _diag(fe, Tensor(fe.b.one("tensor.slice", t.v, spec=spec)), Const(d))
            dense = band if dense is None else fe.ufunc(np.add, dense, band)
        return _solve(fe, dense, b)


# --- pseudo-inverse and least squares (on tensor.svd) ---------------------------------------
def _swap(fe, t, conj=False):
    perm = list(range(t.type.rank))
    perm[-2:] = perm[-2:][::-1]
    r = Tensor(fe.b.one("tensor.transpose", t.v, perm=perm))
    return fe.ufunc(np.conjugate, r) if conj and r.dtype[0] == "c" else r


def _inverted_values(fe, s, rcond):
    """NumPy's cutoff: singular values <= rcond * max(s) count as zero (their inverse 0)."""
    from .npapi_math import reduce
    smax = reduce(fe, "max", s, Const(-1), Const(True))
    large = fe.ufunc(np.greater, s, fe.ufunc(np.multiply, fe.convert(fe.constant(rcond),
                                                                     s.dtype), smax))
    zero = fe.convert(fe.constant(0.0), s.dtype)
    return large, fe.select(large, fe.ufunc(np.true_divide, Const(1.0), s), zero)


def _default_rcond(t):
    return max(t.shape[-2:]) * float(np.finfo(np.dtype({"f32": "f4", "f64": "f8", "c64": "f4",
                                                          "c128": "f8"}[t.dtype])).eps)


def _expand_last(fe, t):
    return fe.tensor(reshape_value(fe, t, Const(tuple(t.shape) + (1,))))


@implements(np.linalg.pinv)
def _pinv(fe, a, rcond=None, hermitian=Const(False), *, rtol=None):
    from .npapi_math import matmul
    if fe.static(hermitian, "hermitian"):
        raise fe.unsupported("np.linalg.pinv with hermitian=True")
    t = _float_operand(fe, a)
    if 0 in t.shape[-2:]:
        raise fe.unsupported("np.linalg.pinv of an empty matrix")
    rc = fe.static(rcond, "rcond") if not _none(rcond) else (
        fe.static(rtol, "rtol") if not _none(rtol) else _default_rcond(t))
    ac = fe.ufunc(np.conjugate, t) if t.dtype[0] == "c" else t
    u, s, vt = (Tensor(r) for r in fe.b.create("tensor.svd", [ac.v], {
        "full_matrices": False, "compute_uv": True}).results)
    _, sinv = _inverted_values(fe, s, rc)
    scaled = fe.ufunc(np.multiply, fe.convert(_expand_last(fe, sinv), u.dtype), _swap(fe, u))
    return matmul(fe, _swap(fe, vt), scaled)


@implements(np.linalg.lstsq)
@in_double("a", "b")
def _lstsq(fe, a, b, rcond=None):
    """(x, residuals, rank, s) as NumPy's gelsd gives them. Residuals have a data-dependent
    shape where M > N (empty when rank < N): solvent computes them and raises ValueError at
    run time if ``a`` turns out rank-deficient there."""
    from .npapi_math import matmul, reduce
    a, b = _solve_operands(fe, a, b)
    if a.type.rank != 2 or b.type.rank not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ValueError(f"{fe.b.loc}: lstsq needs a of shape (M, N) and b of shape (M,) or "
                         "(M, K)")
    m, n = a.shape
    rc = _default_rcond(a) if _none(rcond) else fe.static(rcond, "rcond")
    u, s, vt = (Tensor(r) for r in fe.b.create("tensor.svd", [a.v], {
        "full_matrices": False, "compute_uv": True}).results)
    large, sinv = _inverted_values(fe, s, rc)
    b2 = b if b.type.rank == 2 else _expand_last(fe, b)
    ub = fe.ufunc(np.multiply, fe.convert(_expand_last(fe, sinv), a.dtype),
                  matmul(fe, _swap(fe, u, conj=True), b2))
    x2 = matmul(fe, _swap(fe, vt, conj=True), ub)
    rank = fe.convert(reduce(fe, "sum", fe.convert(large, "i64")), "i32")
    rdt = s.dtype
    if m > n:
        r = fe.ufunc(np.subtract, b2, matmul(fe, a, x2))
        mag = fe.ufunc(np.abs, r)
        resid = reduce(fe, "sum", fe.ufunc(np.multiply, mag, mag), Const(0))
        fe.check(fe.ufunc(np.equal, rank, Const(n)), "ValueError",
                 "lstsq: a has rank {} < N: NumPy returns empty residuals (a shape that "
                 "depends on the data), which solvent cannot; use np.linalg.pinv(a) @ b", rank)
    else:
        from .npapi_creation import filled
        resid = filled(fe, (0,), Const(0), rdt)
    x = x2 if b.type.rank == 2 else fe.tensor(reshape_value(fe, x2, Const((n,))))
    return TupleVal((x, fe.convert(resid, rdt), fe.strong(rank), s))


if _lapack is not None:
    @implements(_lapack.dgtsv)
    def _dgtsv(fe, dl, d, du, b, overwrite_dl=Const(0), overwrite_d=Const(0),
               overwrite_du=Const(0), overwrite_b=Const(0)):
        """LAPACK's tridiagonal solve, step for step (npapi_prelude.dgtsv); n >= 2."""
        from .npapi_prelude import dgtsv
        n = fe.tensor_type(d).shape[0] if fe.tensor_type(d).rank == 1 else -1
        if n < 2:
            raise ValueError(f"{fe.b.loc}: dgtsv: unexpected array size (SciPy's wrapper "
                             "needs a 1-D d with n >= 2)")
        return fe.inline_call(dgtsv, [dl, d, du, b], {}, None, keep_loc=True)
