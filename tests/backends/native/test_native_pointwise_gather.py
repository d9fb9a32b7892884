"""Lookups proven in range (prove_checks marks such a gather ``unchecked``) fuse natively like
elementwise ops of their index (bufferize.pointwise_gather), and a value read by several
steps that all end in one op is computed inside that op's loop: np.interp and np.histogram
against NumPy on edge inputs (empty, outside the bins, NaN, integer and float32 inputs,
Fortran order), and the checked lookups they must not swallow."""
import numpy as np
import pytest

import solvent
from solvent.backends.native.bufferize import pointwise_gather

from differential import check


def interp(x, xp, fp):
    return np.interp(x, xp, fp)


def histogram(x, nbins):
    return np.histogram(x, bins=nbins, range=(0.0, 1.0))[0]


def histogram_edges(x, nbins):
    return np.histogram(x, bins=nbins, range=(0.0, 1.0))[1]


def equalize(img, nbins):
    hist, edges = np.histogram(img, bins=nbins, range=(0.0, 1.0))
    cdf = np.cumsum(hist).astype(np.float64)
    cdf = cdf / cdf[-1]
    centers = 0.5 * (edges[:-1] + edges[1:])
    return np.interp(img.ravel(), centers, cdf).reshape(img.shape)


def clipped_lookup(t, k):
    j = np.clip(k, 1, t.shape[0] - 1)
    return t[j] - t[j - 1] + t[j] * 2.0


def unclipped_lookup(t, k):
    return t[k] + t[k - 1]


def _xs(rng):
    base = rng.random(37) * 1.4 - 0.2          # below, inside and above the range
    nan = base.copy()
    nan[[3, 17]] = np.nan
    return {
        "f64": base,
        "nan": nan,
        "empty": np.zeros(0),
        "f32": base.astype(np.float32),
        "i8": np.array([-3, 0, 1, 2, 5, 0, 1], dtype=np.int8),
        "i64": np.array([-3, 0, 1, 2, 5, 0, 1], dtype=np.int64),
        "fortran": np.asfortranarray(rng.random((5, 7))),
    }


@pytest.mark.parametrize("kind", ["f64", "nan", "empty", "f32", "i8", "i64", "fortran"])
@pytest.mark.parametrize("backend", ["native", "interp"])
def test_interp_matches_numpy(kind, backend):
    rng = np.random.default_rng(0)
    x = _xs(rng)[kind]
    xp = np.linspace(0.0, 1.0, 9)
    fp = np.cumsum(rng.random(9))
    check(interp, x, xp, fp, backend=backend)


@pytest.mark.parametrize("kind", ["f64", "nan", "empty", "f32", "i8", "i64", "fortran"])
@pytest.mark.parametrize("backend", ["native", "interp"])
def test_histogram_counts_match_numpy(kind, backend):
    x = _xs(np.random.default_rng(1))[kind]
    check(histogram, x, 8, backend=backend)


def histogram_auto(x, nbins):
    return np.histogram(x, bins=nbins)


def histogram_int_range(x, nbins):
    return np.histogram(x, bins=nbins, range=(-2, 4))


def histogram_f32_range(x, nbins):
    return np.histogram(x, bins=nbins, range=(np.float32(0.1), np.float32(0.7)))


@pytest.mark.parametrize("fn", [histogram_edges, histogram_auto, histogram_int_range,
                                histogram_f32_range])
@pytest.mark.parametrize("kind", ["f64", "f32", "i8", "i64", "fortran", "same"])
def test_histogram_edges_have_numpys_bin_type(fn, kind):
    """NumPy's edges take result_type(first_edge, last_edge, a), integers made float64:
    float32 data with a Python-float range gives float32 edges, an int8 array float64, a
    float32 range on float64 data float64; counts are compared with those edges."""
    xs = _xs(np.random.default_rng(1))
    xs["same"] = np.full(6, 0.25, dtype=np.float32)      # widened by 0.5 each way
    check(fn, xs[kind], 8, backend="native")
    if kind in ("f64", "f32", "i8"):     # XLA shares the bin-type rule (frontend); three kinds
        check(fn, xs[kind], 5, backend="xla")


@pytest.mark.parametrize("n", [1, 6, 40])
def test_equalize_matches_numpy_natively(n):
    img = np.random.default_rng(n).random((n, n + 1)) ** 2
    check(equalize, img, 16, backend="native")
    check(equalize, np.asfortranarray(img), 16, backend="native")


@pytest.mark.parametrize("dtype", [np.int8, np.int64])
def test_a_clipped_lookup_is_unchecked_and_fused(dtype):
    t = np.linspace(0.0, 3.0, 11)
    k = np.array([-4, 0, 3, 10, 12, 7], dtype=dtype)
    check(clipped_lookup, t, k, backend="native")
    f = solvent.jit(clipped_lookup, backend="native")
    c = f.compile((t, k))
    gathers = [op for op in c.fn.walk() if op.name == "tensor.gather"]
    assert gathers and all(op.attrs.get("unchecked") for op in gathers)
    assert all(pointwise_gather(op) for op in gathers)
    fused = c.executable.plan.fused
    assert all(op in fused for op in gathers)


def test_an_unproven_lookup_stays_checked_and_raises():
    t = np.linspace(0.0, 3.0, 11)
    f = solvent.jit(unclipped_lookup, backend="native")
    k = np.array([1, 5, 10])
    check(unclipped_lookup, t, k, backend="native")
    c = f.compile((t, k))
    assert not any(op.attrs.get("unchecked") for op in c.fn.walk()
                   if op.name == "tensor.gather")
    with pytest.raises(IndexError, match="index 11 is out of bounds for axis 0 with size 11"):
        f(t, np.array([1, 11, 3]))


def ell_rows(vals, cols, x):
    n, K = vals.shape
    y = np.empty(n)
    for i in range(n):
        s = 0.0
        for k in range(K):
            s += vals[i, k] * x[cols[i, k]]
        y[i] = s
    return y


@pytest.mark.parametrize("n,K", [(0, 3), (1, 1), (5, 3), (4, 8)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_row_dots_read_a_gathered_operand_in_place(n, K, dtype):
    """Raised ``s += vals[i, k] * x[cols[i, k]]`` is a row-batched dot_general of vals and
    the gather x[cols]; natively the dots read the gather where they use it (rules_linalg
    row_dots), so it is never written out. NumPy's results, NaN and inf included. The native
    backend keeps such a loop a loop by default (raise_loops data_gathers=False: faster
    there); raised on request, it still runs this way."""
    rng = np.random.default_rng(n + K)
    vals = rng.standard_normal((n, K)).astype(dtype)
    x = rng.standard_normal(max(n, 1)).astype(dtype)
    x[:2] = [np.nan, np.inf][:x.size]
    cols = rng.integers(0, x.size, (n, K))
    check(ell_rows, vals, cols, x, backend="native")
    raised = solvent.jit(ell_rows, backend="native",
                         passes={"raise_loops": {"data_gathers": True}})
    got, want = raised(vals, cols, x), ell_rows(vals, cols, x)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
    c = raised.compile((vals, cols, x))
    if n:
        assert any(op.name == "tensor.dot_general" for op in c.fn.walk())
        assert any(op.name == "tensor.gather" for op in c.executable.plan.fused)
