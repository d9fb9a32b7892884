"""NumPy functions in daily use (issue 14): the prelude implementations (frontend/
npapi_prelude.py) and the handlers added with them, each against NumPy at one size;
functions whose result length depends on the data are refused naming the line."""
import math

import numpy as np
import pytest

import solvent
from differential import case, check, run_cases


def grids(A):
    g = np.mgrid[0:3, 0:4]
    o = np.ogrid[0:3, 1:5]
    lin = np.mgrid[0:1:5j]
    return g.sum() + A.sum(), o[0] + o[1], lin, np.indices((2, 3)), np.indices((2, 2), dtype=np.int8)


def meshgrids(x, y):
    X, Y = np.meshgrid(x, y)
    I, J = np.meshgrid(x, y, indexing="ij")
    return X * 2 + Y, I - J


def shape_helpers(A):
    return (np.ndim(A), np.shape(A), np.size(A), np.size(A, 1), np.moveaxis(A, 0, -1),
            np.swapaxes(A, 0, 1), np.atleast_2d(A[0]), np.ndarray((3,), np.float64).shape)


def averages(A, w):
    return (np.average(A), np.average(A, axis=0, weights=w), np.average(A.T, axis=1, weights=w),
            np.average(A, weights=np.ones(A.shape)))


def covariances(A, x):
    return np.cov(A), np.cov(A, rowvar=False), np.cov(x), np.cov(A, bias=True), np.corrcoef(A)


def differences(A, x):
    return np.diff(x), np.diff(x, n=2), np.diff(A, axis=0), np.diff(A, n=2, axis=1)


def polynomials(A, x):
    return np.polyval(x[:3], A), np.polyval(np.array([2, -1, 3]), np.arange(4))


def integrals(A, x):
    return (np.trapezoid(x), np.trapezoid(x, np.cumsum(x * x)), np.trapezoid(x, dx=0.5),
            np.trapezoid(A, axis=0), np.trapezoid(A, np.arange(A.shape[1]) ** 2.0))


def nan_reductions(A, x, k):
    B = np.where(A > 0.7, np.nan, A)            # some rows all NaN at random
    return (np.nansum(B), np.nanmax(B, axis=1), np.nanmin(B, axis=0), np.nanmean(B, axis=1),
            np.nanprod(x), np.nanmean(B.astype(np.float32), axis=0), np.nansum(k),
            np.nanmax(k), np.nanmean(k))


def joins_and_membership(A, x, k):
    return (np.vdot(A, A), np.column_stack((x, x * 2)), np.column_stack((A.T, A[0])),
            np.isin(k, k[::2]), np.isin(A, x, invert=True), np.isin(x, x[:0]),
            np.degrees(x), np.radians(A.astype(np.float32)), np.rad2deg(k))


def crosses(A, x, k):
    v = A[:, :3]
    return (np.cross(v, v[::-1]), np.cross(x[:3], v), np.cross(A[:2, :2], A[2:, :2]),
            np.cross(k[:3], k[:3] + 1), np.cross(v.astype(np.float32), x[3:6]))


def differences_joined(A, k, x):
    # a scalar prepend of another dtype promotes (int8 + float: float64), an array is joined
    # along the axis as it is, append too; negative axes
    return (np.diff(x, prepend=0), np.diff(x, n=2, prepend=[0.5, 1.0], append=x[-1]),
            np.diff(A, axis=0, append=A[:1]), np.diff(A, axis=-1, prepend=1.5),
            np.diff(k, prepend=np.int8(3)), np.diff(k, append=2.5))


def products(A, x):
    return np.kron(A[:2, :2], A[:2, :3]), np.kron(x[:3], x[:2]), \
        np.linalg.matrix_power(A[:3, :3], 3), np.linalg.matrix_power(A[:3, :3], 0), \
        np.linalg.matrix_power(A[:3, :3] + 3 * np.eye(3), -2)


def closeness(x):
    y = x + 1e-9
    return (np.isclose(x, 0.5, atol=0.3), np.allclose(x, y), np.allclose(x, x + 1.0),
            np.isclose(np.array([np.inf, np.nan, 1.0]), np.array([np.inf, np.nan, 1.0])),
            np.isclose(np.array([np.nan]), np.array([np.nan]), equal_nan=True))


def counting(x, i):
    return (np.count_nonzero(x > 0.5), np.count_nonzero(x.reshape(2, -1) > 0.5, axis=1),
            np.bincount(i, minlength=5), np.bincount(i, weights=x[:i.shape[0]], minlength=6),
            np.histogram(x, bins=4, range=(0, 1))[0], np.histogram(x, bins=3)[1])


def cleaning(x):
    y = np.log(x - 0.5)
    return np.nan_to_num(y), np.nan_to_num(y, nan=-1.0, neginf=-9.0), \
        np.nan_to_num(np.array([np.inf, -np.inf, np.nan], np.float32))


def signal(x, k):
    return (np.convolve(x, k), np.convolve(x, k, mode="same"), np.convolve(x, k, mode="valid"),
            np.convolve(k, x))


def lookups(x):
    xp = np.array([0.0, 0.25, 0.5, 1.0])
    fp = np.array([1.0, 3.0, 2.0, 5.0])
    return (np.interp(x, xp, fp), np.interp(np.array([-1.0, 2.0, 1.0]), xp, fp),
            np.searchsorted(xp, x), np.searchsorted(xp, 0.5, side="right"),
            np.searchsorted(xp, np.array([0.25, 0.3]), side="left"))


def taking(A, idx):
    return np.take(A, idx), np.take(A, idx, axis=1), np.take(A[0], 1), \
        np.take_along_axis(A, np.zeros(A.shape, dtype=np.int64) + idx[0], axis=1)


def padding(A):
    w = ((1, 2), (2, 0))
    return (np.pad(A, w), np.pad(A, w, mode="edge"), np.pad(A, w, mode="wrap"),
            np.pad(A, w, mode="reflect"), np.pad(A, w, mode="symmetric"),
            np.pad(A, 1, constant_values=7.0), np.pad(A[0], (2, 1)))


def unravel(A, flat, k):
    r, c = np.unravel_index(np.argmax(A), A.shape)
    s = 0
    for i in range(A.size):                  # a scalar index per trip, as C code writes it
        p, q = np.unravel_index(i, A.shape, order="F")
        s += p * 10 + q
    return (r, c, s, np.unravel_index(flat, (2, 3, 4)), np.unravel_index(flat, (4, 6), order="F"),
            np.unravel_index(k, 24), np.unravel_index(flat[::-2], (24,)))


def diagonals(A, T):
    return (np.diagonal(A), np.diagonal(A, 1), A.diagonal(-1), np.diagonal(A, 0, 1, 0),
            np.diagonal(T, 1, 2, 0), np.moveaxis(T, [0, -1], [-1, 0]),
            np.moveaxis(T, (2, 0), (0, 1)))


def fill_diagonals(A, T, v):
    np.fill_diagonal(A, v)
    B = np.zeros((2 * A.shape[1] + 1, A.shape[1]), dtype=np.int8)
    np.fill_diagonal(B, [1, 2, 3], wrap=True)
    np.fill_diagonal(T, 7.5)
    return A, B, T


def gradients(A, x, k):
    """np.gradient: spacings none, one scalar, per axis, coordinates (uneven, and even ones
    given as an int array, which NumPy treats as uniform), edge_order 2, one axis."""
    xs = np.cumsum(x[:A.shape[1]] + 0.1)
    return (np.gradient(A), np.gradient(x, 0.5), np.gradient(A, 2.0, xs), np.gradient(k),
            np.gradient(A, axis=1, edge_order=2), np.gradient(x[:A.shape[1]], xs, edge_order=2),
            np.gradient(A, np.arange(4) * 3, axis=0))


def equalities(A, x):
    B = A.copy()
    B[0, 0] = np.nan
    return (np.array_equal(A, A.copy()), np.array_equal(A, A[0]), np.array_equal(B, B),
            np.array_equal(B, B, equal_nan=True), np.array_equiv(A, A[1]),
            np.array_equiv(A, np.ones(3)), np.array_equiv(x, x))


def joins_and_splits(A, x, k):
    return (np.append(x, A[0]), np.append(A, A[:1], axis=0), np.insert(x, 2, 7.5),
            np.insert(A, -1, k[:A.shape[0]], axis=1), np.delete(x, [0, 2]),
            np.delete(A, (0, -1), axis=1), np.array_split(x, 3), np.split(A, 2, axis=0),
            np.hsplit(A, [1, 3]), np.vsplit(A, 4), np.dstack([x[:2], x[2:4]]),
            np.atleast_3d(A).shape, np.broadcast_arrays(A, x[:A.shape[1]]),
            np.ediff1d(x, to_begin=-1.0, to_end=[1.0, 2.0]), A.swapaxes(0, 1))


def lookups_and_spectra(A, x):
    return (np.digitize(x, [0.2, 0.5, 0.9]), np.digitize(x, np.array([0.2, 0.5]), right=True),
            np.fft.fftshift(A), np.fft.ifftshift(x), np.fft.fftshift(A, axes=1),
            np.logspace(0, 2, 5), np.logspace(1, 2, 4, endpoint=False, base=2.0),
            np.iscomplexobj(x), np.isrealobj(A + 0j), np.searchsorted(x, 0.5,
                                                                       sorter=np.argsort(x)),
            np.select([x < 0.3, x > 0.7], [x, -x], default=9.0))


def nan_statistics(A, x):
    B = A.copy()
    B[0, 1] = np.nan
    return (np.nanargmax(B), np.nanargmin(B, axis=0), np.nanvar(B), np.nanstd(B, axis=1),
            np.nanvar(B, axis=0, ddof=1, keepdims=True), np.nanstd(x))


def polynomials_more(x, k):
    p = x[:4]
    return (np.polyder(p), np.polyder(p, 2), np.polyint(p), np.polyint(p, 2, k=1.0),
            np.polyadd(p, x[:2]), np.polysub(x[:2], p), np.polymul(p, x[:3]),
            np.vander(x[:3]), np.vander(k[:3], 4, increasing=True),
            np.linalg.multi_dot([np.outer(p, p), np.outer(p, p), p]),
            np.float_power(np.abs(x), 1.5), np.float_power(k, 2), np.correlate(x, p),
            np.correlate(x, p, "full"))


def nan_order_statistics(A, x):
    B = A.copy()
    B[0, 1] = np.nan
    B[-1, :] = np.nan                  # an all-NaN row: NaN there (NumPy warns)
    return (np.nanmedian(B), np.nanmedian(B, axis=1), np.nanmedian(B, axis=0, keepdims=True),
            np.nanpercentile(x, 30), np.nanpercentile(B, [10, 90], axis=1),
            np.nanquantile(B, 0.25, axis=0), np.nanquantile(x, [0.5, 1.0]),
            np.take_along_axis(A[None], np.argsort(A, axis=1)[None], axis=2))


def index_helpers(A, x):
    m = A.shape[1]
    return (np.tril_indices(4), np.triu_indices(4, 1), np.tril_indices(3, -1, m),
            np.triu_indices(3, 2, m), np.ravel_multi_index((np.array([0, 3]), np.array([1, 0])), (4, m)),
            np.ravel_multi_index((np.array([1, 2]), np.array([0, 1])), (4, m), order="F"),
            np.geomspace(1, 1000, 4), np.geomspace(2.0, 0.5, 5, endpoint=False),
            np.lexsort((x, np.floor(x * 2))), np.lexsort([x]))


def fits_and_phases(A, x):
    t = np.linspace(0, 3, A.shape[1])
    p = np.cumsum(x * 6 - 2)
    return (np.polyfit(t, A[0] * 3 + t * t, 2), np.unwrap(p), np.unwrap(A * 9, axis=0),
            np.unwrap(p, discont=4.0), np.unwrap(p, period=4.0))


def _cases(n):
    rng = np.random.default_rng(n)
    A = rng.random((4, n))
    x = rng.random(2 * n)
    w = rng.random(4) + 0.1
    return [
        case(grids, A, id=f"grids-{n}"),
        case(meshgrids, x[:n], x[:3], id=f"meshgrid-{n}"),
        case(shape_helpers, A, id=f"shapes-{n}"),
        case(averages, A, w, id=f"average-{n}"),
        case(covariances, A, x, id=f"cov-{n}"),
        case(differences, A, x, id=f"diff-{n}"),
        case(polynomials, A, x, id=f"polyval-{n}"),
        case(integrals, A, x, id=f"trapezoid-{n}"),
        case(nan_reductions, A, x, rng.integers(-9, 9, n).astype(np.int8), id=f"nan-{n}"),
        case(joins_and_membership, A, x, rng.integers(0, 4, n), id=f"joins-isin-{n}"),
        case(differences_joined, np.asfortranarray(A), rng.integers(-9, 9, n).astype(np.int8),
             x, id=f"diff-joined-{n}"),
        case(products, A[:, :3] if n >= 3 else A, x, id=f"kron-power-{n}"),
        case(closeness, x, id=f"isclose-{n}"),
        case(crosses, A if n >= 3 else np.tile(A, 2), x, rng.integers(-9, 9, 2 * n + 3).astype(np.int8),
             id=f"cross-{n}"),
        case(counting, x, rng.integers(0, 5, n), id=f"counting-{n}"),
        case(cleaning, x, id=f"nan_to_num-{n}"),
        case(signal, x, np.array([1.0, -2.0, 0.5]), id=f"convolve-{n}"),
        case(lookups, x, id=f"interp-{n}"),
        case(taking, A, np.array([0, 2, -1]), id=f"take-{n}"),
        case(padding, A, id=f"pad-{n}"),
        case(unravel, A, rng.integers(0, 24, n).astype(np.int8), n, id=f"unravel-{n}"),
        case(diagonals, np.asfortranarray(A), rng.random((2, n, 4)), id=f"diagonal-{n}"),
        case(fill_diagonals, A.T.copy(), np.zeros((n, n, n)), rng.random(2), id=f"fill_diagonal-{n}"),
    ]


def _one_size_cases():
    """Groups added later, at one size (the suite's time budget; the sizes change no code
    path in them)."""
    n = 6
    rng = np.random.default_rng(n)
    A = rng.random((4, n))
    x = rng.random(2 * n)
    return [
        case(gradients, np.asfortranarray(A), x, rng.integers(-9, 9, n).astype(np.int8),
             id=f"gradient-{n}"),
        case(equalities, A, x, id=f"array_equal-{n}"),
        case(joins_and_splits, A, x, rng.integers(-9, 9, 8).astype(np.int8),
             id=f"joins-splits-{n}"),
        case(lookups_and_spectra, np.asfortranarray(A), x, id=f"lookups-spectra-{n}"),
        case(nan_statistics, A, x, id=f"nan-statistics-{n}"),
        case(polynomials_more, x, rng.integers(-5, 5, 6).astype(np.int8), id=f"poly-more-{n}"),
        case(nan_order_statistics, np.asfortranarray(A), x, id=f"nan-order-{n}"),
        case(index_helpers, A, x, id=f"index-helpers-{n}"),
        case(fits_and_phases, A, x, id=f"polyfit-unwrap-{n}"),
    ]


# one size (the suite's time budget: a second size compiled every group again and changed no
# code path; edge sizes have their own tests below)
test_numpy_prelude = run_cases(_cases(6) + _one_size_cases())


def random_inside(x):
    return x + np.random.rand(x.shape[0])


def test_random_numbers_inside_are_refused_with_the_line():
    # np.unique(axis=) and np.bincount without minlength compile now (run-time lengths:
    # tests/frontend/test_data_dependent_lengths.py)
    with pytest.raises(solvent.UnsupportedError,
                       match=r"test_numpy_prelude.py:\d+:\d+: np.random"):
        solvent.jit(random_inside)(np.random.rand(4))


@pytest.mark.parametrize("backend, where", [
    ("xla", r"test_numpy_prelude.py:\d+:\d+: index 5"),
    ("native", r"test_numpy_prelude.py:\d+:\d+: index 5")])
def test_bincount_value_beyond_minlength_raises_index_error(backend, where):
    def f(i):
        return np.bincount(i, minlength=3)
    with pytest.raises(IndexError, match=where):
        solvent.jit(f, backend=backend)(np.array([0, 5]))


def scalar_lookups(t):
    xp = np.array([0.0, 0.25, 0.5, 1.0])
    return np.interp(t, xp, xp * 2), np.searchsorted(xp, t)


def test_scalar_arguments_give_numpy_scalars(backend):
    from differential import check
    for t in (0.3, -1.0, 2.0):
        check(scalar_lookups, t, backend=backend)


def histograms(x, bins):
    return (np.histogram(x, bins=bins), np.histogram(x, bins=bins, range=(0.1, 0.7)),
            np.histogram(x * 0.0 + 2.0, bins=3), np.histogram(x.astype(np.float32), bins=5))


@pytest.mark.parametrize("backend", ["xla", "interp"])  # native: no scatter-add lowering yet
def test_histogram_counts_match_numpy_on_edges_and_rounding(backend):
    """Values outside the range, a constant array (range widened by 0.5), float32 input,
    and (interp) values on and one ulp beside every edge, where (x - lo) / (hi - lo) * bins
    rounds across an edge: every count equals NumPy's (its own uniform-bin algorithm,
    corrected by one). On XLA the edges themselves (linspace) may be 1 ulp from NumPy's
    (README: XLA's float rewrites), so values placed exactly on an edge are left out there."""
    from differential import check
    rng = np.random.default_rng(7)
    parts = [rng.random(200), [-1.0, 2.0, 0.1, 0.7]]
    if backend == "interp":
        edges = np.linspace(0.1, 0.7, 14)
        parts += [edges, np.nextafter(edges, 0), np.nextafter(edges, 1)]
    check(histograms, np.concatenate(parts), 13, backend=backend)


def close_scalars(a, b):
    return math.isclose(a, b), math.isclose(a, b, rel_tol=0.5), math.isclose(a, b, abs_tol=1.0)


@pytest.mark.parametrize("a,b", [(1.0, 1.0 + 1e-12), (1.0, 1.1), (math.inf, math.inf),
                                 (math.inf, 1e308), (math.nan, math.nan), (0.0, 1e-10),
                                 (np.float32(1.0), 1.0000001), (3, 3)])
def test_math_isclose_gives_pythons_bools(a, b):
    for backend in ("xla", "native", "interp"):
        got = solvent.jit(close_scalars, backend=backend)(a, b)
        assert got == close_scalars(a, b) and all(type(g) is bool for g in got), backend


def unravel_flat(i):
    return np.unravel_index(i, (2, 3))


@pytest.mark.parametrize("backend", ["native", "xla", "interp"])
def test_unravel_index_out_of_range_is_numpys_value_error(backend):
    f = solvent.jit(unravel_flat, backend=backend)
    np.testing.assert_array_equal(f(np.array([5, 0]))[0], [1, 0])
    for bad, first in ((np.array([1, 6, 9]), 6), (np.array([[2], [-1]]), -1), (np.int64(6), 6)):
        with pytest.raises(ValueError) as want:
            unravel_flat(bad)
        with pytest.raises(ValueError, match=f"index {first} is out of bounds for array with "
                                             f"size 6") as got:
            f(bad)
        assert str(want.value) in str(got.value)
        assert "test_numpy_prelude.py" in str(got.value)   # the caller's line


def fill_bad(a):
    np.fill_diagonal(a, 1.0)
    return a


@pytest.mark.parametrize("shape", [(3,), (2, 3, 2)])
def test_fill_diagonal_refuses_what_numpy_refuses(shape):
    with pytest.raises(ValueError) as want:
        fill_bad(np.zeros(shape))
    with pytest.raises(ValueError) as got:
        solvent.jit(fill_bad)(np.zeros(shape))
    assert str(want.value) in str(got.value)


def test_the_nonzero_method_is_np_nonzero():
    def f(k):
        return (k > 0).nonzero()
    k = np.array([3, -1, 0, 2], np.int8)
    got = solvent.jit(f, backend="native")(k)
    assert len(got) == 1 and np.array_equal(got[0], f(k)[0])


def set_operations(a, b):
    return np.union1d(a, b), np.intersect1d(a, b), np.setdiff1d(a, b)


def run_time_reshapes(a):
    u = np.unique(a)
    return u.reshape(-1, 1) * 2, np.reshape(u, np.shape(u))


def run_time_reshape_refused(a):
    return np.unique(a).reshape(2, -1)


@pytest.mark.parametrize("a,b", [(np.array([3, 1, 2, 3, 7]), np.array([2, 3, 9])),
                                 (np.array([1.5, 0.5]), np.array([0.5])),
                                 (np.zeros(0, np.int8), np.array([1], np.int8))])
def test_set_operations_of_run_time_length(a, b):
    check(set_operations, a, b, backend="native")


def test_reshapes_of_a_run_time_length():
    """The run-time length stays one dimension (-1); anything else is refused with the line
    (it was an internal ValueError without one)."""
    check(run_time_reshapes, np.array([3, 1, 3, 2]), backend="interp")
    with pytest.raises(solvent.UnsupportedError, match=r"test_numpy_prelude.py:\d+.*"
                       r"reshaping an array of shape \('\?',\)"):
        solvent.jit(run_time_reshape_refused)(np.array([3, 1, 3, 2]))


def select_weak_default(s, a):
    return np.select([a > 0, a < -1], [a, a * 2], default=s)


@pytest.mark.parametrize("a", [np.array([1.0, -2.0, 0.5], np.float32), np.array([7, -3], np.int8)])
def test_select_keeps_the_choices_dtype_with_a_python_default(a):
    """A Python number as default is weak (NEP 50): float32 / int8 choices stay so."""
    check(select_weak_default, 3, a, backend="native")
