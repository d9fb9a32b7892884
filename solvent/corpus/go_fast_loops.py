"""Loop twin of go_fast: the trace of tanh, then the broadcast add as a scalar double loop. Category: scalar-loop."""
import math

import numpy as np

from .go_fast import make_args  # noqa: F401

TWIN_OF = "go_fast"


def kernel(a):
    n, m = a.shape
    trace = 0.0
    for i in range(n):
        trace += math.tanh(a[i, i])
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = a[i, j] + trace
    return out


SIZES = (3, 6)
BENCH_SIZE = 3000
JAX_PORT = None
NUMBA_OK = True
