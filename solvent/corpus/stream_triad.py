"""STREAM triad a = b + s c into an existing output array, float64. Category: elementwise (memory-bound)."""
import numpy as np


def kernel(a, b, c, s):
    a[:] = b + s * c


def make_args(n, rng):
    return (np.zeros(n * n), rng.standard_normal(n * n), rng.standard_normal(n * n), 3.0)




SIZES = (1, 24)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
