"""A taped loop whose body writes one window twice (``best[i + 1, c] = best[i, c]`` then
``best[i + 1, c] = max(...)``) records the window's old value once: the first write's undo
restores it (``Transformer._record_trip``). Checked on the tape sizes and against finite
differences: trip counts 0, 1, 2, float32, strided and Fortran inputs, native and interp."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402


def twice(A, w, m):
    for i in range(m):
        for c in range(A.shape[1]):
            A[i + 1, c] = A[i, c]
            if c > 0:
                A[i + 1, c] = max(A[i, c], A[i, c - 1] * 0.9 + w[c])
    return np.sum(A * A)


def once(A, w, m):
    for i in range(m):
        for c in range(A.shape[1]):
            A[i + 1, c] = max(A[i, c], A[i, c - 1] * 0.9 + w[c]) if c > 0 else A[i, c]
    return np.sum(A * A)


def _fd(f, args, k):
    return fd_grad(lambda *a: float(f(*[x.copy() if isinstance(x, np.ndarray) else x
                                        for x in a])), args, k)


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("m", [0, 1, 2, 4])
def test_a_window_written_twice_per_trip(backend, m):
    rng = np.random.default_rng(m)
    A, w = rng.standard_normal((5, 6)), rng.standard_normal(6)
    for k in (0, 1):
        g = solvent.grad(twice, k, backend=backend)(A.copy(), w, m)
        np.testing.assert_allclose(g, _fd(twice, (A, w, m), k), rtol=1e-6, atol=1e-8)


def test_the_window_is_recorded_once():
    rng = np.random.default_rng(1)
    A, w = rng.standard_normal((5, 6)), rng.standard_normal(6)
    tapes = []
    for f in (twice, once):
        g = solvent.grad(f, 0, backend="interp").compiled(A.copy(), w, 4)
        tapes.append(g.report["tape_bytes"])
    assert tapes[0] <= tapes[1]   # no more than the program with one write


@pytest.mark.parametrize("layout", ["float32", "fortran", "strided"])
def test_layouts(layout):
    rng = np.random.default_rng(2)
    A, w = rng.standard_normal((5, 6)), rng.standard_normal(6)
    x = A
    if layout == "float32":
        x, w32 = A.astype(np.float32), w.astype(np.float32)
        g = solvent.grad(twice, 0, backend="native")(x.copy(), w32, 3)
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, _fd(twice, (x.astype(np.float64),
                                                  w32.astype(np.float64), 3), 0),
                                   rtol=2e-3, atol=2e-3)
        return
    if layout == "fortran":
        x = np.asfortranarray(A)
    else:
        big = np.zeros((10, 12))
        big[::2, ::2] = A
        x = big[::2, ::2]
    g = solvent.grad(twice, 0, backend="native")(x.copy(order="K") if layout == "fortran"
                                                 else x, w, 3)
    np.testing.assert_allclose(g, _fd(twice, (A, w, 3), 0), rtol=1e-6, atol=1e-8)
