"""2-D finite-difference time-domain Maxwell update of ex, ey, hz (PolyBench fdtd-2d). Category: stencil."""
import numpy as np


def kernel(TMAX, ex, ey, hz, _fict_):
    for t in range(TMAX):
        ey[0, :] = _fict_[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def make_args(n, rng):
    tmax = 20
    return (tmax, rng.random((n, n + 2)), rng.random((n, n + 2)), rng.random((n, n + 2)),
            rng.random(tmax))


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = "fdtd_2d"
NUMBA_OK = True
