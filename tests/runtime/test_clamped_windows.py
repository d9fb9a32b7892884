"""Windows ``x[i:i + w]`` that reach past the end of their axis: NumPy gives a shorter slice.

solvent compiles such a window with its length ``w`` (static shapes, which XLA and raising
need) and checks that it fits; where it does not, the runtime compiles the function again
with NumPy's clamped length, known only at run time, and runs that (errors.ClampedWindowError,
runtime/jit.py). With ``backend="xla"`` forced there is no such version: the call raises the
IndexError, naming the line, and leaves the caller's arrays as they were.
"""
import numpy as np
import pytest

import solvent
from differential import check


def moving_mean(x, out):
    n = x.shape[0]
    for i in range(n):
        out[i] = x[i:i + 3].mean()
    return out.sum()


def scatter_window(x, y):
    for i in range(x.shape[0]):
        y[i:i + 2] += x[i]


def box_sum(A):
    n, m = A.shape
    s = np.zeros((n, m), A.dtype)
    for i in range(n):
        for j in range(m):
            s[i, j] = A[i:i + 2, j:j + 2].sum()
    return s


def tail_at(k, x):
    return x[k:k + 4].sum()


CASES = [
    (moving_mean, lambda n: (np.arange(n, dtype=np.float32)[::-1], np.zeros(n, np.float32))),
    (scatter_window, lambda n: (np.arange(n, dtype=np.int8), np.zeros(n + 1, np.int64))),
    (box_sum, lambda n: (np.asfortranarray(np.arange(n * 3.0).reshape(n, 3)),)),
    (tail_at, lambda n: (n - 2, np.linspace(0, 1, n))),
]


@pytest.mark.parametrize("backend", [None, "native", "interp"])
@pytest.mark.parametrize("n", [1, 7])
@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_windows_past_the_end_get_numpys_shorter_slice(fn, make, n, backend):
    check(fn, *make(n), backend=backend)


def test_the_clamped_version_is_kept_and_serves_windows_that_fit_too():
    f = solvent.jit(moving_mean)
    x, out = np.arange(5.0), np.zeros(5)
    assert f(x, out) == moving_mean(x.copy(), np.zeros(5))
    first = f.compile((x, out))
    assert f(x, out) == moving_mean(x.copy(), np.zeros(5))
    assert f.compile((x, out)) is first          # no third compilation
    g = solvent.jit(tail_at)
    assert g(0, np.arange(9.0)) == 6.0             # fits: the fixed-length version
    assert g(7, np.arange(9.0)) == 15.0            # past the end: recompiled, clamped


def test_xla_forced_raises_naming_the_line_and_writes_nothing():
    f = solvent.jit(moving_mean, backend="xla")
    x, out = np.arange(6.0), np.full(6, -1.0)
    with pytest.raises(IndexError, match=r"test_clamped_windows.py:\d+.*does not fit"):
        f(x, out)
    assert np.array_equal(out, np.full(6, -1.0))
