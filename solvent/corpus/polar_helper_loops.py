"""Loop twin of polar_helper: per element, scalar helpers (one returns a tuple) and the time
loop innermost; scalars first. Category: misc."""
import math

import numpy as np

from .polar_helper import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "polar_helper"
TWIN_ARGS = (3, 2, 0, 1)  # (steps, omega, x, y)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def to_polar(x, y):
    return math.sqrt(x * x + y * y), math.atan2(y, x)


def wrap_angle(a):
    return a - 2.0 * math.pi * math.floor((a + math.pi) / (2.0 * math.pi))


def kernel(steps, omega, x, y):
    m, n = x.shape
    u = np.empty((m, n))
    v = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            r, th = to_polar(x[i, j], y[i, j])
            for s in range(steps):
                th = wrap_angle(th + omega * r)
            u[i, j] = r * math.cos(th)
            v[i, j] = r * math.sin(th)
    return u, v


SIZES = (3, 6)
BENCH_SIZE = 500
JAX_PORT = None
NUMBA_OK = False  # numba: calls plain (non-jitted) Python helpers, which nopython mode cannot type
