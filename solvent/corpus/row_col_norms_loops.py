"""Loop twin of row_col_norms: row and column sums of squares, the Frobenius norm and the
row-normalised maxima as scalar loops. Category: reduction."""
import math

import numpy as np

from .row_col_norms import make_args  # noqa: F401

TWIN_OF = "row_col_norms"


def kernel(A):
    m, n = A.shape
    row = np.empty(m)
    col = np.empty(n)
    mx = np.empty(m)
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += A[i, j] * A[i, j]
        row[i] = math.sqrt(s)
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += A[i, j] ** 2
        col[j] = math.sqrt(s)
    fro2 = 0.0
    for i in range(m):
        for j in range(n):
            fro2 += A[i, j] * A[i, j]
    for i in range(m):
        best = A[i, 0] / row[i]
        for j in range(1, n):
            v = A[i, j] / row[i]
            if v > best:
                best = v
        mx[i] = best
    return row, col, np.sqrt(fro2), mx


SIZES = (3, 6)
BENCH_SIZE = 1500
JAX_PORT = None
NUMBA_OK = True
