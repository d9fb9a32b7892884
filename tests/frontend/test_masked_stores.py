"""``c[m] = f(x[m], ...)``: a store of masked values through the same mask is where(m,
f(x, ...), c) (passes/patterns/masks.py), so it runs on XLA too (XLA refuses any run-time
length, so being taken there shows the compaction is gone) and matches NumPy on every
backend; stores the rewrite does not cover keep their run-time lengths and their checks."""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from differential import check

BACKENDS = ["native", "xla", "interp", None]


def copy_where_positive(a, b):
    c = a.copy()
    m = b > 0
    c[m] = b[m]
    return c


def escape_step(z, c):           # the Mandelbrot update people write
    m = np.abs(z) <= 2
    z[m] = z[m] ** 2 + c[m]
    return z


def clamp_2d(A, B, lo):
    m = A < lo
    A[m] = 0.5 * (B[m] + lo)      # in place on the argument, 2-D, scalar operand
    return A.sum()


def narrowing_store(a, x):       # the values are converted on the way in (f64 -> a's dtype)
    m = x > 0.5
    a[m] = x[m] * 100
    return a


def inside_loop(a, b, steps):
    for _ in range(steps):
        m = a < b
        a[m] = a[m] + b[m] * 0.5
    return a


def _rng(seed):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [0, 1, 7])
def test_masked_copies_match_numpy(backend, n):
    rng = _rng(n)
    check(copy_where_positive, rng.standard_normal(n), rng.standard_normal(n), backend=backend)
    check(copy_where_positive, rng.standard_normal(n).astype(np.float32),
          rng.standard_normal(n).astype(np.float32), backend=backend)
    check(inside_loop, rng.random(n), rng.random(n) * 2, 4, backend=backend)
    check(narrowing_store, rng.integers(-5, 5, n).astype(np.int8), rng.random(n),
          backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mandelbrot_update_complex64_and_strided(backend):
    rng = _rng(1)
    z = (rng.standard_normal(12) + 1j * rng.standard_normal(12)).astype(np.complex64)
    c = (rng.standard_normal(24) * 2 + 1j * rng.standard_normal(24)).astype(np.complex64)
    check(escape_step, z, c[::2], backend=backend)   # z ** 2: a product (native too)
    check(escape_step, z.real.copy(), c.real[::2], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("order", ["C", "F"])
def test_two_dimensional_in_place(backend, order):
    rng = _rng(2)
    A = np.asarray(rng.standard_normal((5, 4)), order=order)
    B = np.asarray(rng.standard_normal((5, 4)), order=order)
    check(clamp_2d, A, B, 0.1, backend=backend)
    check(clamp_2d, A[:, ::-1], B.T.copy().T, -5.0, backend=backend)


def other_mask(a, b):
    c = a.copy()
    c[b > 0] = a[a > 0]          # different masks: NumPy raises unless the counts agree
    return c


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_a_store_through_another_mask_keeps_its_length_check(backend):
    a = np.array([1.0, -2.0, 3.0, -4.0])
    check(other_mask, a, np.array([1.0, 1.0, -1.0, -1.0]), backend=backend)
    f = solvent.jit(other_mask, backend=backend)
    with pytest.raises(ValueError):
        other_mask(a, np.ones(4))
    with pytest.raises(ValueError, match="shape mismatch"):
        f(a, np.ones(4))
    with pytest.raises(solvent.UnsupportedError, match="shapes are static"):
        solvent.jit(other_mask, backend="xla")(a, np.ones(4))
