"""Loop twin of ufunc_mix: clip and sign by if/elif, pow, math.log/tan/ceil/floor/tanh and the
builtins min/max/abs on scalars. Category: misc."""
import math

import numpy as np

from .ufunc_mix import make_args  # noqa: F401

TWIN_OF = "ufunc_mix"


def kernel(x, y):
    m, n = x.shape
    t = np.empty((m, n))
    f = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            a = x[i, j]
            if a < 0.1:
                a = 0.1
            elif a > 0.9:
                a = 0.9
            sy = y[i, j] - 0.5
            sg = 0.0
            if sy > 0.0:
                sg = 1.0
            elif sy < 0.0:
                sg = -1.0
            b = a ** 1.5 + math.log(a) * sg
            c = math.tan(a) - math.ceil(y[i, j] * 4.0) / 4.0
            d = min(b, c) + max(abs(b), 0.5)
            t[i, j] = math.tanh(d)
            f[i, j] = math.floor(b * 10.0)
    return t, f


SIZES = (3, 6)
BENCH_SIZE = 1000
JAX_PORT = None
NUMBA_OK = True
