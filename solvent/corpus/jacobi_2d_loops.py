"""Loop twin of jacobi_2d: the five-point stencil as a scalar double loop per half step. Category: stencil."""
from .jacobi_2d import make_args  # noqa: F401

TWIN_OF = "jacobi_2d"


def kernel(TSTEPS, A, B):
    n = A.shape[0]
    for t in range(1, TSTEPS):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j])


SIZES = (4, 7)
BENCH_SIZE = 400
JAX_PORT = None
NUMBA_OK = True
