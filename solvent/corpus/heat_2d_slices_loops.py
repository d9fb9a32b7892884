"""Loop twin of heat_2d_slices: diffusion along axis 0 as a scalar double loop, returning A. Category: stencil."""
from .heat_2d_slices import make_args  # noqa: F401

TWIN_OF = "heat_2d_slices"


def kernel(TSTEPS, A, B):
    m, n = A.shape
    for t in range(TSTEPS):
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.125 * (A[i + 1, j] - 2.0 * A[i, j] + A[i - 1, j]) + A[i, j]
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.125 * (B[i + 1, j] - 2.0 * B[i, j] + B[i - 1, j]) + B[i, j]
    return A


SIZES = (4, 7)
BENCH_SIZE = 500
JAX_PORT = None
NUMBA_OK = True
