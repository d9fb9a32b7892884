"""The VJP rules of sort, cumprod, scatter, triangular_solve, cholesky, eigh, svd and qr
through ``solvent.grad`` on NumPy source, on both backends: finite differences of the plain
NumPy function and the dot-product test, on edge shapes (1x1, non-square, stacks, zeros in
a product, duplicate scatter indices). Losses of eigen/singular vectors and QR factors use
sign-invariant combinations (the vectors are unique only up to sign)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import scipy.linalg

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402

BACKENDS = ["xla", "interp"]


def _cases(shapes):
    """Every shape on the interpreter, the last (the largest) on XLA as well."""
    return [(s, "interp") for s in shapes] + [(shapes[-1], "xla")]


def sort_loss(x, w):
    return np.sum(np.sort(x, axis=0) * w)


def cumprod_loss(x, w):
    return np.sum(np.cumprod(x, axis=-1) * w)


def scatter_loss(x, v, idx):
    y = x * 1.0
    y[idx] = v * v
    return np.sum(np.sin(y))


def trisolve_loss(a, y):
    return np.sum(np.cos(scipy.linalg.solve_triangular(a, y, lower=True)))


def cholesky_loss(a):
    low = np.linalg.cholesky(a)
    return np.sum(low * low * np.arange(1.0, low.shape[-1] + 1))


def eigh_loss(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * w) + np.sum((v * v) * np.arange(1.0, v.shape[-1] + 1))


def svd_loss(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(np.sqrt(s)) + np.sum(u[:, 0] * u[:, 0] * np.arange(u.shape[0])) \
        + np.sum((u * s) @ vh * a)


def svd_values_loss(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 3)


def qr_loss(a):
    q, r = np.linalg.qr(a)
    return np.sum(np.sin(q @ r)) + np.sum(r * r)


def _check(f, args, wrt, backend, rtol=1e-6):
    gs = solvent.grad(f, wrt, backend=backend)(*[a.copy() if isinstance(a, np.ndarray) else a
                                               for a in args])

    def loss(*a):
        return float(f(*[x.copy() if isinstance(x, np.ndarray) else x for x in a]))
    for k, g in zip(wrt, gs):
        np.testing.assert_allclose(g, fd_grad(loss, args, k), rtol=rtol, atol=1e-7,
                                   err_msg=f"argument {k}")
    rng = np.random.default_rng(99)
    vs = [rng.standard_normal(np.shape(args[k])) for k in wrt]
    assert rel_close(directional(loss, args, list(wrt), vs),
                     sum(float(np.sum(v * g)) for v, g in zip(vs, gs)), 1e-6, floor=1e-9)


def _spd(rng, n, batch=()):
    m = rng.standard_normal(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("shape,backend", _cases([(1,), (6,), (1, 5), (4, 3)]))
def test_sort(shape, backend):
    rng = np.random.default_rng(len(shape))
    _check(sort_loss, (rng.standard_normal(shape), rng.standard_normal(shape)), (0,), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cumprod_with_zeros(backend):
    x = np.array([[1.5, 0.0, -2.0, 0.7], [0.0, 0.0, 3.0, 1.1], [0.9, 1.2, -0.4, 0.0]])
    w = np.random.default_rng(0).standard_normal(x.shape)
    _check(cumprod_loss, (x, w), (0,), backend)
    _check(cumprod_loss, (np.array([[2.5]]), np.array([[1.0]])), (0,), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scatter_unique(backend):
    rng = np.random.default_rng(1)
    idx = np.array([4, 0, 2])
    _check(scatter_loss, (rng.standard_normal(6), rng.standard_normal(3), idx), (0, 1),
           backend)


def test_scatter_duplicates_only_the_winning_write_gets_a_cotangent():
    """NumPy's last write wins; the rule asks the backend's own scatter which write won
    (the interpreter is NumPy)."""
    rng = np.random.default_rng(2)
    idx = np.array([1, 3, 1, 1, 0])
    _check(scatter_loss, (rng.standard_normal(5), rng.standard_normal(5), idx), (0, 1),
           "interp")
    gv = solvent.grad(scatter_loss, 1, backend="interp")(rng.standard_normal(5),
                                                         np.ones(5), idx)
    assert gv[0] == 0.0 and gv[2] == 0.0 and gv[3] != 0.0


@pytest.mark.parametrize("bshape,backend", _cases([(1,), (4,), (4, 2)]))
def test_triangular_solve(bshape, backend):
    rng = np.random.default_rng(3)
    n = bshape[0]
    a = rng.standard_normal((n, n)) + 3 * np.eye(n)
    _check(trisolve_loss, (a, rng.standard_normal(bshape)), (0, 1), backend)


@pytest.mark.parametrize("shape,backend", _cases([(1, ()), (4, ()), (3, (2,))]))
def test_cholesky(shape, backend):
    _check(cholesky_loss, (_spd(np.random.default_rng(4), *shape),), (0,), backend)


@pytest.mark.parametrize("n,backend", _cases([1, 2, 5]))
def test_eigh(n, backend):
    a = np.random.default_rng(5).standard_normal((n, n))
    _check(eigh_loss, (a + a.T,), (0,), backend)


@pytest.mark.parametrize("shape,backend", _cases([(1, 1), (4, 4), (2, 4), (5, 3)]))
def test_svd(shape, backend):
    a = np.random.default_rng(6).standard_normal(shape)
    _check(svd_loss, (a,), (0,), backend)
    _check(svd_values_loss, (a,), (0,), backend)


@pytest.mark.parametrize("shape,backend", _cases([(1, 1), (4, 4), (3, 5), (5, 3)]))
def test_qr(shape, backend):
    _check(qr_loss, (np.random.default_rng(7).standard_normal(shape),), (0,), backend)
