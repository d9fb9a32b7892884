"""Values whose length is known only at run time (x[mask], x[:k] with k read from data)
indexed by integer arrays and boolean masks, read and written, as NumPy does (issue 14):
on the native backend and the interpreter, and under automatic choice; XLA refuses them
naming the line. Differential at two sizes, Fortran/strided/int8/float32 arguments, in-place
effects on the caller's arrays where a view is written through."""
import re

import numpy as np
import pytest

import solvent
from differential import check

BACKENDS = ["native", "interp", None]   # None: automatic choice


def pick(x, idx):
    y = x[x > 0.0]
    return y[idx]


def pick_2d_rows(A, idx):
    R = A[A[:, 0] > 0.0]          # (?, m)
    return R[idx], R[idx, 1:], R[:, [0, -1]]


def mask_of_mask(x):
    y = x[x > 0.0]
    return y[y > 0.5], y[y > 0.5].sum()


def mask_2d_of_rows(A):
    R = A[A[:, 0] > 0.0]
    return R[R > 0.25], R[R[:, 1] > 0.0]


def write_mask(x):
    y = x[x > 0.0]
    y[y > 0.5] = 0.0
    y[y < 0.2] *= 2
    return y, y.shape[0]


def write_index(x, idx, v):
    y = x[x > -2.0]
    y[idx] = v
    y[[0, -1]] += 1
    return y


def write_rows(j, A):
    R = A[A[:, 0] > 0.0]          # (?, 4)
    R[:, 1:3] = 0.5
    R[:, j:j + 1] *= 2.0
    R[R[:, 3] > 0.5, 0] = -1.0
    R[1] = 7.0
    return R


def write_through_view(k, x, idx):
    # a run-time-length view of the caller's array: writes reach it, as in NumPy
    n = int(x[0] > 0) + k
    y = x[:n]
    y[idx] = -1
    y[y > 0.75] = 0.5
    return x.sum()


def add_at_runtime(x, idx):
    y = x[x > -5.0]
    np.add.at(y, idx, 1.0)
    return y


def copies_not_views(x, idx):
    # integer-array and mask reads of a run-time-length value are copies, as in NumPy
    y = x[x > 0.0]
    z = y[idx]
    z[0] = -9.0
    w = y[y > 0.5]
    w[:] = 0.0
    return y, z, w


def _rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [6, 40])
def test_reads_by_index_arrays_and_masks(backend, n):
    r = _rng()
    x = np.abs(r.random(n)) + 0.05
    check(pick, x, np.array([0, -1, n // 2]), backend=backend)
    check(pick, x[::2].astype(np.float32), np.array([1, 0]), backend=backend)
    check(pick, x, np.zeros(0, np.int64), backend=backend)
    A = r.random((n, 3)) - 0.3
    A[0, 0] = 0.9   # at least one row kept
    A[1, 0] = 0.8
    check(pick_2d_rows, np.asfortranarray(A), np.array([1, 0]), backend=backend)
    check(mask_of_mask, r.random(n) * 2 - 1, backend=backend)
    check(mask_of_mask, (r.random(n) * 10 - 5).astype(np.int8), backend=backend)
    check(mask_2d_of_rows, A, backend=backend)


# automatic choice picks native here (test_reads_by_index_arrays_and_masks runs it)
@pytest.mark.parametrize("backend,n", [("native", 5), ("interp", 5), ("native", 33)])
def test_writes_by_masks_and_index_arrays(backend, n):   # each n compiles anew: 33 once
    r = _rng()
    check(write_mask, r.random(n) * 2 - 1, backend=backend)
    check(write_mask, (r.random(n) * 2 - 1).astype(np.float32)[::-1], backend=backend)
    x = r.random(n) - 0.5
    check(write_index, x, np.array([1, -2]), 7.5, backend=backend)
    check(write_index, x, np.array([0, 2]), np.array([3.0, 4.0]), backend=backend)
    check(write_index, (r.random(n) * 10).astype(np.int8), np.array([1]), 3, backend=backend)
    check(add_at_runtime, x, np.array([0, 0, 1, -1]), backend=backend)
    check(copies_not_views, np.abs(x) + 0.3, np.array([1, 0]), backend=backend)
    A = r.random((n, 4)) - 0.2
    A[:2, 0] = 0.5                 # at least two rows kept
    check(write_rows, 3, A, backend=backend)
    check(write_rows, 0, np.asfortranarray(A), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [6, 30])
def test_writes_through_a_run_time_view_reach_the_caller(backend, n):
    r = _rng()
    x = r.random(n)
    x[0] = 0.5
    check(write_through_view, 3, x, np.array([0, 2]), backend=backend)
    s = np.zeros(2 * n)
    s[::2] = x
    check(write_through_view, 4, s[::2], np.array([-1]), backend=backend)


def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, l in enumerate(lines) if text in l)


def _at(fn, text):
    """The line of ``text`` in ``fn`` as an error names it (the frontend's check says
    file:line:col, a native op's own check "line L of file")."""
    n = _line_of(fn, text)
    return rf"test_runtime_length_fancy_indexing.py:{n}:"


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_an_index_outside_a_run_time_length_raises_index_error_with_the_line(backend):
    x = np.array([0.5, -1.0, 0.25, 2.0])            # 3 positive values
    f = solvent.jit(pick, backend=backend)
    with pytest.raises(IndexError, match=r"index 3 is out of bounds") as e:
        f(x, np.array([0, 3]))
    assert re.search(_at(pick, "return y[idx]"), str(e.value)), str(e.value)
    with pytest.raises(IndexError, match=r"index -4 is out of bounds"):
        f(x, np.array([-4]))
    g = solvent.jit(write_index, backend=backend)
    y = x.copy()
    with pytest.raises(IndexError, match=_at(write_index, "y[idx] = v")):
        g(y, np.array([9]), 1.0)
    assert np.array_equal(y, x)    # the caller's array is untouched


def mask_wrong_length(x, m):
    y = x[x > 0.0]
    return y[m]


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_a_mask_of_another_length_raises_numpys_index_error_with_the_line(backend):
    x = np.array([0.5, -1.0, 0.25, 2.0])
    f = solvent.jit(mask_wrong_length, backend=backend)
    with pytest.raises(IndexError, match=r"boolean index did not match indexed array along "
                       r"axis 0; size of axis is 3") as e:
        f(x, np.array([True, False]))
    assert re.search(_at(mask_wrong_length, "y[m]"), str(e.value)), str(e.value)
    check(mask_wrong_length, x, np.array([True, False, True]), backend=backend)


def test_xla_refuses_naming_the_line_and_auto_runs_natively():
    x = np.abs(np.random.default_rng(1).random(8)) + 0.1
    with pytest.raises(solvent.UnsupportedError,
                       match=rf"xla.*test_runtime_length_fancy_indexing.py:"
                             rf"{_line_of(pick, 'y = x[x > 0.0]')}:.*static.*native"):
        solvent.jit(pick, backend="xla")(x, np.array([1]))
    assert "## backend: native" in solvent.jit(pick).explain(x, np.array([1]))
    check(pick, x, np.array([1]), backend=None)


def mask_next_to_ints(A, B):
    # a 1-D mask next to integers or slices: NumPy's result is A[:, 1][mask] (was refused)
    A[A[:, 0] > 0.5, 1] = -1.0
    A[A[:, 0] < 0.2, 2:] += 3.0
    B[1, B[1] > 0] = 0
    return A[A[:, 0] > 0.3, 2], A[A[:, 3] > 0.0, 1:3], B[0, B[2] > 0]


@pytest.mark.parametrize("backend", ["native", "interp", None])
@pytest.mark.parametrize("n", [5, 31])
def test_a_mask_next_to_integers_reads_and_writes_as_numpy(backend, n):
    r = _rng()
    A = r.random((n, 4))
    B = (r.random((3, n)) * 10 - 5).astype(np.int8)
    check(mask_next_to_ints, A, B, backend=backend)
    check(mask_next_to_ints, np.asfortranarray(A), B[:, ::-1], backend=backend)


def mask_next_to_ints_write_only(A):
    A[A[:, 0] > 0.5, 1] = -1.0
    A[0, A[1] > 0.5] *= 2.0


def test_a_mask_next_to_integers_writes_on_xla_too(backend):
    A = _rng().random((6, 6))
    check(mask_next_to_ints_write_only, A, backend=backend)
    check(mask_next_to_ints_write_only, np.asfortranarray(A)[:, ::2], backend=backend)


# --- several index arrays of run-time length: np.where / np.nonzero tuples ------------------
def where_pairs(A):
    idx = np.where(A > 0.5)
    return A[idx].sum(), A[idx], idx[0], idx[1]


def nonzero_3d(T):
    return T[np.nonzero(T < 0.3)] * 2.0


def where_write(A):
    A[np.where(A > 0.7)] = 0.0
    np.add.at(A, np.nonzero(A < 0.2), 1.0)
    return A


def rows_by_columns(A, k):
    r = np.nonzero(A[:, 0] > 0.4)[0]
    return A[r[:, None], np.arange(k)]      # (?, 1) against (k,): a (?, k) block


def two_masks(A, m1, m2):
    return A[np.nonzero(m1)[0], np.nonzero(m2)[0]]


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_index_tuples_of_run_time_length_read_and_write_as_numpy(backend):
    r = _rng()
    A = r.random((6, 5))
    check(where_pairs, A, backend=backend)
    check(where_pairs, np.asfortranarray(A)[:, ::2], backend=backend)
    check(where_pairs, np.zeros((3, 4)), backend=backend)          # nothing selected
    check(nonzero_3d, r.random((3, 4, 2)).astype(np.float32), backend=backend)
    check(where_write, A, backend=backend)
    check(rows_by_columns, A, 3, backend=backend)
    m1, m2 = np.array([1, 0, 1, 1, 0, 0], bool), np.array([0, 1, 1, 0, 1], bool)
    check(two_masks, A, m1, m2, backend=backend)


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_index_arrays_of_different_run_time_lengths_raise_numpys_index_error(backend):
    A = _rng().random((6, 5))
    m1, m2 = np.array([1, 0, 1, 1, 0, 0], bool), np.array([0, 1, 1, 0, 0], bool)
    with pytest.raises(IndexError) as want:
        two_masks(A, m1, m2)
    assert "shape mismatch: indexing arrays could not be broadcast" in str(want.value)
    with pytest.raises(IndexError, match=r"shape mismatch: indexing arrays could not be "
                       r"broadcast together.*") as e:
        solvent.jit(two_masks, backend=backend)(A, m1, m2)
    assert re.search(_at(two_masks, "return A[np.nonzero"), str(e.value)), str(e.value)
