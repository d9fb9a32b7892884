"""Checks as values decided before the first write into a caller's array
(backends/native/errors_first.py): the written-back argument is computed in the caller's
own array with no backup copy, a failing call returns before it writes and leaves every
argument as it was, and a check that needs the written values keeps the backup."""
import math

import numpy as np
import pytest

import solvent

from differential import check, copy_keep_layout


def center_scale(A, points, d):
    """row_iteration_loops' shape: A written back, checks (sqrt, division) on other data."""
    m, n = A.shape
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += A[i, j]
        for j in range(n):
            A[i, j] -= s / n
    total = 0.0
    for p in range(points.shape[0]):
        total += math.sqrt(points[p] - d)
    for i in range(m):
        f = 1.0 / (i + 1)
        for j in range(n):
            A[i, j] *= f
    return total


def scale_then_root(A, d):
    """The check reads the values written into A: it cannot come before the write."""
    for i in range(A.shape[0]):
        A[i] = A[i] * 2.0 - d
    t = 0.0
    for i in range(A.shape[0]):
        t += math.sqrt(A[i])
    return t


def _layouts(a):
    yield a
    yield np.asfortranarray(a)
    big = np.zeros((a.shape[0] * 2, a.shape[1] + 3))
    big[::2, 1:-2] = a
    yield big[::2, 1:-2]


@pytest.mark.parametrize("shape", [(7, 3), (1, 1), (40, 5)])
def test_center_scale_matches_numpy_in_every_layout(shape):
    rng = np.random.default_rng(1)
    for A in _layouts(rng.random(shape)):
        check(center_scale, A, rng.random(9) + 1.0, 0.5, backend="native")
        check(center_scale, A, rng.random(9) + 1.0, 0.5, backend=None)


def test_no_backup_and_caller_array_written_in_place():
    A = np.random.default_rng(2).random((30, 4))
    f = solvent.jit(center_scale, backend="native")
    f(A.copy(), np.ones(5), 0.5)
    exe = f.compile(f._bind((A, np.ones(5), 0.5), {})).executable
    owned = [i for i, k, _, written, _ in exe._args if written]
    assert owned and all(i in exe._own for i in owned)   # the caller's own array
    assert not exe._can_fail                             # so no copy per call


@pytest.mark.parametrize("layout", [0, 1, 2])
def test_a_failing_check_leaves_the_caller_arrays_unchanged(layout):
    rng = np.random.default_rng(3)
    A = list(_layouts(rng.random((12, 4))))[layout]
    before = copy_keep_layout(A)
    pts = rng.random(6) + 1.0
    pts[4] = -3.0   # sqrt of a negative: ValueError, as math.sqrt
    with pytest.raises(ValueError):
        center_scale(before.copy(), pts, 0.5)   # Python raises it too
    with pytest.raises(ValueError, match="math domain error"):
        solvent.jit(center_scale, backend="native")(A, pts, 0.5)
    np.testing.assert_array_equal(A, before)
    assert A.strides == before.strides


def test_a_check_on_the_written_values_keeps_the_backup():
    A = np.array([1.0, 2.0, 0.1, 3.0])
    f = solvent.jit(scale_then_root, backend="native")
    with pytest.raises(ValueError):
        f(A, 1.0)
    np.testing.assert_array_equal(A, [1.0, 2.0, 0.1, 3.0])
    check(scale_then_root, np.array([1.0, 2.0, 0.6, 3.0]), 1.0, backend="native")
    check(scale_then_root, np.asfortranarray(np.arange(1.0, 9.0)), 1.0, backend="native")


def test_the_fast_path_returns_the_scalar_and_writes_in_place():
    """A version that updates its argument in place and returns a scalar takes the cached
    call's fast runner (fast_runner.py): same value and type as Python, every call."""
    rng = np.random.default_rng(4)
    f = solvent.jit(center_scale, backend="native")
    for _ in range(3):
        A, pts = rng.random((9, 4)), rng.random(5) + 1.0
        want_A = A.copy()
        want = center_scale(want_A, pts, 0.5)
        got = f(A, pts, 0.5)
        assert type(got) is type(want) and np.isclose(got, want)
        np.testing.assert_allclose(A, want_A)
    pts[2] = -1.0
    before = A.copy()
    with pytest.raises(ValueError):
        f(A, pts, 0.5)
    np.testing.assert_array_equal(A, before)


def test_a_reused_backup_restores_each_failing_call_its_own_array():
    """The backup of a written argument is one array per thread, reused on every call
    (backend._backup): a failure restores the values of the failing call, not of an earlier
    one, on the fast runner (same array, same types) and on __call__ (another layout)."""
    f = solvent.jit(scale_then_root, backend="native")
    A = np.array([1.0, 2.0, 3.0, 4.0])
    f(A, 0.5)   # succeeds: A doubled less 0.5, the backup filled with the old values
    for bad in (np.array([5.0, 0.1, 6.0, 7.0]), np.array([9.0, 8.0, 7.0, 0.2])):
        A[:] = bad
        with pytest.raises(ValueError):
            f(A, 1.0)
        np.testing.assert_array_equal(A, bad)
    F = np.asfortranarray(np.array([[3.0], [0.1]]))[:, 0]   # a view: another type key
    f(np.array([8.0, 9.0]), 1.0)
    with pytest.raises(ValueError):
        f(F, 1.0)
    np.testing.assert_array_equal(F, [3.0, 0.1])
    exe = f.compile(f._bind((A, 1.0), {})).executable
    assert exe._can_fail and len(exe._tls.backups) == 1   # kept: one array, reused
