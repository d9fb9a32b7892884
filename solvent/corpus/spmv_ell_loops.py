"""Loop twin of spmv_ell: power iteration with the ELLPACK product as a gathered scalar
accumulator (x[cols[i, k]]) and the norm by a loop; the iteration count first. Category: linalg."""
import math

import numpy as np

from .spmv_ell import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "spmv_ell"
TWIN_ARGS = (3, 0, 1, 2)  # (iters, vals, cols, x)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def kernel(iters, vals, cols, x):
    n, K = vals.shape
    cur = np.empty(n)
    y = np.empty(n)
    for i in range(n):
        cur[i] = x[i]
    for it in range(iters):
        for i in range(n):
            s = 0.0
            for k in range(K):
                s += vals[i, k] * cur[cols[i, k]]
            y[i] = s
        nrm = 0.0
        for i in range(n):
            nrm += y[i] * y[i]
        nrm = math.sqrt(nrm)
        for i in range(n):
            cur[i] = y[i] / nrm
    return cur


SIZES = (3, 6)
BENCH_SIZE = 50000
JAX_PORT = None
NUMBA_OK = True
