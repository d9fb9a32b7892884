"""Boolean-mask selection then reductions: the entries inside a band (a data-dependent
count), their sum of squares, their mean and their count. Category: reduction."""
import numpy as np


def kernel(z, lo, hi):
    inside = z[(z > lo) & (z < hi)]
    n = len(inside)
    return np.sum(inside * inside), inside.sum() / max(n, 1), n


def make_args(n, rng):
    return (rng.standard_normal(n) * 2, -1.0, 1.5)


SIZES = (7, 100)
BENCH_SIZE = 1_000_000
JAX_PORT = None
NUMBA_OK = True
