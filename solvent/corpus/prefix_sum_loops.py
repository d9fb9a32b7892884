"""Loop twin of prefix_sum: a running scalar sum, and the matrix scan as a scalar double loop
(genuine dependences on the previous element and column). Category: reduction."""
import numpy as np

from .prefix_sum import make_args  # noqa: F401

TWIN_OF = "prefix_sum"


def kernel(x, Y):
    n = x.shape[0]
    c = np.empty(n)
    run = 0.0
    for i in range(n):
        run += x[i]
        c[i] = run
    m, p = Y.shape
    for j in range(1, p):
        for i in range(m):
            Y[i, j] += Y[i, j - 1]
    return c, c[n - 1] - Y[m - 1, p - 1]


SIZES = (3, 6)
BENCH_SIZE = 1500
JAX_PORT = None
NUMBA_OK = True
