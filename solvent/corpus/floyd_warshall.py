"""All-pairs shortest paths with a loop over pivots and np.add.outer (PolyBench floyd-warshall). Category: linalg."""
import numpy as np


def kernel(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path, np.add.outer(path[:, k], path[k, :]))


def make_args(n, rng):
    return (rng.random((n, n)) * 10.0,)


SIZES = (8, 24)
BENCH_SIZE = 300
JAX_PORT = "floyd_warshall"
NUMBA_OK = False  # numba: ufunc.outer (np.add.outer) is unsupported
