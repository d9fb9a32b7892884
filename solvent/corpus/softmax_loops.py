"""Loop twin of softmax: per row a max loop, an exp-and-sum loop and a scaling loop. Category: ml."""
import math

import numpy as np

from .softmax import make_args  # noqa: F401

TWIN_OF = "softmax"


def kernel(x):
    nb, m, n = x.shape
    out = np.empty_like(x)
    for b in range(nb):
        for i in range(m):
            mx = x[b, i, 0]
            for j in range(1, n):
                if x[b, i, j] > mx:
                    mx = x[b, i, j]
            s = 0.0
            for j in range(n):
                e = math.exp(x[b, i, j] - mx)
                out[b, i, j] = e
                s += e
            for j in range(n):
                out[b, i, j] /= s
    return out


SIZES = (3, 6)
BENCH_SIZE = 1000
JAX_PORT = None
NUMBA_OK = True
