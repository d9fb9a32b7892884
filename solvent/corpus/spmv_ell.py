"""Power iteration with an ELLPACK sparse matrix-vector product (integer-array gather). Category: linalg."""
import numpy as np


def kernel(vals, cols, x, iters):
    for it in range(iters):
        y = np.sum(vals * x[cols], axis=1)
        x = y / np.sqrt(np.sum(y * y))
    return x


def make_args(n, rng):
    k = 8
    return (rng.random((n, k)), rng.integers(0, n, size=(n, k)), rng.random(n), 10)


SIZES = (8, 24)
BENCH_SIZE = 100000
JAX_PORT = "spmv_ell"
NUMBA_OK = True
