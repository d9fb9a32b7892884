"""Differential tests (vs NumPy, each backend) of the functions on the sorting, FFT and
decomposition ops: np.sort/argsort (and methods, x.sort() in place), np.median,
np.percentile/quantile, np.fft.*, np.linalg.eigh/eigvalsh/svd/qr. Two sizes each, float32
and float64, complex where NumPy allows.

argsort is compared on inputs without ties (NumPy's default quicksort is not stable;
solvent's argsort is the stable order), and on ties through the sorted values it gives.
Eigen/singular vectors and QR factors are unique only up to sign (phase), so kernels return
what does not depend on it: values, reconstructions, orthogonality products, |diag(R)|."""
import numpy as np
import pytest

import solvent
from differential import case, run_cases

rng = np.random.default_rng(14)


def sizes(dt, *shapes):
    out = []
    for s in shapes:
        x = rng.standard_normal(s)
        if np.dtype(dt).kind == "c":
            x = x + 1j * rng.standard_normal(s)
        out.append(x.astype(dt))
    return out


def with_nan(x):
    x = x.copy()
    x.flat[1] = np.nan
    return x


# --- sorting -----------------------------------------------------------------------------------
def sorts(x):
    return np.sort(x), np.sort(x, axis=0), np.sort(x, axis=None), np.argsort(x), \
        np.argsort(x, axis=0), np.argsort(x, axis=None), x.argsort()


def sort_in_place(x):
    x.sort()
    return x[0] + 0


def sort_in_place_axis0(x):
    x.sort(axis=0)


def sorted_by_argsort(x):
    return np.take_along_axis(x, np.argsort(x), axis=-1), \
        np.take_along_axis(x, np.argsort(x, axis=0), axis=0)


def sort_1d(v):
    return np.sort(v), np.argsort(v), np.sort(v, kind="stable")


def medians(x):
    return np.median(x), np.median(x, axis=0), np.median(x, axis=-1), \
        np.median(x, axis=1, keepdims=True)


def quantiles(x):
    return np.percentile(x, 30), np.percentile(x, [0, 25, 50, 75, 100], axis=0), \
        np.quantile(x, 0.5, axis=1), np.quantile(x, (0.1, 0.9)), \
        np.quantile(x, 0.7, axis=0, keepdims=True)


def median_int(i):
    return np.median(i), np.percentile(i, 40, axis=0)


def sort_complex(c):
    return np.sort(c)


INTS = rng.permutation(30).reshape(6, 5) - 15  # no ties: argsort is the same in any kind
TIES = np.array([[3.0, 1.0, 3.0, 2.0], [1.0, 1.0, 0.0, 1.0], [2.0, 2.0, 2.0, 2.0]])

sort_cases = []
for dt in (np.float32, np.float64):
    for x in sizes(dt, (5, 4), (12, 9)):
        sort_cases += [case(sorts, x), case(sort_in_place, x), case(sort_in_place_axis0, x),
                       case(medians, x), case(quantiles, x), case(medians, with_nan(x)),
                       case(quantiles, with_nan(x)), case(sort_1d, x[:, 0].copy())]
sort_cases += [
    case(sorts, INTS, id="sorts_int"), case(median_int, INTS),
    case(sorted_by_argsort, TIES), case(sorted_by_argsort, with_nan(TIES), id="sorted_nan"),
    case(sort_1d, with_nan(rng.standard_normal(9)), id="sort_1d_nan"),
    case(sort_complex, sizes(np.complex128, (7,))[0]),
    case(medians, rng.standard_normal((6, 4)), id="medians_even"),
]
test_sorting = run_cases(sort_cases)


# --- FFT -------------------------------------------------------------------------------------
def ffts(x):
    return np.fft.fft(x), np.fft.ifft(x), np.fft.fft(x, n=7), np.fft.ifft(x, axis=0), \
        np.fft.fft(x, 4, 0)


def real_ffts(x):
    return np.fft.rfft(x), np.fft.rfft(x, n=5, axis=0), np.fft.irfft(np.fft.rfft(x)), \
        np.fft.irfft(x, n=6), np.fft.ifft(np.fft.fft(x)).real


def fft_filter(x):
    """A low-pass filter as scientists write it."""
    n = x.shape[-1]
    f = np.fft.rfftfreq(n, d=0.1)
    spec = np.fft.rfft(x)
    spec = np.where(f > 1.5, 0, spec)
    return np.fft.irfft(spec, n=n)


def freqs(d):
    return np.fft.fftfreq(8), np.fft.fftfreq(7, d), np.fft.rfftfreq(8, 0.5), np.fft.rfftfreq(9)


fft_cases = []
for dt in (np.float32, np.float64, np.complex64, np.complex128):
    for x in sizes(dt, (8,), (6, 10)):
        fft_cases.append(case(ffts, x))
        if np.dtype(dt).kind == "f":
            fft_cases += [case(real_ffts, x), case(fft_filter, x)]
fft_cases += [case(ffts, INTS, id="ffts_int"), case(freqs, 0.25), case(freqs, 2.0)]
test_fft = run_cases(fft_cases)


# --- decompositions --------------------------------------------------------------------------
def hermitian(dt, n):
    m = sizes(dt, (n, n))[0]
    return (m @ m.conj().T + n * np.eye(n)).astype(dt)


def eigh_parts(a):
    w, v = np.linalg.eigh(a)
    return w, (v * w) @ v.conj().T, v.conj().T @ v, np.linalg.eigvalsh(a), \
        np.linalg.eigvalsh(a, UPLO="U")


def eigh_upper(a):
    w, v = np.linalg.eigh(np.triu(a) + 0, UPLO="U")
    return w, (v * w) @ v.conj().T


def eigh_in_a_loop(a, steps):
    """An eigen-decomposition in a time loop: diffuse with exp(-w) in the eigenbasis."""
    w, v = np.linalg.eigh(a)
    x = np.ones(a.shape[0])
    for _ in range(steps):
        x = v @ (np.exp(-0.1 * w) * (v.T @ x))
    return x


def svd_parts(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    k = s.shape[0]
    uf, sf, vhf = np.linalg.svd(a)
    return s, (u * s) @ vh, u.shape, vh.shape, uf.shape, vhf.shape, sf, \
        uf.conj().T @ uf, (uf[:, :k] * sf) @ vhf[:k], np.linalg.svd(a, compute_uv=False)


def qr_parts(a):
    q, r = np.linalg.qr(a)
    return q @ r, q.shape, r.shape, np.abs(np.diag(r)), r - np.triu(r), \
        q.conj().T @ q, np.abs(np.linalg.qr(a, mode="r"))


def stacked(a):
    return np.linalg.svd(a, compute_uv=False), np.linalg.eigvalsh(a @ np.swapaxes(a, -1, -2))


dec_cases = []
for dt in (np.float32, np.float64, np.complex128):
    for n in (3, 6):
        dec_cases.append(case(eigh_parts, hermitian(dt, n), id=f"eigh_{np.dtype(dt)}_{n}"))
    for shape in ((5, 3), (4, 7)):
        a = sizes(dt, shape)[0]
        dec_cases += [case(svd_parts, a, id=f"svd_{np.dtype(dt)}_{shape[0]}x{shape[1]}"),
                      case(qr_parts, a, id=f"qr_{np.dtype(dt)}_{shape[0]}x{shape[1]}")]
dec_cases += [case(eigh_upper, hermitian(np.float64, 4)),
              case(eigh_in_a_loop, hermitian(np.float64, 5), 4),
              case(stacked, rng.standard_normal((3, 4, 4))),
              case(qr_parts, INTS[:4, :3], id="qr_int")]
test_decompositions = run_cases(dec_cases)


# --- refusals ----------------------------------------------------------------------------------
def fft_norm_ortho(x):
    return np.fft.fft(x, norm="ortho")


def median_of_tuple_axes(x):
    return np.median(x, axis=(0, 1))


def sort_temporary(x):
    (x + 1).sort()


@pytest.mark.parametrize("fn,what", [(fft_norm_ortho, "np.fft.fft with norm"),
                                     (median_of_tuple_axes, "median/percentile over a tuple"),
                                     (sort_temporary, r"\.sort\(\) on a temporary")])
def test_unsupported_forms_are_refused_with_the_line(fn, what):
    with pytest.raises(solvent.UnsupportedError,
                       match=rf"test_numpy_ops_new.py:\d+:\d+: {what}"):
        solvent.jit(fn)(np.ones((3, 4)))


# --- SciPy triangular and banded solves ---------------------------------------------------------
scipy_linalg = pytest.importorskip("scipy.linalg")


def triangular_solves(a, b):
    return scipy_linalg.solve_triangular(a, b, lower=True), \
        scipy_linalg.solve_triangular(a, b), \
        scipy_linalg.solve_triangular(a, b[:, 0], lower=True, unit_diagonal=True), \
        scipy_linalg.solve_triangular(a, b, trans="T", lower=True), \
        scipy_linalg.solve_triangular(a, b, trans=2)


def tridiagonal_time_steps(ab, x, steps):
    """Implicit diffusion: one banded solve per time step, as ocean models write it."""
    for _ in range(steps):
        x = scipy_linalg.solve_banded((1, 1), ab, x)
    return x


def banded(ab, b):
    return scipy_linalg.solve_banded((2, 1), ab, b)


def triangular_singular(a, b):
    return scipy_linalg.solve_triangular(a, b)


def band_matrix(dt, lo, up, n):
    ab = sizes(dt, (lo + up + 1, n))[0] * 0.3
    ab[up] = 4.0 + ab[up]  # a dominant main diagonal
    return ab


scipy_cases = []
for dt in (np.float32, np.float64, np.complex128):
    for n in ((4, 9) if dt is np.float64 else (9,)):   # each case compiles on both backends
        a = sizes(dt, (n, n))[0] * 0.3 + 3 * np.eye(n, dtype=dt)
        b = sizes(dt, (n, 2))[0]
        scipy_cases += [case(triangular_solves, a, b, id=f"triangular_{np.dtype(dt)}_{n}"),
                        case(banded, band_matrix(dt, 2, 1, n), b, id=f"banded_{np.dtype(dt)}_{n}"),
                        case(tridiagonal_time_steps, band_matrix(dt, 1, 1, n), b[:, 0].copy(), 3,
                             id=f"tridiagonal_{np.dtype(dt)}_{n}")]
scipy_cases.append(case(triangular_solves, INTS[:4, :4] + 40 * np.eye(4, dtype=int), INTS[:4, :2],
                        id="triangular_int"))
test_scipy_solves = run_cases(scipy_cases)


def test_singular_triangular_raises_linalg_error_with_the_line(backend):
    a = np.triu(np.ones((3, 3)))
    a[1, 1] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match=r"test_numpy_ops_new.py:\d+:\d+: singular"):
        solvent.jit(triangular_singular, backend=backend)(a, np.ones(3))


# --- pinv and lstsq --------------------------------------------------------------------------
def pinvs(a):
    p = np.linalg.pinv(a)
    return p, a @ p @ a, np.linalg.pinv(a, rcond=1e-3)


def least_squares(a, b):
    x, resid, rank, s = np.linalg.lstsq(a, b)
    x1, r1, _, _ = np.linalg.lstsq(a, b[:, 0], rcond=None)
    return x, resid, rank, s, x1, r1


def rank_deficient_pinv(a):
    return np.linalg.pinv(a), np.linalg.lstsq(a.T, np.ones(a.shape[1]))[0]


def lstsq_rank_deficient_tall(a, b):
    return np.linalg.lstsq(a, b)


ls_cases = []
for dt in (np.float32, np.float64, np.complex128):
    for shape in ((6, 3), (3, 5)):
        a = sizes(dt, shape)[0]
        b = sizes(dt, (shape[0], 2))[0]
        ls_cases += [case(pinvs, a, id=f"pinv_{np.dtype(dt)}_{shape[0]}x{shape[1]}"),
                     case(least_squares, a, b, id=f"lstsq_{np.dtype(dt)}_{shape[0]}x{shape[1]}")]
_r = rng.standard_normal((5, 2))
ls_cases += [case(rank_deficient_pinv, _r @ rng.standard_normal((2, 4)), id="rank2"),
             case(pinvs, rng.standard_normal((2, 4, 3)), id="pinv_stack")]
test_pinv_lstsq = run_cases(ls_cases)


def test_lstsq_rank_deficient_tall_raises_value_error_with_the_line(backend):
    a = np.ones((5, 3))
    with pytest.raises(ValueError, match=r"test_numpy_ops_new.py:\d+:\d+: lstsq: a has rank 1"):
        solvent.jit(lstsq_rank_deficient_tall, backend=backend)(a, np.ones(5))
