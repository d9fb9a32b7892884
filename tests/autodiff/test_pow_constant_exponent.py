"""``x ** c`` with a compile-time exponent ``c`` of 1 or 2: the gradient ``c * x ** (c - 1)``
emits no pow (``rules_elementwise._pow_dx``: ``x ** 1 == x`` and ``x ** 0 == 1``
exactly). Checked against central finite differences and the dot-product test in float64,
native and interp, in a loop of 0, 1, 2 and 3 trips, and on the gradient program's ops."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402
from solvent.ir.printer import print_function  # noqa: E402


def powers(A, w, m):
    s = (A ** 2).sum(axis=0) + np.sqrt(np.sum(A * A, axis=1)).sum()
    for _ in range(m):
        A = np.sin(A) ** 2 * w + 0.5 * A ** 1 + 0.1 * np.tanh(A) ** 3
    return s.sum() + np.sum(A * w)


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("m", [0, 1, 2, 3])
def test_powers(backend, m):
    rng = np.random.default_rng(m)
    A, w = rng.standard_normal((4, 5)), rng.standard_normal(5)
    gs = solvent.grad(powers, (0, 1), backend=backend)(A, w, m)
    f = lambda *a: float(powers(*a))   # noqa: E731
    for k, g in zip((0, 1), gs):
        np.testing.assert_allclose(g, fd_grad(f, (A, w, m), k), rtol=1e-6, atol=1e-7)
    vs = [rng.standard_normal(A.shape), rng.standard_normal(w.shape)]
    jv = directional(f, (A, w, m), (0, 1), vs)
    vjw = sum(float(np.sum(v * g)) for v, g in zip(vs, gs))
    assert rel_close(jv, vjw, 1e-6, floor=1e-8), (jv, vjw)


def test_no_pow_for_squares():
    rng = np.random.default_rng(1)
    A, w = rng.standard_normal((4, 5)), rng.standard_normal(5)
    g = solvent.grad(powers, 0, backend="interp").compiled(A, w, 1)
    text = print_function(g.fn)
    # the primal's three powers of the trip (sin(A) ** 2, A ** 1, tanh(A) ** 3) and none
    # from the gradient (main 262ed8c: 4, the derivative of A ** 1 emitting A ** 0)
    assert text.count("tensor.pow") == 3, text
