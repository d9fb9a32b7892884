"""Integer (int64) hashing rounds with *, +, // and % kept far from overflow. Category: misc."""
import numpy as np


def kernel(a, b, rounds):
    h = a.copy()
    for r in range(rounds):
        h = (h * 31 + b) % 1000003
        h = h + (h // 7) % 13
    q = h // 97
    rem = h % 97
    return h, q, rem, np.sum(h % 2)


def make_args(n, rng):
    return (rng.integers(0, 1000000, size=(n, n)), rng.integers(0, 1000, size=(n, n)), 8)


SIZES = (8, 24)
BENCH_SIZE = 600
JAX_PORT = "int_hash"
NUMBA_OK = True
