"""Soft-thresholding by a scalar loop with if/elif/else on the data, writing into an output argument. Category: scalar-loop."""
import numpy as np


def kernel(x, y, thresh):
    total = 0.0
    npos = 0
    for i in range(x.shape[0]):
        v = x[i]
        if v > thresh:
            y[i] = v - thresh
            npos += 1
        elif v < -thresh:
            y[i] = v + thresh
        else:
            y[i] = 0.0
        total += y[i] * y[i]
    return total, npos


def make_args(n, rng):
    return (rng.standard_normal(n * n), np.zeros(n * n), 0.5)


SIZES = (8, 24)
BENCH_SIZE = 300
JAX_PORT = "soft_threshold"
NUMBA_OK = True
