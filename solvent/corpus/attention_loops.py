"""Loop twin of attention: per query a score loop, a max loop, exp and normalisation loops, and
the weighted sum of values, with one scratch row reused. Category: ml."""
import math

import numpy as np

from .attention import make_args  # noqa: F401

TWIN_OF = "attention"


def kernel(Q, K, V):
    nh, n, d = Q.shape
    scale = math.sqrt(d)
    out = np.zeros((nh, n, d))
    p = np.empty(n)
    for h in range(nh):
        for i in range(n):
            for j in range(n):
                s = 0.0
                for k in range(d):
                    s += Q[h, i, k] * K[h, j, k]
                p[j] = s / scale
            mx = p[0]
            for j in range(1, n):
                if p[j] > mx:
                    mx = p[j]
            tot = 0.0
            for j in range(n):
                p[j] = math.exp(p[j] - mx)
                tot += p[j]
            for j in range(n):
                p[j] /= tot
            for k in range(d):
                acc = 0.0
                for j in range(n):
                    acc += p[j] * V[h, j, k]
                out[h, i, k] = acc
    return out


SIZES = (2, 4)
BENCH_SIZE = 256
JAX_PORT = None
NUMBA_OK = True
