"""A taped loop's writes at indices made of loop variables (``u[i + 1] = ...``, knapsack's
``best[i + 1, c]``) record only the old slot's value: the reverse step rebuilds the index
from the induction variables (``Transformer._rebuildable``), where a data-dependent index
(``u[idx[i]]``) is still taped. Checked against central finite differences and the
dot-product test <J v, w> = <v, J^T w> in float64, trip counts 0, 1, 2 and more, native and
interp, and on the tape sizes."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402


def shift_write(u, w, m):
    """A recurrence writing the slot after the one it reads: index ``i + 1``."""
    u = u.copy()
    for i in range(m):
        u[i + 1] = np.sin(u[i + 1]) + u[i] * w[i]
    return u * u


def nested(A, w, m):
    """An inner recurrence whose range starts at the outer variable (``range(k + 1, n)``),
    the outer loop striding by 2: the write index ``(k + 1, j)`` rebuilt from both."""
    A = A.copy()
    for k in range(0, m, 2):
        for j in range(k + 1, A.shape[1]):
            A[k + 1, j] = A[k + 1, j - 1] * w[j] + np.sin(A[k, j]) * A[k + 1, j]
    return A * A


def data_index(u, idx, w, m):
    """A write at an index read from an array: taped, as before."""
    u = u.copy()
    for i in range(m):
        u[idx[i]] = u[idx[i]] * w[i] + np.cos(u[i])
    return u * u


def shift_sum(u, w, m):
    return np.sum(shift_write(u, w, m))


def data_sum(u, idx, w, m):
    return np.sum(data_index(u, idx, w, m))


def _loss(f, ws):
    def loss(*a):
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in a]
        return float(np.sum(f(*a) * ws))
    return loss


def _check(f, args, wrt, backend, seed):
    """Finite differences of every float argument and the dot-product test."""
    rng = np.random.default_rng(seed)
    out = f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    ws = rng.standard_normal(out.shape)
    outs, vjp_fn = solvent.vjp(f, *[a.copy() if isinstance(a, np.ndarray) else a
                                    for a in args], argnums=wrt, backend=backend)
    np.testing.assert_allclose(outs, out, rtol=1e-12, atol=1e-12)
    gs = vjp_fn(ws)
    loss = _loss(f, ws)
    for k, g in zip(wrt, gs):
        np.testing.assert_allclose(g, fd_grad(loss, args, k), rtol=1e-6, atol=1e-7)
    vs = [rng.standard_normal(args[k].shape) for k in wrt]
    jv = directional(loss, args, wrt, vs)   # <J v, w> by central differences
    vjw = sum(float(np.sum(v * g)) for v, g in zip(vs, gs))   # <v, J^T w>
    assert rel_close(jv, vjw, 1e-6, floor=1e-8), (jv, vjw)


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("m", [0, 1, 2, 5])
def test_a_write_at_the_loop_variable(backend, m):
    rng = np.random.default_rng(m)
    u, w = rng.standard_normal(7), rng.standard_normal(6)
    _check(shift_write, (u, w, m), (0, 1), backend, m)


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("m", [0, 1, 2, 5])
def test_an_inner_range_from_the_outer_variable(backend, m):
    rng = np.random.default_rng(10 + m)
    A, w = rng.standard_normal((7, 6)), rng.standard_normal(6)
    _check(nested, (A, w, m), (0, 1), backend, m)


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("m", [0, 1, 2, 5])
def test_a_data_dependent_index_is_still_right(backend, m):
    rng = np.random.default_rng(20 + m)
    u, w = rng.standard_normal(7), rng.standard_normal(6)
    idx = rng.integers(0, 7, 6)
    _check(data_index, (u, idx, w, m), (0, 2), backend, m)


def knapsack(weights, values, capacity):
    n = len(weights)
    best = np.zeros((n + 1, capacity + 1))
    for i in range(n):
        for c in range(capacity + 1):
            best[i + 1, c] = best[i, c]
            if weights[i] <= c:
                best[i + 1, c] = max(best[i, c], best[i, c - weights[i]] + values[i])
    return best[n, capacity]


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("n", [0, 1, 2, 6])
def test_knapsack(backend, n):
    rng = np.random.default_rng(30 + n)
    wt, vals = rng.integers(1, 5, n), rng.standard_normal(n)
    g = solvent.grad(knapsack, 1, backend=backend)(wt, vals, 10)
    loss = lambda *a: float(knapsack(*a))   # noqa: E731
    np.testing.assert_allclose(g, fd_grad(loss, (wt, vals, 10), 1), rtol=1e-6, atol=1e-7)


def test_only_the_old_values_are_taped():
    """Knapsack's per-cell tape holds the cell's old float64 only: less than one float64
    and one i64 index per cell (its two indices were taped before: 2024 bytes here)."""
    rng = np.random.default_rng(3)
    n, cap = 6, 10
    wt, vals = rng.integers(1, 5, n), rng.standard_normal(n)
    g = solvent.grad(knapsack, 1, backend="interp").compiled(wt, vals, cap)
    assert g.report["tape_bytes"] < 16 * n * (cap + 1)
