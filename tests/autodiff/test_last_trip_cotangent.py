"""A carried value the loop body never reads (a residual recomputed each trip) has a
cotangent only in the reverse step of the last trip (``Transformer.reverse_loop``): that step
is peeled off and the other steps neither carry it nor run its rules. Checked against finite
differences: trip counts 0, 1, 2, a while loop that stops early on the residual, a slot
overwritten each trip, float32, strided and Fortran inputs, on native and the interpreter;
and that the gradient program runs the residual's rule in one step only."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402


def residual_for(u, w, m):
    err = 0.5 * u[0]        # the loss reads it after 0 trips
    for t in range(m):
        new = 0.5 * (u[:-2] + u[2:])
        err = np.max(np.abs(new - u[1:-1]))
        u[1:-1] = new       # the slots overwritten each trip
    return err + np.sum(u * w)


def residual_nonlinear(u, w, m):
    """The other steps read the trips' states too (a product): the tape stays, and the
    peeled step reads the last trip's values the loop carries."""
    err = 0.5 * u[0]
    for t in range(m):
        new = 0.5 * (u[:-2] * u[2:]) + 0.1
        err = np.max(np.abs(new - u[1:-1]))
        u[1:-1] = new
    return err + np.sum(u * w)


def residual_while(u, w, tol):
    err = u[0, 0] + tol + 1.0
    it = 0
    while err > tol and it < 200:
        new = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        err = np.max(np.abs(new - u[1:-1, 1:-1]))
        u[1:-1, 1:-1] = new
        it += 1
    return err * 3.0 + np.sum(u * w)


def _fd(f, args, k):
    return fd_grad(lambda *a: float(f(*[x.copy() if isinstance(x, np.ndarray) else x
                                        for x in a])), args, k)


@pytest.mark.parametrize("f", [residual_for, residual_nonlinear])
@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("m", [0, 1, 2, 7])
def test_residual_of_a_for_loop(f, backend, m):
    rng = np.random.default_rng(m)
    u, w = rng.standard_normal(9), rng.standard_normal(9)
    g = solvent.grad(f, 0, backend=backend)(u.copy(), w, m)
    np.testing.assert_allclose(g, _fd(f, (u, w, m), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_residual_of_a_while_loop_that_stops_early(backend):
    rng = np.random.default_rng(1)
    u = rng.random((7, 7)) * 0.1
    u[0, :] = 1.0
    w = rng.standard_normal((7, 7))
    tol = 1e-2
    g = solvent.grad(residual_while, 0, backend=backend)(u.copy(), w, tol)
    np.testing.assert_allclose(g, _fd(residual_while, (u, w, tol), 0), rtol=1e-6, atol=1e-8)


def test_the_residual_rule_runs_in_the_last_step_only():
    rng = np.random.default_rng(2)
    u = rng.random((7, 7)) * 0.1
    u[0, :] = 1.0
    gr = solvent.grad(residual_while, 0, backend="interp").compiled(u, np.ones((7, 7)), 1e-2)
    gr.run([u, np.ones((7, 7)), 1e-2], {})   # the tape grown to the trips taken
    reverse = [o for o in gr.fn.body.ops if o.name == "loop.for"]
    assert len(reverse) == 2   # the peeled last step, then the others
    from solvent.ir.rewrite import constant_value
    masks = [sum(1 for o in loop.walk() if o.name == "tensor.eq" and
                 constant_value(o.operands[1]) != 0)   # not a rule's zero guard
             for loop in reverse]
    assert masks[0] >= 1 and masks[1] == 0   # the reduce_max rule's mask: once
    # the peeled step reads the last trip's values the while loop carries; the other steps
    # read no state: no tape of rows is written (nor zero-filled)
    whiles = [o for o in gr.fn.walk() if o.name == "loop.while"]
    assert whiles and all(r.type.rank <= 2 for o in whiles for r in o.results)


def test_float32():
    rng = np.random.default_rng(3)
    u, w = rng.standard_normal(9).astype(np.float32), rng.standard_normal(9).astype(np.float32)
    g = solvent.grad(residual_for, 0, backend="native")(u.copy(), w, 3)
    assert g.dtype == np.float32
    fd = _fd(residual_for, (u.astype(np.float64), w.astype(np.float64), 3), 0)
    np.testing.assert_allclose(g, fd, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("layout", ["fortran", "strided"])
def test_strided_and_fortran_inputs(layout):
    rng = np.random.default_rng(4)
    u = rng.random((7, 7)) * 0.1
    u[0, :] = 1.0
    w = rng.standard_normal((7, 7))
    if layout == "fortran":
        x = np.asfortranarray(u)
    else:
        big = np.zeros((14, 14))
        big[::2, ::2] = u
        x = big[::2, ::2]
    g = solvent.grad(residual_while, 0, backend="native")(x.copy(order="K") if layout ==
                                                          "fortran" else x, w, 1e-2)
    np.testing.assert_allclose(g, _fd(residual_while, (u, w, 1e-2), 0), rtol=1e-6,
                               atol=1e-8)
