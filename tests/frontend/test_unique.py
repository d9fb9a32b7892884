"""np.unique (a run-time length) and what it needs on the native backend (sort / argsort,
scatter and np.add.at), differentially against NumPy at two sizes on the interpreter and
the native backend; XLA, which needs static shapes, refuses naming np.unique and its line,
and automatic choice then picks native.

Inputs the way a stranger passes them: scalar arguments first, Fortran-ordered and strided
arrays, int8 / uint8 / float32 / bool data, NaNs (NumPy collapses them into one value),
empty and one-element arrays.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import solvent
from differential import check, jitted

BACKENDS = ["interp", "native"]


def distinct(a):
    return np.unique(a)


def distinct_all(a):
    return np.unique(a, return_index=True, return_inverse=True, return_counts=True)


def label_sizes(min_count, labels, sizes):
    """The size of each pixel's label (0 below min_count), written in place."""
    vals, counts = np.unique(labels, return_counts=True)
    for k in range(len(vals)):
        if counts[k] >= min_count:
            sizes[labels == vals[k]] = counts[k]
    return vals


def sizes_by_inverse(labels):
    vals, inv, counts = np.unique(labels, return_inverse=True, return_counts=True)
    return counts[inv]


def distinct_nan_apart(a):
    return np.unique(a, equal_nan=False)


def sort_family(x):
    return np.sort(x), np.sort(x, axis=0), np.argsort(x, axis=0, kind="stable"), \
        np.argsort(x, kind="stable")


def scatter_family(x, idx, v):
    y = x.copy()
    y[idx] = v             # duplicates: the last write wins, as in NumPy
    np.add.at(x, idx, v)   # duplicates add up, in place
    return y


def _data(rng, n, dtype):
    a = rng.integers(-3, 4, n).astype(dtype)
    if np.dtype(dtype).kind == "f" and n > 3:
        a[[1, n - 2]] = np.nan
        a[0] = -np.inf
    return a


@pytest.mark.parametrize("backend,n,dtype", [   # each (n, dtype) is compiled anew
    (b, n, d) for b in BACKENDS for n, d in [(7, np.float64), (40, np.float64), (40, bool)]] + [
    ("native", 40, d) for d in (np.float32, np.int8, np.uint8, np.int64)])
def test_unique_matches_numpy(backend, n, dtype):
    rng = np.random.default_rng(n)
    a = _data(rng, 2 * n, dtype)[::2]                       # strided
    check(distinct, a, backend=backend)
    check(distinct_all, a, backend=backend)
    m = np.asfortranarray(a[: n - n % 7].reshape(-1, 7))      # 2-D, Fortran order
    check(distinct_all, m, backend=backend)                   # inverse has m's shape


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("a", [np.zeros(0), np.ones(1, np.int8), np.array([np.nan, np.nan]),
                               np.float32(2.5)], ids=["empty", "one", "nans", "0-d"])
def test_unique_edge_cases(backend, a):
    check(distinct, a, backend=backend)
    check(distinct_all, a, backend=backend)
    check(distinct_nan_apart, a, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(5, 3), (12, 9)])
def test_unique_in_a_kernel_writes_in_place(backend, shape):
    rng = np.random.default_rng(shape[0])
    labels = np.asfortranarray(rng.integers(0, 6, shape).astype(np.int32))
    check(label_sizes, 3, labels, np.zeros(shape, np.int64), backend=backend)


@pytest.mark.parametrize("shape", [(5, 7), (1, 30), (0, 3)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.uint8, bool])
def test_native_sort_and_argsort(shape, dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(-3, 4, shape).astype(dtype)
    if np.dtype(dtype).kind == "f" and x.size > 2:
        x.flat[[0, 2]] = np.nan
    check(sort_family, np.asfortranarray(x), backend="native")


@pytest.mark.parametrize("n", [6, 50])
@pytest.mark.parametrize("dtype", [np.float64, np.int8, bool])
def test_native_scatter_and_add_at(n, dtype):
    rng = np.random.default_rng(n)
    x = rng.integers(0, 3, n).astype(dtype)
    idx = rng.integers(-n, n, 2 * n)                          # duplicates, negative
    check(scatter_family, x, idx, rng.integers(0, 3, 2 * n).astype(dtype), backend="native")
    check(scatter_family, x, np.int32(-1), dtype(1), backend="native")


def test_scatter_index_out_of_bounds_raises_with_the_line():
    x = np.zeros(4)
    with pytest.raises(IndexError, match="out of bounds") as e:
        jitted(scatter_family, "native")(x, np.array([0, 4]), np.ones(2))
    assert "test_unique.py" in str(e.value)
    assert np.array_equal(x, np.zeros(4))      # the caller's array untouched


def test_xla_refuses_unique_naming_it_and_the_line_and_auto_picks_native():
    a = np.array([3.0, 1.0, 3.0])
    with pytest.raises(solvent.UnsupportedError) as e:
        solvent.jit(distinct_all, backend="xla")(a)
    msg = str(e.value)
    src, first = inspect.getsourcelines(distinct_all)
    lineno = first + next(k for k, s in enumerate(src) if "np.unique" in s)
    assert "np.unique" in msg and f"test_unique.py:{lineno}:" in msg, msg
    assert "XLA takes only tensors whose shapes are static" in msg, msg
    assert "## backend: native" in solvent.jit(distinct_all).explain(a)
    check(distinct_all, a, backend=None)


@pytest.mark.parametrize("backend", BACKENDS + [None])
@pytest.mark.parametrize("n", [7, 60])
def test_a_run_time_length_indexed_by_an_array(backend, n):
    # counts has a run-time length; counts[inv] was refused before (issue 14)
    labels = np.random.default_rng(n).integers(0, 5, n).astype(np.int8)
    check(sizes_by_inverse, labels, backend=backend)
    check(sizes_by_inverse, np.asfortranarray(labels.reshape(1, n)), backend=backend)


def array_api_unique(a):
    r = np.unique_counts(a)
    return np.unique_all(a), r.values, r.counts, np.unique_inverse(a), np.unique(a, sorted=False)


def array_api_unique_values(a):
    return np.unique_values(a)


@pytest.mark.parametrize("a", [np.array([[3, 1, 2], [3, 1, 7]], np.int8),
                               np.array([3.0, np.nan, 1.0, np.nan, 3.0])])
def test_array_api_unique_functions_return_numpys_named_tuples(a):
    """unique_all/counts/inverse as NumPy: its named tuples, inverse shaped like the input,
    NaNs distinct; unique_values and unique(sorted=False) leave the order to the
    implementation in NumPy (hash-based): solvent's is sorted."""
    got = jitted(array_api_unique, "native")(a)
    want = array_api_unique(a)
    for g, w in zip(got[:4], want[:4]):
        assert type(g) is type(w)
        for p, q in zip(g if isinstance(g, tuple) else (g,), w if isinstance(w, tuple) else (w,)):
            assert p.dtype == q.dtype and np.array_equal(p, q, equal_nan=True)
    np.testing.assert_array_equal(got[4], np.sort(want[4]))
    np.testing.assert_array_equal(jitted(array_api_unique_values, "native")(a),
                                  np.sort(np.unique_values(a)))
