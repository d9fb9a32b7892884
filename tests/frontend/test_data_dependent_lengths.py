"""NumPy functions whose result length depends on the data (issue 14): np.bincount without
minlength, np.unique(axis=...), np.zeros/np.ones/np.full of a length computed from data.
The native backend and the interpreter run them (a run-time length), automatic choice picks
native, and XLA refuses them naming the construct, the line and what to do. Differential
against NumPy at two sizes, with the argument kinds a stranger passes (scalars first,
Fortran order, strides, int8 / float32, sizes 0 and 1), in-place effects included."""
import inspect
import re

import numpy as np
import pytest

import solvent
from differential import check

BACKENDS = ["native", "interp", None]   # None: automatic choice


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, s in enumerate(lines) if text in s)


# --- np.bincount ------------------------------------------------------------------------------
def counts(x):
    return np.bincount(x)


def weighted(x, w):
    return np.bincount(x, weights=w), np.bincount(x, w, len(x) + 1)


def counts_of_selected(lo, x):
    y = x[x >= lo]                      # a run-time length, possibly empty
    return np.bincount(y), len(np.bincount(y))


def histogram_in_place(out, x):
    c = np.bincount(x)
    out[:c.shape[0]] = c                # writes the caller's array
    return c.sum()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [70])   # the result length comes from the data: one input size
def test_bincount_without_minlength(backend, n):
    r = np.random.default_rng(n)
    x = r.integers(0, n // 2, n)
    check(counts, x, backend=backend)
    check(counts, x.astype(np.int8)[::-2], backend=backend)
    check(counts, np.array([0]), backend=backend)
    check(counts, np.array([], dtype=np.int64), backend=backend)
    check(counts, x > n // 4, backend=backend)                     # bools count as 0/1
    check(weighted, x, r.random(n), backend=backend)
    check(weighted, x.astype(np.uint8), r.random(n).astype(np.float32), backend=backend)
    check(weighted, np.array([], dtype=np.int64), np.array([]), backend=backend)
    check(counts_of_selected, 3, x, backend=backend)
    check(counts_of_selected, n, x, backend=backend)              # nothing selected
    out = np.full(n, -1, dtype=np.int64)
    check(histogram_in_place, out, x, backend=backend)


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_bincount_raises_as_numpy_with_the_line(backend):
    f = solvent.jit(counts, backend=backend)
    at = f"test_data_dependent_lengths.py:{line_of(counts, 'np.bincount')}:"
    with pytest.raises(ValueError, match=re.escape(at) + ".*'list' argument must have no "
                       "negative elements"):
        f(np.array([1, -2, 3]))
    with pytest.raises(TypeError, match=re.escape(at) + ".*Cannot cast array data"):
        f(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="weights and list don't have the same length"):
        solvent.jit(weighted, backend=backend)(np.array([1, 2]), np.ones(3))


def test_xla_refuses_bincount_without_minlength_naming_the_line_and_what_to_do():
    with pytest.raises(solvent.UnsupportedError) as e:
        solvent.jit(counts, backend="xla")(np.array([1, 3]))
    msg = str(e.value)
    assert f"test_data_dependent_lengths.py:{line_of(counts, 'np.bincount')}:" in msg, msg
    assert "np.bincount without minlength" in msg and "backend='native'" in msg, msg
    assert "## backend: native" in solvent.jit(counts).explain(np.array([1, 3]))


# --- np.unique(axis=) -------------------------------------------------------------------------
def rows(a):
    return np.unique(a, axis=0)


def columns_all(a):
    return np.unique(a, axis=1, return_index=True, return_inverse=True, return_counts=True)


def last_axis_3d(a):
    return np.unique(a, axis=-1, return_counts=True)


def flat_axis0(a):
    return np.unique(a, axis=0, return_inverse=True)


def relabel_in_place(labels, pairs):
    # a stranger's use: number each distinct (a, b) pair, written into the caller's array
    u, inv = np.unique(pairs, axis=0, return_inverse=True)
    labels[:] = inv
    return u.shape[0]


def _pairs(r, n, k, dt=np.int64):
    return r.integers(0, 3, (n, k)).astype(dt)


@pytest.mark.parametrize("backend", ["native", "interp"])   # automatic: native
@pytest.mark.parametrize("n", [50])   # the result length comes from the data: one input size
def test_unique_along_an_axis(backend, n):
    r = np.random.default_rng(n)
    check(rows, _pairs(r, n, 2), backend=backend)
    check(rows, np.asfortranarray(_pairs(r, n, 3).astype(np.float64)), backend=backend)
    check(rows, _pairs(r, 2 * n, 2, np.int8)[::2], backend=backend)
    check(rows, _pairs(r, 1, 4), backend=backend)
    check(rows, np.zeros((0, 2)), backend=backend)
    check(columns_all, _pairs(r, 3, n).astype(np.float32), backend=backend)
    check(last_axis_3d, _pairs(r, 2 * 3, n).reshape(2, 3, n), backend=backend)
    check(flat_axis0, r.integers(0, 4, n).astype(np.float64), backend=backend)
    labels = np.zeros(n, dtype=np.int64)
    check(relabel_in_place, labels, _pairs(r, n, 2), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_unique_along_an_axis_orders_nan_last_and_never_merges_nans(backend):
    a = np.array([[np.nan, 1.0], [np.nan, 1.0], [-0.0, 2.0], [0.0, 2.0], [-np.inf, 5.0],
                  [1.0, np.nan]])
    check(rows, a, backend=backend)
    check(flat_axis0, np.array([np.nan, 2.0, np.nan, 1.0, 2.0]), backend=backend)


def test_xla_refuses_unique_along_an_axis_naming_the_callers_line():
    with pytest.raises(solvent.UnsupportedError) as e:
        solvent.jit(rows, backend="xla")(np.ones((3, 2)))
    msg = str(e.value)
    assert f"test_data_dependent_lengths.py:{line_of(rows, 'np.unique')}:" in msg, msg
    assert "backend='native'" in msg, msg


# --- allocations of a length computed from data -----------------------------------------------
def zeros_of_max(x):
    n = int(x.max()) + 1
    a = np.zeros(n)
    b = np.ones(n, dtype=np.int8)
    c = np.full(n, 2.5, dtype=np.float32)
    a[x] += 1.0
    return a, b, c, np.empty(len(a)).shape


def negative_length(x):
    return np.zeros(int(x.min()))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [4, 40])
def test_allocations_of_a_length_from_data(backend, n):
    x = np.random.default_rng(n).integers(0, n, n)
    check(zeros_of_max, x, backend=backend)
    check(zeros_of_max, x.astype(np.int8)[::-1], backend=backend)


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_a_negative_length_from_data_raises_numpys_value_error_with_the_line(backend):
    at = f"test_data_dependent_lengths.py:{line_of(negative_length, 'np.zeros')}:"
    with pytest.raises(ValueError, match=re.escape(at) + ".*negative dimensions"):
        solvent.jit(negative_length, backend=backend)(np.array([-3, 4]))


def store_through_mask(a, m, v):
    a[m] = v                           # as many values as the mask has true entries
    return a


def masked_update(x, c):
    m = x > 0
    x[m] = x[m] ** 2 + c[m]            # the z[m] = z[m] ** 2 + c[m] idiom, 1-D
    return x


@pytest.mark.parametrize("backend", ["native", "interp", None])
@pytest.mark.parametrize("args", [
    (np.arange(5.0), np.array([1, 0, 1, 0, 1], bool), np.array([7.0, 8, 9])),
    (np.arange(5.0), np.array([1, 0, 1, 0, 1], bool), np.array([7.0])),        # broadcasts
    (np.arange(5, dtype=np.int8), np.array([1, 0, 1, 0, 1], bool), np.array([7.5, 8, 9])),
    (np.arange(5.0), np.zeros(5, bool), np.zeros(0)),
    (np.arange(5.0), np.array([1, 0, 1, 0, 0], bool), np.array([7.0, 8, 9])),  # ValueError
    (np.arange(6.0).reshape(2, 3), np.eye(2, 3, dtype=bool), np.array([7.0, 8])),
    (np.asfortranarray(np.arange(6.0).reshape(3, 2)), np.arange(6).reshape(3, 2) % 4 == 1,
     np.array([7.0, 8])),                                     # C order over a Fortran array
    (np.arange(24, dtype=np.int8).reshape(2, 3, 4), np.arange(24).reshape(2, 3, 4) % 5 == 0,
     np.array([-1.0])),
    (np.arange(6.0).reshape(2, 3), np.ones((2, 3), bool), np.array([1.0, 2])),  # ValueError
    (np.zeros((0, 3)), np.zeros((0, 3), bool), np.zeros(0)),
], ids=["three", "one", "int8-unsafe", "none", "mismatch", "2d", "2d-fortran", "3d-int8",
        "2d-mismatch", "2d-empty"])
def test_array_stored_through_a_boolean_mask(args, backend):
    try:
        expected = store_through_mask(*[np.copy(a) for a in args])
    except ValueError:
        a = np.copy(args[0])
        with pytest.raises(ValueError, match="could not be broadcast"):
            solvent.jit(store_through_mask, backend=backend)(a, *args[1:])
        np.testing.assert_array_equal(a, args[0])   # nothing written
        return
    check(store_through_mask, *args, backend=backend)
    assert expected is not None


@pytest.mark.parametrize("backend", ["native", "interp", None])
def test_masked_update_idiom(backend):
    r = np.random.default_rng(4)
    check(masked_update, r.standard_normal(40), r.standard_normal(40), backend=backend)
    check(masked_update, r.standard_normal((5, 8)), r.standard_normal((5, 8)), backend=backend)
    check(masked_update, r.standard_normal((3, 1, 4)).astype(np.float32),
          r.standard_normal((3, 1, 4)), backend=backend)
    check(masked_update, np.asarray(r.standard_normal(40)[::2], order="C"), r.standard_normal(20),
          backend=backend)


def test_masked_store_refusals_name_the_line():
    with pytest.raises(solvent.UnsupportedError, match="tensor.nonzero.*XLA takes only"):
        solvent.jit(store_through_mask, backend="xla")(
            np.arange(3.0), np.array([1, 0, 1], bool), np.ones(2))


def store_by_flatnonzero(a, m, v):
    a[np.flatnonzero(m)] = v
    return a


@pytest.mark.parametrize("backend", ["native", "interp", None])
def test_run_time_index_store_with_the_wrong_value_length_raises_numpys_error(backend):
    """Three values for two positions: NumPy's ValueError, nothing written. The native
    scatter used to run over the value's length, read past the end of the index array
    (a garbage index) and raise IndexError instead."""
    a = np.arange(5.0)
    m = np.array([1, 0, 1, 0, 0], bool)
    with pytest.raises(ValueError, match="could not be broadcast"):
        solvent.jit(store_by_flatnonzero, backend=backend)(a, m, np.array([7.0, 8, 9]))
    np.testing.assert_array_equal(a, np.arange(5.0))
    check(store_by_flatnonzero, a, m, np.array([7.0]), backend=backend)   # one broadcasts


# --- selection: nonzero and boolean masks (native: a branch-free compaction pass) -------------
def where_above(x, t):
    return np.nonzero(x > t)


def picked_above(x, t):
    return x[x > t], np.flatnonzero(x > t)


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["float64", "int8", "bool"])
def test_selection_at_every_density(shape, dtype):
    """Nothing, one entry, the first or the last only, every entry, and random masks of
    several densities (trailing unselected entries after the last selected one included):
    the compaction writes each selected entry once, in C order, and nothing past the end."""
    rng = np.random.default_rng(len(shape))
    n = int(np.prod(shape))
    masks = [np.zeros(n, bool), np.ones(n, bool), np.eye(1, n, 0, bool)[0],
             np.eye(1, n, n - 1, bool)[0]] + [rng.random(n) < p for p in (0.1, 0.5, 0.9)]
    fns = {b: (solvent.jit(where_above, backend=b), solvent.jit(picked_above, backend=b))
           for b in ("native", "interp")}
    for m in masks:
        x = np.where(m, 2, 0).reshape(shape).astype(dtype)
        x = np.asfortranarray(x) if len(shape) == 2 else x
        for fw, fp in fns.values():
            for got, want in zip(fw(x, 0) + fp(x, 0), where_above(x, 0) + picked_above(x, 0)):
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got, want)
