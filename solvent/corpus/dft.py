"""Naive DFT of a batch of signals with a complex np.exp(-2j*pi*k*n/N) matrix and matmul, plus inverse. Category: misc."""
import numpy as np


def kernel(x):
    n = x.shape[0]
    k = np.arange(n)
    M = np.exp(-2j * np.pi * np.outer(k, k) / n)
    X = M @ x
    power = np.abs(X) ** 2
    Minv = np.exp(2j * np.pi * np.outer(k, k) / n)
    xr = (Minv @ X) / n
    return X, power, xr


def make_args(n, rng):
    return (rng.standard_normal((n, 16)),)


SIZES = (8, 24)
BENCH_SIZE = 600
JAX_PORT = "dft"
NUMBA_OK = False  # numba: @ with mixed complex128 and float64 operands is rejected (needs same dtype)
