"""Loop twin of layernorm: two-pass mean and variance per row, then the affine map; eps first. Category: ml."""
import math

import numpy as np

from .layernorm import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "layernorm"
TWIN_ARGS = (3, 0, 1, 2)  # (eps, x, gamma, beta)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def kernel(eps, x, gamma, beta):
    nb, m, n = x.shape
    out = np.empty_like(x)
    for b in range(nb):
        for i in range(m):
            s = 0.0
            for j in range(n):
                s += x[b, i, j]
            mean = s / n
            v = 0.0
            for j in range(n):
                d = x[b, i, j] - mean
                v += d * d
            den = math.sqrt(v / n + eps)
            for j in range(n):
                out[b, i, j] = gamma[j] * (x[b, i, j] - mean) / den + beta[j]
    return out


SIZES = (3, 6)
BENCH_SIZE = 600
JAX_PORT = None
NUMBA_OK = True
