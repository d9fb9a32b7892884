"""Short kernels written the way scientists write them (scalar arguments first, Fortran-ordered
and strided arrays, int8 / float32 / complex64, slices whose length follows the loop
variable, C-style ports with while/break/swap temporaries, return from inside loops),
differentially against NumPy at
two sizes with in-place effects, on the interpreter and on the backend automatic choice
picks. What solvent does not compile is refused with the line.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import solvent
from differential import check


def trapz_cumulative(dx, y, out):
    # C-style port: running trapezoid integral
    acc = 0.0
    out[0] = 0.0
    for i in range(1, len(y)):
        acc += 0.5 * dx * (y[i] + y[i - 1])
        out[i] = acc
    return acc

def moving_window_max(w, x):
    n = x.shape[0]
    res = np.empty(n - w + 1, dtype=x.dtype)
    for i in range(n - w + 1):
        res[i] = x[i:i + w].max()
    return res

def prefix_norms(A):
    # slice length follows the loop variable
    m = A.shape[0]
    r = np.zeros(m)
    for k in range(m):
        r[k] = np.sqrt(np.sum(A[k, :k + 1] ** 2))
    return r

def int8_saturating_add(a, b):
    s = a.astype(np.int16) + b.astype(np.int16)
    s = np.clip(s, -128, 127)
    return s.astype(np.int8)

def complex_rotate(theta, z):
    rot = np.exp(1j * theta)
    z *= np.complex64(rot)
    return np.abs(z).max()

def bubble_pass(x):
    n = len(x)
    swapped = True
    passes = 0
    while swapped:
        swapped = False
        for i in range(n - 1):
            if x[i] > x[i + 1]:
                tmp = x[i]
                x[i] = x[i + 1]
                x[i + 1] = tmp
                swapped = True
        passes += 1
    return passes

def jacobi_f(niter, omega, u, f):
    # Fortran-ordered grid, relaxation with a copy each step
    h2 = 1.0 / (u.shape[0] - 1) ** 2
    for it in range(niter):
        un = u.copy()
        u[1:-1, 1:-1] = (1 - omega) * un[1:-1, 1:-1] + omega * 0.25 * (
            un[:-2, 1:-1] + un[2:, 1:-1] + un[1:-1, :-2] + un[1:-1, 2:] - h2 * f[1:-1, 1:-1])
    return u

def first_crossing(level, t, y):
    for i in range(1, y.shape[0]):
        if (y[i - 1] - level) * (y[i] - level) <= 0:
            frac = (level - y[i - 1]) / (y[i] - y[i - 1])
            return t[i - 1] + frac * (t[i] - t[i - 1])
    return -1.0

def histogram_manual(nbins, lo, hi, x):
    counts = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for v in x:
        if v < lo or v >= hi:
            continue
        k = int((v - lo) / width)
        counts[k] += 1
    return counts

def lu_nopivot(A):
    n = A.shape[0]
    for k in range(n - 1):
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A

def sorted_lookups(x):
    d = np.diff(x, n=2)
    return np.argsort(d, kind="stable"), np.searchsorted(np.sort(x), 0.5), np.interp(0.3, np.sort(x), x)


def cases(n, rng):
    yield trapz_cumulative, (0.1, rng.standard_normal(n), np.zeros(n))
    yield trapz_cumulative, (0.1, rng.standard_normal(2*n)[::2], np.zeros(n, np.float32))
    yield moving_window_max, (3, rng.standard_normal(n))
    yield moving_window_max, (2, rng.integers(-9, 9, n).astype(np.int8))
    yield prefix_norms, (np.asfortranarray(rng.standard_normal((n, n + 1))),)
    yield int8_saturating_add, (rng.integers(-128, 127, n).astype(np.int8), rng.integers(-128, 127, n).astype(np.int8))
    yield bubble_pass, (rng.standard_normal(n),)
    yield jacobi_f, (3, 0.8, np.asfortranarray(rng.random((n, n + 2))), np.asfortranarray(rng.random((n, n + 2))))
    yield histogram_manual, (4, -1.0, 1.0, rng.standard_normal(n))
    yield lu_nopivot, (np.asfortranarray(rng.random((n, n)) + n * np.eye(n)),)
    yield sorted_lookups, (rng.random(n),)



@pytest.mark.parametrize("backend", ["interp", None], ids=["interp", "auto"])
@pytest.mark.parametrize("n", [6, 33])
def test_stranger_kernels_match_numpy(backend, n):
    for fn, args in cases(n, np.random.default_rng(n)):
        check(fn, *args, backend=backend)


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
@pytest.mark.parametrize("n", [6, 33])
def test_complex64_in_place(backend, n):   # native: complex exp is the C library's cexpf
    rng = np.random.default_rng(n)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    check(complex_rotate, 0.3, z, backend=backend)


def find_pair(target, a, out):
    """return from a nested loop, a tuple, after writing into an argument."""
    n = a.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if a[i] + a[j] == target:
                out[0] = i
                return i, j
        out[1] += 1
    return -1, -1


def newton_sqrt(x0, tol, c):
    """while True left only by returning."""
    x = x0
    k = 0
    while True:
        fx = x * x - c
        if abs(fx) < tol:
            return x, k
        x = x - fx / (2 * x)
        k += 1
        if k > 50:
            return x, -1


def clamp_until_negative(a):
    """A bare return inside a loop; the function otherwise falls off its end."""
    for i in range(a.shape[0]):
        if a[i] < 0:
            a[i] = 0
            return
        a[i] *= 2


def first_crossing_or_nan(level, t, y):
    for i in range(1, y.shape[0]):
        if (y[i - 1] - level) * (y[i] - level) <= 0:
            frac = (level - y[i - 1]) / (y[i] - y[i - 1])
            return t[i - 1] + frac * (t[i] - t[i - 1])
    return t[0] * np.nan


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
@pytest.mark.parametrize("n", [6, 33])
def test_return_inside_loops(backend, n):
    rng = np.random.default_rng(n)
    check(newton_sqrt, 1.0, 1e-12, float(n), backend=backend)
    check(newton_sqrt, 1.0, 0.0, 2.0, backend=backend)           # never converges: k = -1
    x = rng.standard_normal(2 * n)[::2]
    check(clamp_until_negative, x, backend=backend)
    check(clamp_until_negative, np.abs(x), backend=backend)
    t = np.linspace(0, 1, n)
    for level in (0.5, 5.0):
        check(first_crossing_or_nan, level, t, t ** 2, backend=backend)  # crosses / never


@pytest.mark.parametrize("n", [6, 33])
def test_return_from_a_nested_search(backend, n):
    """On XLA this gave i + 1 while XLA's region copy analysis was on by default
    (tests/backends/test_xla_loop_copies.py)."""
    rng = np.random.default_rng(n)
    a = rng.integers(0, 3 * n, n)
    for target in (a[1] + a[-1], -5):           # found (in the inner loop) / not found
        check(find_pair, target, a, np.zeros(2, np.int64), backend=backend)
        check(find_pair, np.int8(target % 100), (a % 100).astype(np.int8),
              np.zeros(2, np.int64), backend=backend)


def test_return_inside_a_loop_gives_the_value_numpy_gives_as_a_numpy_float():
    # Python returns -1.0 (a float) on one path and an np.float64 on the other; a compiled
    # function has one result type: the value is the same, the type np.float64 (a float)
    t = np.linspace(0, 1, 5)
    got = solvent.jit(first_crossing)(5.0, t, t)
    assert got == first_crossing(5.0, t, t) == -1.0 and isinstance(got, float)


def test_run_time_slices_on_xla_are_refused_with_the_line():
    with pytest.raises(solvent.UnsupportedError, match="run-time bounds") as e:
        solvent.jit(prefix_norms, backend="xla")(np.ones((3, 3)))
    src, first = inspect.getsourcelines(prefix_norms)
    lineno = first + next(k for k, s in enumerate(src) if "A[k, :k + 1]" in s)
    assert f"test_stranger_kernels.py:{lineno}:" in str(e.value)
