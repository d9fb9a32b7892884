"""Numba's introductory example: scalar loop accumulating tanh of the diagonal, then a broadcast add. Category: scalar-loop."""
import numpy as np


def kernel(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


def make_args(n, rng):
    return (rng.random((n, n)),)


SIZES = (8, 24)
BENCH_SIZE = 3000
JAX_PORT = "go_fast"
NUMBA_OK = True
