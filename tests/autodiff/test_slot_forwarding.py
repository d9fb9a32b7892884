"""Reverse steps read cotangent slots before writing them (``passes/forward_slots.py``):
the carried cotangent of a column scan is read twice and written once per step, with no
read after a write (which XLA pays with a copy of the whole array each step); gradients
unchanged (finite differences), including an index that wraps onto the slot written."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402
from solvent.passes.forward_slots import late_reads  # noqa: E402


def column_scan(Y):
    for j in range(1, Y.shape[1]):
        Y[:, j] += Y[:, j - 1]
    return np.sum(Y * Y)


def wrapped_scan(y):
    for i in range(y.shape[0]):
        y[i] = y[i] * 0.5 + np.sin(y[i - 1])  # i = 0 reads the last slot; n = 1: itself
    return np.sum(y * y)


def strided_halves(y):
    for t in range(3):
        y[0::2] = y[0::2] + 0.5 * y[1::2]
        y[1::2] = y[1::2] * np.cos(y[0::2])
    return np.sum(y)


def _check(f, x, backend):
    g = solvent.grad(f, backend=backend)(x.copy())
    np.testing.assert_allclose(g, fd_grad(lambda a: f(a.copy()), (x,), 0), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("backend", ["xla", "interp", "native"])
@pytest.mark.parametrize("f, shape", [(column_scan, (4, 5)), (column_scan, (1, 2)),
                                      (wrapped_scan, (5,)), (wrapped_scan, (1,)),
                                      (strided_halves, (6,)), (strided_halves, (2,))])
def test_gradients_unchanged(backend, f, shape):
    _check(f, np.random.default_rng(2).standard_normal(shape), backend)


def test_the_scan_cotangent_is_read_before_it_is_written():
    Y = np.ones((6, 5))
    g = solvent.grad(column_scan, backend="xla").compiled(Y).fn
    assert late_reads(g) == 0
    loops = [op for op in g.body.ops if op.name == "loop.for"]
    reverse = loops[-1].regions[0].block
    names = [op.name for op in reverse.ops]
    assert names.count("tensor.update_slice") == 1 and names.count("tensor.slice") == 2
