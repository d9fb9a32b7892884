"""Sparse matrix-vector product in CSR form with NumPy slices: each row is the dot product
of its stored values with x gathered at its column indices, both slices bounded by
rowptr[i]:rowptr[i + 1] (run-time bounds read from an array). Category: sparse."""
import numpy as np


def kernel(vals, cols, rowptr, x, y):
    for i in range(y.shape[0]):
        y[i] = vals[rowptr[i]:rowptr[i + 1]] @ x[cols[rowptr[i]:rowptr[i + 1]]]
    return y


def make_args(n, rng):
    counts = rng.integers(0, 9, n)
    rowptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    nnz = int(rowptr[-1])
    return (rng.random(nnz), rng.integers(0, n, nnz), rowptr, rng.random(n), np.zeros(n))


SIZES = (6, 30)
BENCH_SIZE = 20000
JAX_PORT = None
NUMBA_OK = True
