"""Loop twin of fdtd_2d: the ey, ex, hz updates as PolyBench's C loops inside the time loop. Category: stencil."""
from .fdtd_2d import make_args  # noqa: F401

TWIN_OF = "fdtd_2d"


def kernel(TMAX, ex, ey, hz, _fict_):
    nx, ny = ex.shape
    for t in range(TMAX):
        for j in range(ny):
            ey[0, j] = _fict_[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i, j] -= 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i, j] -= 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i, j] -= 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])


SIZES = (3, 6)
BENCH_SIZE = 500
JAX_PORT = None
NUMBA_OK = True
