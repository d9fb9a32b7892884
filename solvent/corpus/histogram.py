"""Histogram by a scalar for loop with counts[idx] += 1, skipping out-of-range samples with continue. Category: scalar-loop."""
import numpy as np


def kernel(x, nbins, lo, hi):
    counts = np.zeros(nbins, dtype=np.int64)
    idx = np.floor((x - lo) * (nbins / (hi - lo))).astype(np.int64)
    for i in range(x.shape[0]):
        b = idx[i]
        if b < 0 or b >= nbins:
            continue
        counts[b] += 1
    return counts


def make_args(n, rng):
    return (rng.standard_normal(n * n), 32, -2.0, 2.0)


SIZES = (8, 24)
BENCH_SIZE = 300
JAX_PORT = "histogram"
NUMBA_OK = True
