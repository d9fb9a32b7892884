"""What the gradient program keeps and copies (issue 11's cheap-gradient principle), checked
on the IR and against finite differences: a long linear time loop whose reverse steps read no
state records no tape and is not checkpointed; a transpose read by a product and by its
rule's product is not materialized."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402
from solvent.autodiff.checkpoint import AUTO_BYTES  # noqa: E402


def smooth(u, c, steps):
    """A linear time loop: the reverse step's cotangents need none of the states."""
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * np.arange(u.shape[0]))


def wavy(u, c, steps):
    """The same loop made nonlinear: its reverse steps read the states."""
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2.0 * u[1:-1] + u[:-2]) + 0.01 * np.sin(u[1:-1])
    return np.sum(u * np.arange(u.shape[0]))


def _loss(f):
    return lambda u, c, steps: float(f(u.copy(), c, steps))


def test_linear_loop_over_the_budget_keeps_no_tape():
    """10,000 steps of a 1,024-element state would tape 82 MB (over the automatic budget):
    with respect to ``u`` only (``c`` a constant), nothing is taped or checkpointed, and the
    gradient passes the dot-product test against finite differences of NumPy."""
    steps, n = 10_000, 1024
    assert steps * (n - 2) * 8 > AUTO_BYTES
    rng = np.random.default_rng(3)
    u, c = rng.standard_normal(n), 0.1
    gf = solvent.grad(smooth, 0)
    g = gf(u.copy(), c, steps)
    report = gf.compiled(u.copy(), c, steps).report
    assert report["checkpointed"] == [] and report["tape_bytes"] == 0
    v = rng.standard_normal(n)
    assert rel_close(directional(_loss(smooth), (u, c, steps), [0], [v]), float(v @ g), 1e-6)


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_state_read_by_the_reverse_pass_is_still_checkpointed(backend):
    """With ``c`` differentiated too (its cotangent reads every state) and the nonlinear
    loop, the tape is kept, and a forced budget checkpoints it; both equal finite
    differences."""
    rng = np.random.default_rng(4)
    u, c, steps = rng.standard_normal(7), 0.2, 9
    for f in (smooth, wavy):
        taped = solvent.grad(f, (0, 1), checkpoints=0, backend=backend)
        ck = solvent.grad(f, (0, 1), checkpoints=2, backend=backend)
        gt, gk = taped(u.copy(), c, steps), ck(u.copy(), c, steps)
        assert taped.compiled(u.copy(), c, steps).report["tape_bytes"] > 0
        assert ck.compiled(u.copy(), c, steps).report["checkpointed"]
        for a, b in zip(gt, gk):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gt[0], fd_grad(_loss(f), (u, c, steps), 0),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gt[1], fd_grad(_loss(f), (u, c, steps), 1),
                                   rtol=1e-6, atol=1e-8)


def test_linear_loop_under_a_forced_budget_is_not_checkpointed():
    """``checkpoints=k`` on a loop whose reverse steps read no state: nothing to snapshot."""
    u = np.random.default_rng(5).standard_normal(6)
    gf = solvent.grad(smooth, 0, checkpoints=2, backend="interp")
    g = gf(u.copy(), 0.3, 8)
    assert gf.compiled(u.copy(), 0.3, 8).report["checkpointed"] == []
    np.testing.assert_allclose(g, fd_grad(_loss(smooth), (u, 0.3, 8), 0), rtol=1e-6, atol=1e-8)


def chain(A, B, x):
    return A @ (B.T @ x)


def chain_loss(A, B, x, w):
    return np.sum((A @ (B.T @ x)) * w)


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_transpose_read_by_two_products_is_not_copied(backend):
    """``B.T`` is read by the product and by the product's cotangent rule: the gradient
    program's products read ``B`` with the contracted dims renamed, with no transpose op;
    the cotangents equal finite differences (non-square shapes, Fortran-ordered ``B``)."""
    rng = np.random.default_rng(6)
    A = rng.standard_normal((3, 4))
    B = np.asfortranarray(rng.standard_normal((5, 4)))
    x = rng.standard_normal(5)
    ct = rng.standard_normal(3)
    out, vjp_fn = solvent.vjp(chain, A, B, x, backend=backend)
    np.testing.assert_allclose(out, chain(A, B, x), rtol=1e-13)
    got = vjp_fn(ct)
    g = solvent.grad(chain_loss, (0, 1, 2), backend=backend).compiled(A, B, x, ct)
    assert not [op for op in g.fn.walk() if op.name == "tensor.transpose"]
    for k, arg in enumerate((A, B, x)):
        ref = fd_grad(lambda *a: float(chain(*a) @ ct), (A, B, x), k)
        np.testing.assert_allclose(got[k], ref, rtol=1e-6, atol=1e-8)
