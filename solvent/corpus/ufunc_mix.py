"""Element-wise mix of clip/power/log/sign/tan/ceil/floor/minimum/maximum/abs/tanh. Category: misc."""
import numpy as np


def kernel(x, y):
    a = np.clip(x, 0.1, 0.9)
    b = np.power(a, 1.5) + np.log(a) * np.sign(y - 0.5)
    c = np.tan(a) - np.ceil(y * 4.0) / 4.0
    d = np.minimum(b, c) + np.maximum(np.abs(b), 0.5)
    return np.tanh(d), np.floor(b * 10.0)


def make_args(n, rng):
    return (rng.random((n, n)) * 1.2 - 0.1, rng.random((n, n)))


SIZES = (8, 24)
BENCH_SIZE = 1000
JAX_PORT = "ufunc_mix"
NUMBA_OK = True
