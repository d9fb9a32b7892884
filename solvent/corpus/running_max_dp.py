"""Maximum subarray sum (Kadane) per row and a running best: a scalar recurrence with
`max`, over a 2-D array's rows. Category: sequential."""
import numpy as np


def kernel(X, best):
    for r in range(X.shape[0]):
        cur = X[r, 0]
        b = X[r, 0]
        for j in range(1, X.shape[1]):
            cur = max(X[r, j], cur + X[r, j])
            b = max(b, cur)
        best[r] = b
    return best


def make_args(n, rng):
    return (rng.standard_normal((n, 2 * n + 1)), np.zeros(n))


SIZES = (4, 15)
BENCH_SIZE = 500
JAX_PORT = None
NUMBA_OK = True
