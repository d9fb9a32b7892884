"""`return` under run-time conditions (early returns), in kernels and inlined helpers."""
import numpy as np
import pytest

import solvent
from differential import case, run_cases


def sign_of(x):
    if x > 0:
        return 1.0
    elif x < 0:
        return -1.0
    return 0.0


def clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


def uses_helpers(A, lo, hi):
    out = np.empty_like(A)
    for i in range(A.shape[0]):
        out[i] = clamp(A[i], lo, hi) * sign_of(A[i])
    return out


def early_tuple(a, b):
    s, t = a * 2.0, b + 1.0
    if s.sum() > t.sum():
        return s, t.sum()
    return t, s.sum()


def early_return_then_mutation(A, k):
    if k > 2:
        return A.sum()
    A[0] = 5.0
    return A.sum() * 2.0


def falls_off_the_end(x):
    if x > 0:
        return x


rng = np.random.default_rng(3)
test_returns = run_cases([
    case(sign_of, 2.0, id="sign_pos"),
    case(sign_of, -2.0, id="sign_neg"),
    case(sign_of, 0.0, id="sign_zero"),
    case(uses_helpers, rng.standard_normal(8), -0.5, 0.7),
    case(early_tuple, rng.random(4), rng.random(4) + 0.5, id="early_tuple_first"),
    case(early_tuple, rng.random(4) + 3.0, rng.random(4), id="early_tuple_second"),
    case(early_return_then_mutation, rng.random(5), 1, id="mutation_runs"),
    case(early_return_then_mutation, rng.random(5), 7, id="mutation_skipped"),
])


def test_falling_off_the_end_on_some_paths_is_refused():
    with pytest.raises(solvent.UnsupportedError, match="falls off"):
        solvent.jit(falls_off_the_end)(1.0)
