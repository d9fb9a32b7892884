"""``vjp_fn`` runs the gradient program without the primal results (``Gradient.grads_program``):
the outputs were computed by ``vjp``; checked against the full program and finite
differences, on a function with run-time checks."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402


def gathered(x, idx):
    return np.sum(np.sin(x[idx]) * x[idx[0]]), x * 2.0


@pytest.mark.parametrize("backend", ["interp", "native"])
def test_vjp_fn_runs_the_program_without_primal_results(backend):
    """``vjp_fn`` (the outputs known from ``vjp``) runs a program returning only the
    gradients (and the checks' code and payload: ``x[idx]`` is checked); its cotangents
    equal those of the full program."""
    from solvent.autodiff.api import _vjp_cache
    rng = np.random.default_rng(3)
    x, idx = rng.standard_normal(8), np.array([1, 5, 2])
    outs, vjp_fn = solvent.vjp(gathered, x, idx, backend=backend)
    ct = (1.5, rng.standard_normal(8))
    (gx,) = vjp_fn(ct)
    g = _vjp_cache(gathered, (0,), backend, True, None).get((x, idx))
    assert g.primal.errors
    _, full = g.run((x, idx), {0: ct[0], 1: ct[1]})
    np.testing.assert_allclose(gx, full[0], rtol=1e-15, atol=0)
    assert g.grads_program() is not g.executable
    # the gradient, the checks' code and payload; the full program returns the outputs too
    assert len(g.grads_fn.body.terminator.operands) == 3
    assert len(g.fn.body.terminator.operands) == 5
    fd = fd_grad(lambda v: float(np.sum(np.sin(v[idx]) * v[idx[0]]) * ct[0] +
                                 np.sum(v * 2.0 * ct[1])), (x,), 0)
    np.testing.assert_allclose(gx, fd, rtol=1e-6, atol=1e-8)
