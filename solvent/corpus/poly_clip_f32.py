"""A cubic polynomial by Horner's rule, clipped, over a 2-d float32 array: one pass, memory-bound. Category: elementwise (memory-bound)."""
import numpy as np


def kernel(x, c0, c1, c2, c3):
    y = ((c3 * x + c2) * x + c1) * x + c0
    return np.clip(y, -1.0, 1.0)


def make_args(n, rng):
    return (rng.standard_normal((n, 3 * n)).astype(np.float32), 0.1, -0.2, 0.3, 0.05)


SIZES = (1, 24)
BENCH_SIZE = 1500
JAX_PORT = None
NUMBA_OK = True
