"""Checkpointing of long loops (``solvent.grad(..., checkpoints=)``) on the binomial (Revolve)
schedule: the schedule's forward steps are the binomial formula's (and the optimum a brute
force finds), the checkpointed gradient equals the taped one and finite differences, and a
10,000-step time loop over a state whose full tape would take 82 MB equals its taped
gradient with snapshots the transform reports as 1.2 MB."""
from __future__ import annotations

import functools
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402
from solvent.autodiff.checkpoint import (AUTO_BYTES, Schedule, binomial_cost,  # noqa: E402
                                         snapshots)


def heat(u, c, steps):
    """An explicit time loop overwriting the interior of its state each step."""
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2.0 * u[1:-1] + u[:-2]) + 0.01 * np.sin(u[1:-1])
    return np.sum(u * u)


def damped(x, w, steps):
    """A time loop carrying a whole new array each step, with a value from before it."""
    a = np.tanh(w)
    y = x.copy()
    for t in range(steps):
        y = 0.99 * y + 0.01 * np.sin(y * a)
    return np.sum(y * w)


def _fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _np_loss(f):
    return lambda *a: float(f(*_fresh(a)))


@pytest.mark.parametrize("steps,k,backend", [(0, 2, "interp"), (1, 2, "interp"),
                                             (13, 2, "interp"), (13, 5, "interp"),
                                             (13, 5, "xla")])
def test_checkpointed_equals_taped_and_finite_differences(steps, k, backend):
    rng = np.random.default_rng(steps + k)
    u, c = rng.standard_normal(6), 0.2
    taped = solvent.grad(heat, (0, 1), checkpoints=0, backend=backend)(u.copy(), c, steps)
    ck = solvent.grad(heat, (0, 1), checkpoints=k, backend=backend)
    got = ck(u.copy(), c, steps)
    np.testing.assert_allclose(got[0], taped[0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[1], taped[1], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[0], fd_grad(_np_loss(heat), (u, c, steps), 0),
                               rtol=1e-6, atol=1e-8)
    expect = [(steps, k, binomial_cost(steps, k) + 1)] if k < steps - 1 else []
    assert ck.compiled(u.copy(), c, steps).report["checkpointed"] == expect


@functools.lru_cache(None)
def _fewest_steps(n, free):
    """The fewest forward steps reversing ``n`` steps whose start is stored, with ``free``
    more snapshots: every first split tried (brute force)."""
    if n <= 1:
        return 0
    if free == 0:
        return n * (n - 1) // 2
    return min(j + _fewest_steps(n - j, free - 1) + _fewest_steps(j, free)
               for j in range(1, n))


def test_binomial_formula_is_the_optimum():
    for n in range(2, 40):
        for c in range(1, 6):
            assert binomial_cost(n, c) == _fewest_steps(n, c - 1), (n, c)


@pytest.mark.parametrize("n,c", [(2, 1), (3, 1), (11, 3), (13, 2), (39, 4), (100, 5),
                                 (900, 30), (10_000, 140), (10_000, 7)])
def test_schedule_replays_with_the_binomial_count(n, c):
    """The tables, replayed as the gradient program runs them, restore the right trip at
    every reverse step, use ``c`` snapshots (plus the last trip's state and a scratch slot)
    and run ``t(n, c) + 1`` forward steps (the forward sweep's last step, which Revolve
    leaves to the first reverse step, is the one more)."""
    s = Schedule(n, c)
    assert s.simulate() == binomial_cost(n, c) + 1
    assert s.slots == c + 2
    assert s.store_slot.max() <= c + 1


def test_gradient_program_runs_the_schedule():
    """The compiled gradient's report: the binomial count, and snapshot buffers of c + 2
    states instead of the 900-trip tape; the gradients equal the taped ones."""
    x, w = np.random.default_rng(1).standard_normal((2, 8))
    reports = {}
    for k in (0, 30, 4):
        gf = solvent.grad(damped, (0, 1), checkpoints=k, backend="xla")
        g = gf(x, w, 900)
        reports[k] = gf.compiled(x, w, 900).report
        if k == 0:
            ref = g
        else:
            np.testing.assert_allclose(g[0], ref[0], rtol=1e-12)
            np.testing.assert_allclose(g[1], ref[1], rtol=1e-12)
    state = 8 * 8
    assert reports[0]["tape_bytes"] == 900 * state
    for k in (30, 4):
        assert reports[k]["checkpointed"] == [(900, k, binomial_cost(900, k) + 1)]
        assert reports[k]["tape_bytes"] == (k + 2) * state
    assert binomial_cost(900, 30) < 3 * 900 < binomial_cost(900, 4)  # r = 3 and 7


def test_ten_thousand_steps_within_a_bounded_tape():
    """The automatic policy: 10,000 steps of a 1,024-element state would tape 82 MB; the
    gradient keeps 140 snapshots (the fewest that run the loop forward twice, binomially)
    and equals the gradient taping every step, and passes the dot-product test against
    finite differences of plain NumPy."""
    steps, n = 10_000, 1024
    rng = np.random.default_rng(0)
    u, c = rng.standard_normal(n), 0.2
    full = steps * (n - 2) * 8
    assert full > AUTO_BYTES
    assert snapshots(steps, (n - 2) * 8, None) == 140
    gf = solvent.grad(heat, (0, 1), backend="xla")
    gu, gc = gf(u.copy(), c, steps)
    report = gf.compiled(u.copy(), c, steps).report
    assert report["checkpointed"] == [(steps, 140, binomial_cost(steps, 140) + 1)]
    assert binomial_cost(steps, 140) < 2 * steps
    assert report["tape_bytes"] == 142 * n * 8 < full // 50
    taped = solvent.grad(heat, (0, 1), backend="xla", checkpoints=0)
    tu, tc = taped(u.copy(), c, steps)
    assert taped.compiled(u.copy(), c, steps).report["tape_bytes"] == full
    np.testing.assert_allclose(gu, tu, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gc, tc, rtol=1e-12)
    v = np.random.default_rng(1).standard_normal(n)
    jv = directional(_np_loss(heat), (u, c, steps), [0, 1], [v, 0.5])
    assert rel_close(jv, float(v @ gu) + 0.5 * gc, 1e-6)


def test_bad_policy_is_refused():
    with pytest.raises(ValueError, match="checkpoints"):
        solvent.grad(heat, 0, checkpoints=-1)(np.ones(4), 0.1, 20)
