"""Checkpointing of long loops (``solvent.grad(..., checkpoints=)``): the checkpointed gradient
equals the taped one, matches finite differences, and a 10,000-step time loop over a state
whose full tape would take 82 MB runs with tapes the transform reports as 1.6 MB."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402
from solvent.autodiff.checkpoint import AUTO_BYTES, segments  # noqa: E402


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
    expect = [(steps, k, steps // k)] if steps // k >= 2 else []
    assert ck.compiled(u.copy(), c, steps).report["checkpointed"][:1] == expect


def test_multi_level_schedule_shrinks_the_tape():
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
    # 30 checkpoints of the state, a 30-step segment tape: 60 states, not 900
    assert reports[30]["checkpointed"] == [(900, 30, 30)]
    assert reports[30]["tape_bytes"] == 60 * state
    # 4 per level: 900 -> 225 -> 56 -> 14 -> 3 trips, each level 4 checkpoints
    assert [c[0] for c in reports[4]["checkpointed"]] == [900, 225, 56, 14]
    assert reports[4]["tape_bytes"] < 25 * state


def test_ten_thousand_steps_within_a_bounded_tape():
    """The automatic policy: 10,000 steps of a 1,024-element state would tape 82 MB; the
    gradient keeps 100 checkpoints and one 100-step segment tape (1.6 MB) and matches the
    dot-product test against finite differences of plain NumPy."""
    steps, n = 10_000, 1024
    rng = np.random.default_rng(0)
    u, c = rng.standard_normal(n), 0.2
    full = steps * n * 8
    assert full > AUTO_BYTES
    assert segments(steps, n * 8, None) == 100
    gf = solvent.grad(heat, (0, 1), backend="xla")
    gu, gc = gf(u.copy(), c, steps)
    report = gf.compiled(u.copy(), c, steps).report
    assert report["checkpointed"] == [(steps, 100, 100)]
    # tapes: 100 checkpoints of u, and the segment's 100 trips of u's interior
    assert report["tape_bytes"] <= 2 * 100 * n * 8 < full // 40
    v = np.random.default_rng(1).standard_normal(n)
    jv = directional(_np_loss(heat), (u, c, steps), [0, 1], [v, 0.5])
    assert rel_close(jv, float(v @ gu) + 0.5 * gc, 1e-6)


def test_bad_policy_is_refused():
    with pytest.raises(ValueError, match="checkpoints"):
        solvent.grad(heat, 0, checkpoints=-1)(np.ones(4), 0.1, 20)
