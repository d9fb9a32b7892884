"""Row and column 2-norms, Frobenius norm and row-normalised maxima. Category: reduction."""
import numpy as np


def kernel(A):
    row = np.sqrt(np.sum(A * A, axis=1))
    col = np.sqrt((A ** 2).sum(axis=0))
    fro = np.linalg.norm(A)
    nrm = A / row[:, np.newaxis]
    return row, col, fro, nrm.max(axis=1)


def make_args(n, rng):
    return (rng.random((n, n + 3)) + 0.01,)


SIZES = (8, 24)
BENCH_SIZE = 2000
JAX_PORT = "row_col_norms"
NUMBA_OK = False  # numba: ndarray.max(axis=...) is unsupported
