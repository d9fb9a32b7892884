"""Per row, first column where the running sum exceeds a target (nested scalar loops with break). Category: scalar-loop."""
import numpy as np


def kernel(x, target):
    n = x.shape[0]
    m = x.shape[1]
    idx = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += x[i, j]
            if s > target:
                idx[i] = j
                break
    return idx


def make_args(n, rng):
    return (rng.random((n, n)), n / 3.0)


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = "find_first"
NUMBA_OK = True
