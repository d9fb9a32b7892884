"""Gradients on the native backend: the ops gradients make (scatter_add of a gather's
cotangent, products with a scalar operand) and copies of reads the primal speculated
(``unchecked``: they must clamp, not raise, in the gradient too), against finite
differences."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402
from solvent.corpus import cholesky  # noqa: E402


def circular(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        for k in range(w.shape[0]):
            s += w[k] * x[(i + k) % x.shape[0]] ** 2
    return s


def first_negative_weighted(x, w):
    """A search loop with break: if-conversion speculates the reads after the exit."""
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            break
        s += w[i] * np.sin(x[i])
    return s


@pytest.mark.parametrize("n, m", [(7, 3), (1, 1), (4, 6)])
def test_modular_gather_gradient_on_native(n, m):
    rng = np.random.default_rng(n)
    x, w = rng.standard_normal(n), rng.standard_normal(m)
    g = solvent.grad(circular, (0, 1), backend="native")
    assert g.compiled(x, w).backend == "native"
    gx, gw = g(x, w)
    np.testing.assert_allclose(gx, fd_grad(circular, (x, w), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, fd_grad(circular, (x, w), 1), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_speculated_reads_stay_clamped_in_the_gradient(backend):
    x = np.array([0.5, 1.5, 0.25, -1.0, 2.0])
    w = np.linspace(1.0, 2.0, 5)
    g = solvent.grad(first_negative_weighted, (0, 1), backend=backend)(x, w)
    for k in (0, 1):
        np.testing.assert_allclose(g[k], fd_grad(first_negative_weighted, (x, w), k),
                                   rtol=1e-6, atol=1e-8)


def test_cholesky_gradient_native_matches_interp():
    (a,) = cholesky.make_args(12, np.random.default_rng(0))
    ct = np.random.default_rng(1).standard_normal(a.shape)
    got = solvent.vjp(cholesky.kernel, a, backend="native")[1](ct)[0]
    want = solvent.vjp(cholesky.kernel, a, backend="interp")[1](ct)[0]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def diagonal_trace_plus(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return np.sum((a + trace) ** 2)


@pytest.mark.parametrize("backend", ["interp", "native", "xla"])
def test_gather_cotangent_scatters_into_the_other_cotangent(backend, monkeypatch):
    """The diagonal's cotangent is scattered into the broadcast's cotangent (one pass over
    the few slots), not into a zero matrix then added (two more passes over the matrix).
    (Natively the loop raised by the default pipeline: the natively raised one keeps it a
    loop, which then has no gather.)"""
    from solvent.autodiff import api
    monkeypatch.setattr(api, "NATIVE_RAISING_TAPE", None)
    a = np.random.default_rng(5).standard_normal((4, 4))
    grad = solvent.grad(diagonal_trace_plus, backend=backend)
    np.testing.assert_allclose(grad(a), fd_grad(diagonal_trace_plus, (a,), 0), rtol=1e-6,
                               atol=1e-8)
    g = grad.compiled(a).fn
    scatters = [op for op in g.walk() if op.name == "tensor.scatter_add"]
    assert scatters and all(op.operands[0].owner.name != "tensor.broadcast_to"
                            for op in scatters)


def transposed_matvec(A, y):
    return np.sum((A.T @ y) ** 2)


@pytest.mark.parametrize("backend", ["native", "xla"])
def test_transposed_product_gradient_is_written_in_place(backend):
    """A.T @ y: A's cotangent is the outer product y (x) ct, not the transpose of ct (x) y
    (a copy of the whole matrix)."""
    rng = np.random.default_rng(6)
    A, y = rng.standard_normal((5, 3)), rng.standard_normal(5)
    grad = solvent.grad(transposed_matvec, (0, 1), backend=backend)
    for k, gk in enumerate(grad(A, y)):
        np.testing.assert_allclose(gk, fd_grad(transposed_matvec, (A, y), k), rtol=1e-6,
                                   atol=1e-8)
    g = grad.compiled(A, y).fn
    assert not any(op.name == "tensor.transpose" and
                   getattr(op.operands[0].owner, "name", None) == "tensor.dot_general"
                   for op in g.walk())


def clipped_poly(x, c):
    y = ((c * x + 0.2) * x - 0.1) * x
    z = np.clip(y, -1.0, 1.0)
    # neighbours' product: z's adjoint is read at two offsets, so it is written out (an
    # elementwise-only gradient is one multi-output loop with no temporary at all)
    return np.sum(z[:, 1:] * z[:, :-1])


def test_native_gradient_keeps_large_temporaries_between_calls():
    """A native gradient keeps its temporaries (adjoints of 64 KiB and more here) between
    calls (the native backend's ``_REUSE``): a second call on other values must not see
    the first call's contents, so both equal the interpreter's gradient."""
    rng = np.random.default_rng(7)
    gn = solvent.grad(clipped_poly, (0, 1), backend="native")
    gi = solvent.grad(clipped_poly, (0, 1), backend="interp")
    xs = [rng.standard_normal((64, 256)) for _ in range(2)]
    ex = gn.compiled(xs[0], 0.3).executable
    assert any(np.prod(shape) * dt.itemsize >= 1 << 16 for _, shape, dt in ex._reused)
    for x in xs + xs[:1]:
        for a, b in zip(gn(x, 0.3), gi(x, 0.3)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _loops(fn) -> int:
    return sum(op.name == "loop.for" for op in fn.walk())


def _levinson_args(n):
    from solvent.corpus import levinson
    return levinson, levinson.make_args(n, np.random.default_rng(n))


@pytest.mark.parametrize("n", [2, 5, 12])
def test_a_gradient_of_the_natively_raised_primal_where_its_tape_stays_small(n, monkeypatch):
    """levinson's triangular loops stay exact-trip loops natively (not masked full-length
    vectors): its gradient is differentiated from that primal, whose tape grows by 1.3%, and
    matches finite differences and the interpreter's (which differentiates the default
    primal)."""
    from solvent.autodiff import api
    mod, args = _levinson_args(n)
    g = api.Gradient(mod.kernel, args, (0,))
    if n > 2:
        assert g.backend == "native"
    with monkeypatch.context() as m:
        m.setattr(api, "NATIVE_RAISING_TAPE", None)   # the default gradient only
        d = api.Gradient(mod.kernel, args, (0,))
    if n > 2:
        assert _loops(g.primal) > _loops(d.primal)   # the inner loops kept
        assert g.report["tape_bytes"] <= api.NATIVE_RAISING_TAPE * d.report["tape_bytes"]

    def loss(r, a, tmp):
        return mod.kernel(r, a, tmp)

    r = args[0]
    want = fd_grad(lambda rr: mod.kernel(rr, args[1].copy(), args[2].copy()), (r,), 0)
    got = solvent.grad(loss, 0)(*[x.copy() for x in args])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    interp = solvent.grad(loss, 0, backend="interp")(*[x.copy() for x in args])
    np.testing.assert_allclose(got, interp, rtol=1e-10, atol=1e-12)


def test_the_default_gradient_where_the_natively_raised_tape_would_grow(monkeypatch):
    """lu_nopivot natively keeps its elimination loops, which update the matrix element by
    element: differentiated, the tape would hold the matrix once per inner trip (57x);
    the default primal (masked raising) is differentiated instead."""
    from solvent.autodiff import api
    from solvent.corpus import lu_nopivot
    args = lu_nopivot.make_args(12, np.random.default_rng(0))
    g = api.Gradient(lu_nopivot.kernel, args, (0,))
    with monkeypatch.context() as m:
        m.setattr(api, "NATIVE_RAISING_TAPE", 1e9)   # always the natively raised one
        n = api.Gradient(lu_nopivot.kernel, args, (0,))
    assert n.report["tape_bytes"] > api.NATIVE_RAISING_TAPE * g.report["tape_bytes"]
    assert _loops(n.primal) > _loops(g.primal)
