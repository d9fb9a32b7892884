"""Element-wise Euclidean gcd of int64 arrays with a data-dependent scalar while loop and %. Category: scalar-loop."""
import numpy as np


def kernel(a, b):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        while y != 0:
            t = x % y
            x = y
            y = t
        out[i] = x
    return out


def make_args(n, rng):
    return (rng.integers(1, 1000000, size=n * n), rng.integers(1, 1000000, size=n * n))


SIZES = (8, 24)
BENCH_SIZE = 150
JAX_PORT = "gcd_pairs"
NUMBA_OK = True
