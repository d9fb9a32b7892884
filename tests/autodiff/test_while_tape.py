"""While loops with a data-dependent trip count record a tape (buffers of a capacity grown in
powers of two when a run needs more): the reverse pass reads trip k's state instead of
re-running the loop k times from its start, so the gradient is O(n) in the trip count."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402
from solvent.autodiff.api import WHILE_CAPACITY  # noqa: E402


def decay(x, r, tol):
    """Shrink until small: the trip count depends on the data (and on r)."""
    y = x.copy()
    while np.max(np.abs(y)) > tol:
        y = r * y + 0.01 * np.sin(y)
    return np.sum(y * x)


def relax(u, tol, max_iter):
    """laplace_converge's shape: slots overwritten in place, a counter and a residual."""
    err = tol + 1.0
    it = 0
    while err > tol and it < max_iter:
        new = 0.25 * (u[:-2] + u[2:]) + 0.5 * np.cos(u[1:-1]) * 0.1
        err = np.max(np.abs(new - u[1:-1]))
        u[1:-1] = new
        it += 1
    return np.sum(u * u)


def _loops_inside_reverse_loops(fn) -> int:
    """Loops nested in another loop's body: the O(n^2) recomputation emits one per while."""
    return sum(1 for op in fn.walk() if op.name in ("loop.for", "loop.while")
               for inner in op.regions[-1].block.walk()
               if inner.name in ("loop.for", "loop.while"))


@pytest.mark.parametrize("backend", ["xla", "interp"])
@pytest.mark.parametrize("tol", [10.0, 1.0, 0.5, 1e-3])  # 0, 1, 2 and many trips
def test_taped_while_matches_finite_differences(tol, backend):
    x = np.array([0.9, -0.7, 0.3, 0.8])
    f = solvent.grad(decay, (0, 1), backend=backend)
    gx, gr = f(x, 0.8, tol)
    np.testing.assert_allclose(gx, fd_grad(decay, (x, 0.8, tol), 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gr, fd_grad(decay, (x, 0.8, tol), 1), rtol=1e-6, atol=1e-9)
    g = f.compiled(x, 0.8, tol)
    assert g.report["while_trips"] == 1
    assert _loops_inside_reverse_loops(g.fn) == 0


def test_tape_grows_when_the_trips_exceed_its_capacity():
    x = np.array([0.9, -0.7, 0.3, 0.8])
    f = solvent.grad(decay, 0, backend="xla")
    trips = 0
    y = x.copy()
    while np.max(np.abs(y)) > 1e-12:
        y = 0.8 * y + 0.01 * np.sin(y)
        trips += 1
    assert trips > WHILE_CAPACITY
    g = f(x, 0.8, 1e-12)
    assert f.compiled(x, 0.8, 1e-12).capacity == 1 << (trips - 1).bit_length()
    np.testing.assert_allclose(g, fd_grad(decay, (x, 0.8, 1e-12), 0), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_while_overwriting_slots_in_place(backend):
    u = np.linspace(0.0, 1.0, 7) ** 2

    def loss(u_):
        return relax(u_.copy(), 1e-4, 50)
    g = solvent.grad(relax, 0, backend=backend)
    np.testing.assert_allclose(g(u.copy(), 1e-4, 50), fd_grad(loss, (u,), 0), rtol=1e-6,
                               atol=1e-9)
    assert _loops_inside_reverse_loops(g.compiled(u.copy(), 1e-4, 50).fn) == 0
