"""Valid multi-channel 1-D convolution as a loop over filter taps, plus bias and ReLU. Category: ml."""
import numpy as np


def kernel(x, w, b):
    K = w.shape[2]
    L_out = x.shape[1] - K + 1
    out = np.zeros((w.shape[0], L_out))
    for k in range(K):
        out += w[:, :, k] @ x[:, k:k + L_out]
    return np.maximum(out + b[:, np.newaxis], 0.0)


def make_args(n, rng):
    c_in, c_out, k = 16, 32, 7
    return (rng.standard_normal((c_in, n)), rng.standard_normal((c_out, c_in, k)) * 0.1,
            rng.standard_normal(c_out) * 0.1)


SIZES = (8, 24)
BENCH_SIZE = 100000
JAX_PORT = "conv1d"
NUMBA_OK = True
