"""``for i in reversed(range(...))``, the countdown loop people port from C and Fortran
(refused before: "call to builtins.range is not supported"), and ``reversed(X)`` of an array.
The desugaring (frontend/desugar._reversed) computes the first element and the bound from
the range's arguments; it is checked against Python itself over a grid of bounds, empty
ranges included, for literal steps of both signs, on every backend."""
from __future__ import annotations

import numpy as np
import pytest

import solvent

from differential import check

BACKENDS = ["native", "xla", "interp"]


def visit_step1(a, b, out):
    k = 0
    for i in reversed(range(a, b)):
        out[k] = i
        k += 1
    return k


def visit_step3(a, b, out):
    k = 0
    for i in reversed(range(a, b, 3)):
        out[k] = i
        k += 1
    return k


def visit_step_minus2(a, b, out):
    k = 0
    for i in reversed(range(a, b, -2)):
        out[k] = i
        k += 1
    return k


def visit_stop_only(n, out):
    k = 0
    for i in reversed(range(n)):
        out[k] = i
        k += 1
    return k


def reversed_array(x):
    out = np.zeros_like(x)
    k = 0
    for v in reversed(x):
        out[k] = v * 2
        k += 1
    return out


def back_substitution(U, y):
    n = y.shape[0]
    x = np.zeros(n)
    for i in reversed(range(n)):
        x[i] = (y[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x


BOUNDS = [(a, b) for a in (-4, 0, 2, 5) for b in (-3, 0, 2, 5, 9)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,step", [(visit_step1, 1), (visit_step3, 3),
                                     (visit_step_minus2, -2)])
def test_countdown_visits_what_python_visits(fn, step, backend):
    f = solvent.jit(fn, backend=backend)
    for a, b in BOUNDS:
        want = list(reversed(range(a, b, step)))
        out = np.full(16, -99)
        k = f(a, b, out)
        assert k == len(want), (a, b, k, want)
        assert out[:k].tolist() == want and (out[k:] == -99).all(), (a, b, out, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_countdown_forms_match_numpy(backend):
    rng = np.random.default_rng(0)
    for n in (0, 1, 4):
        check(visit_stop_only, n, np.zeros(5), backend=backend)
        check(reversed_array, rng.random(n), backend=backend)
        check(reversed_array, np.asfortranarray(rng.random((n, 2))), backend=backend)
    U = np.triu(rng.random((5, 5))) + 2 * np.eye(5)
    if backend != "xla":   # a slice whose length follows the loop: native / interp only
        check(back_substitution, U, rng.random(5), backend=backend)
