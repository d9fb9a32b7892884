"""A reverse step reads the arrays its trip wrote past the recomputed writes
(``analysis/forwarding.py``): no whole-array copy per trip, same gradients (finite
differences), and no forwarding where an index may wrap onto the written slot."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402


def dp_rows(a, w):
    n, m = a.shape
    for i in range(n - 1):
        for c in range(1, m):  # a scan along the row: stays a loop
            a[i + 1, c] = a[i, c] * w[c]
            a[i + 1, c] = a[i + 1, c] + np.sin(a[i + 1, c - 1]) + a[i, c - 1]
    return np.sum(a[n - 1] * a[n - 1])


def wrap_rows(a):
    n, m = a.shape
    for i in range(n):
        for c in range(m):
            a[i, c] = a[i, c] * 0.5
            a[i, c] = a[i, c] + np.cos(a[i - 1, c])  # i = 0 reads the last row (n = 1: itself)
    return np.sum(a * a)


def _check(f, args, k, backend):
    g = solvent.grad(f, k, backend=backend)(*[np.array(x, copy=True) for x in args])
    exp = fd_grad(lambda *a: f(*[np.array(x, copy=True) for x in a]), args, k)
    np.testing.assert_allclose(g, exp, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("backend", ["interp", "native"])
@pytest.mark.parametrize("shape", [(4, 5), (2, 1), (1, 3)])
def test_dp_rows_gradient(backend, shape):
    rng = np.random.default_rng(3)
    a, w = rng.standard_normal(shape), rng.standard_normal(shape[1])
    _check(dp_rows, (a, w), 0, backend)
    _check(dp_rows, (a, w), 1, backend)


@pytest.mark.parametrize("backend", ["interp", "native"])
@pytest.mark.parametrize("shape", [(3, 4), (1, 2)])
def test_wrapping_index_is_not_forwarded(backend, shape):
    a = np.random.default_rng(4).standard_normal(shape)
    _check(wrap_rows, (a,), 0, backend)


def test_recomputed_write_read_only_by_slices_is_gone():
    """The reverse step of dp_rows reads slots (i, c), (i + 1, c - 1), (i, c - 1) of the
    trip's state without rebuilding the write of slot (i + 1, c): no update_slice of the gradient is used only by
    reads (that write would copy the whole array each trip on the native backend, which
    updates in place)."""
    a, w = np.ones((5, 6)), np.ones(6)
    g = solvent.grad(dp_rows, 0, backend="interp").compiled(a, w).fn
    users: dict = {}
    for op in g.walk():
        for v in op.operands:
            users.setdefault(v, set()).add(op.name)
    for op in g.walk():
        if op.name == "tensor.update_slice" and op.results[0].type.rank == 2:
            assert users.get(op.results[0]) != {"tensor.slice"}, \
                "a recomputed write is read back in the reverse step"
