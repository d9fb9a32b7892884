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


def implicit_steps(x, steps, tol, a=0.3):
    """A time loop whose every step solves a fixed point by iterating until the update is
    small (an implicit step): a while loop nested in a for loop."""
    y = x.copy()
    for t in range(steps):
        z = y.copy()
        d = tol + 1.0
        while d > tol:
            z_new = 0.5 * y + a * z + 0.01 * np.sin(z)
            d = np.max(np.abs(z_new - z))
            z = z_new
        y = z
    return np.sum(y * y)


def while_in_while(x, tol):
    """An outer iteration whose trips depend on the data, each with an inner one."""
    y = x.copy()
    while np.max(np.abs(y)) > 0.5:
        z = y.copy()
        while np.max(np.abs(z)) > tol * np.max(np.abs(y)):
            z = 0.5 * z + 0.01 * np.sin(z)
        y = 0.7 * y + 0.1 * z
    return np.sum(y * x)


def while_in_if_in_for(x, c):
    s = 0.0
    y = x.copy()
    for t in range(3):
        if np.sum(y) * t > c:
            while np.max(np.abs(y)) > 0.3:
                y = 0.6 * y + 0.05 * np.cos(y)
        else:
            y = y * 1.1
        s = s + np.sum(y * x)
    return s


NESTED = [(implicit_steps, (np.array([0.3, -0.8, 1.2, 0.1]), 4, 1e-9), (0,)),
          (while_in_while, (np.array([2.0, -1.5, 0.9]), 0.01), (0,)),
          (while_in_if_in_for, (np.array([0.9, 0.4, 0.7]), -1.0), (0,)),
          (while_in_if_in_for, (np.array([0.9, 0.4, 0.7]), 100.0), (0,))]


@pytest.mark.parametrize("backend", ["xla", "interp"])
@pytest.mark.parametrize("case", range(len(NESTED)))
def test_nested_while_records_a_tape(case, backend):
    """A while loop inside another loop (or an if inside one) records its tape in each
    reverse step that recomputes it, and reports its most trips to the gradient's caller:
    no loop is reversed by re-running it from its start."""
    f, args, nums = NESTED[case]
    gf = solvent.grad(f, nums, backend=backend)
    got = gf(*args)
    for k, g in zip(nums, got):
        np.testing.assert_allclose(g, fd_grad(f, args, k), rtol=1e-6, atol=1e-9)
    g = gf.compiled(*args)
    assert g.report["recomputed_loops"] == 0
    assert g.report["while_trips"] >= 1


def test_nested_while_tape_grows():
    """An inner while of more trips than the first capacity: the gradient is rebuilt with a
    capacity covering the largest inner trip count."""
    x = np.array([0.3, -0.8, 1.2, 0.1])
    args = (x, 2, 1e-10, 0.9)  # contracting by about 0.9 a trip: ~200 inner trips
    y, most = x.copy(), 0
    for t in range(2):
        z, d, trips = y.copy(), 1.0, 0
        while d > 1e-10:
            z_new = 0.5 * y + 0.9 * z + 0.01 * np.sin(z)
            d, z, trips = np.max(np.abs(z_new - z)), z_new, trips + 1
        y, most = z, max(most, trips)
    assert most > WHILE_CAPACITY
    gf = solvent.grad(implicit_steps, (0, 3), backend="xla")
    gx, ga = gf(*args)
    np.testing.assert_allclose(gx, fd_grad(implicit_steps, args, 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ga, fd_grad(implicit_steps, args, 3), rtol=1e-6, atol=1e-9)
    assert gf.compiled(*args).capacity == 1 << (most - 1).bit_length()


def triangular(x, m):
    """An inner loop whose trip count depends on the outer one's index (a run-time count)
    carrying a nonlinear recurrence: taped like a while loop, not re-run from its start."""
    n = x.shape[0]
    s = 0.0
    for i in range(m):
        t = x[i % n]
        for j in range(i, m):
            t = np.sin(t) * x[j % n] + 0.5 * t
        s = s + t * t
    return s


@pytest.mark.parametrize("backend", ["xla", "interp", "native"])
@pytest.mark.parametrize("m", [0, 1, 5, 70])  # 70: more inner trips than the first capacity
def test_run_time_trip_count_loop_records_a_tape(m, backend):
    x = np.random.default_rng(m).uniform(-1, 1, 6)
    gf = solvent.grad(triangular, 0, backend=backend)
    np.testing.assert_allclose(gf(x, m), fd_grad(triangular, (x, m), 0), rtol=1e-6,
                               atol=1e-9)
    g = gf.compiled(x, m)
    assert g.report["recomputed_loops"] == 0
    assert g.capacity == (WHILE_CAPACITY if m <= WHILE_CAPACITY else 128)
