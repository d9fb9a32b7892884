"""Iteration over an array's rows and over points: rows are views written through
(`for row in A: row -= row.mean()`), then a pass over points accumulating distances.
Category: misc."""
import numpy as np


def kernel(A, points, center):
    for row in A:
        row -= row.mean()
    total = 0.0
    for p in points:
        d = p - center
        total += np.sqrt(d @ d)
    for i, row in enumerate(A):
        row *= 1.0 / (i + 1)
    return total


def make_args(n, rng):
    return (rng.random((n, 5)), rng.random((n, 3)), np.array([0.5, 0.5, 0.5]))


SIZES = (4, 16)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = False
