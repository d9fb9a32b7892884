"""Loop twin of conv1d: each output element as a scalar accumulator over input channels and
taps (offset index x[c, l + k]), then bias and ReLU by an if. Category: ml."""
import numpy as np

from .conv1d import make_args  # noqa: F401

TWIN_OF = "conv1d"


def kernel(x, w, b):
    c_out, c_in, K = w.shape
    L_out = x.shape[1] - K + 1
    out = np.zeros((c_out, L_out))
    for o in range(c_out):
        for l in range(L_out):
            s = 0.0
            for c in range(c_in):
                for k in range(K):
                    s += w[o, c, k] * x[c, l + k]
            v = s + b[o]
            if v > 0.0:
                out[o, l] = v
            else:
                out[o, l] = 0.0
    return out


SIZES = (7, 8)
BENCH_SIZE = 20000
JAX_PORT = None
NUMBA_OK = True
