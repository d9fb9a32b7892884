"""Sparse matrix-vector product in CSR form with scalar loops: each row's loop runs from
rowptr[i] to rowptr[i+1] (run-time bounds read from an array). Category: sparse."""
import numpy as np


def kernel(rowptr, cols, vals, x, y):
    m = y.shape[0]
    for i in range(m):
        s = 0.0
        for k in range(rowptr[i], rowptr[i + 1]):
            s += vals[k] * x[cols[k]]
        y[i] = s
    return y


def make_args(n, rng):
    counts = rng.integers(0, 5, n)
    rowptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    nnz = int(rowptr[-1])
    return (rowptr, rng.integers(0, n, nnz), rng.random(nnz), rng.random(n), np.zeros(n))


SIZES = (6, 30)
BENCH_SIZE = 20000
JAX_PORT = None
NUMBA_OK = True
