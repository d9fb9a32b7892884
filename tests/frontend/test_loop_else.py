"""``for ... else`` and ``while ... else`` (were refused): the clause runs when the loop ends
without a break of its own (frontend/desugar._LoopElse), checked against Python on every
backend: the prime search of textbooks (inner loop's else), a while loop's else, a return in
the clause, a break of an inner loop that must not clear the outer loop's flag."""
from __future__ import annotations

import numpy as np
import pytest

import solvent

BACKENDS = ["native", "xla", "interp"]


def first_primes(n):
    out = np.zeros(n, dtype=np.int64)
    k = 0
    for c in range(2, 200):
        for p in range(2, c):
            if c % p == 0:
                break
        else:
            out[k] = c
            k += 1
            if k == n:
                break
    return out


def first_negative(x):
    i = 0
    while i < len(x):
        if x[i] < 0:
            break
        i += 1
    else:
        return -1.0
    return x[i]


def inner_break_only(a):
    hits = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > 0:
                break          # leaves the inner loop only: the outer else still runs
    else:
        hits += 100
    for v in a[0]:
        if v > 10:
            break
        hits += 1
    else:
        hits += 1000
    return hits


@pytest.mark.parametrize("backend", BACKENDS)
def test_loop_else(backend):
    np.testing.assert_array_equal(solvent.jit(first_primes, backend=backend)(12),
                                  first_primes(12))
    for x in (np.array([1.0, -2.0, 3.0]), np.array([1.0, 2.0]), np.zeros(0),
              np.array([3, -1], np.int8)):
        assert solvent.jit(first_negative, backend=backend)(x) == first_negative(x)
    for a in (np.array([[1.0, -1.0], [0.0, 20.0]]), np.array([[11.0, 0.0]]),
              np.asfortranarray(np.arange(6.0).reshape(2, 3))):
        assert solvent.jit(inner_break_only, backend=backend)(a) == inner_break_only(a)
