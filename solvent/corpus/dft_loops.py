"""Loop twin of dft: forward and inverse DFT with complex scalar accumulators and np.exp of a
complex scalar per term, and |X|^2 per element. Category: misc."""
import numpy as np

from .dft import make_args  # noqa: F401

TWIN_OF = "dft"


def kernel(x):
    n, m = x.shape
    X = np.zeros((n, m), dtype=np.complex128)
    power = np.empty((n, m))
    xr = np.zeros((n, m), dtype=np.complex128)
    for k in range(n):
        for c in range(m):
            s = 0j
            for t in range(n):
                s += np.exp(-2j * np.pi * (k * t) / n) * x[t, c]
            X[k, c] = s
            power[k, c] = abs(s) ** 2
    for t in range(n):
        for c in range(m):
            s = 0j
            for k in range(n):
                s += np.exp(2j * np.pi * (t * k) / n) * X[k, c]
            xr[t, c] = s / n
    return X, power, xr


SIZES = (2, 5)
BENCH_SIZE = 100
JAX_PORT = None
NUMBA_OK = True
