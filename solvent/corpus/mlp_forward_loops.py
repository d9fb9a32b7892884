"""Loop twin of mlp_forward: three dense layers as scalar accumulators, ReLU by an if and a
math.tanh output. Category: ml."""
import math

import numpy as np

from .mlp_forward import make_args  # noqa: F401

TWIN_OF = "mlp_forward"


def kernel(X, W1, b1, W2, b2, W3, b3):
    nb, d = X.shape
    h = W1.shape[1]
    o = W3.shape[1]
    h1 = np.empty((nb, h))
    h2 = np.empty((nb, h))
    out = np.empty((nb, o))
    for r in range(nb):
        for j in range(h):
            s = 0.0
            for k in range(d):
                s += X[r, k] * W1[k, j]
            s += b1[j]
            if s < 0.0:
                s = 0.0
            h1[r, j] = s
        for j in range(h):
            s = 0.0
            for k in range(h):
                s += h1[r, k] * W2[k, j]
            s += b2[j]
            if s < 0.0:
                s = 0.0
            h2[r, j] = s
        for j in range(o):
            s = 0.0
            for k in range(h):
                s += h2[r, k] * W3[k, j]
            out[r, j] = math.tanh(s + b3[j])
    return out


SIZES = (2, 5)
BENCH_SIZE = 128
JAX_PORT = None
NUMBA_OK = True
