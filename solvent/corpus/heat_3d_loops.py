"""Loop twin of heat_3d: the 7-point stencil as a scalar triple loop per half step. Category: stencil."""
from .heat_3d import make_args  # noqa: F401

TWIN_OF = "heat_3d"


def kernel(TSTEPS, A, B):
    n = A.shape[0]
    for t in range(1, TSTEPS):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    B[i, j, k] = (0.125 * (A[i + 1, j, k] - 2.0 * A[i, j, k] + A[i - 1, j, k])
                                  + 0.125 * (A[i, j + 1, k] - 2.0 * A[i, j, k] + A[i, j - 1, k])
                                  + 0.125 * (A[i, j, k + 1] - 2.0 * A[i, j, k] + A[i, j, k - 1])
                                  + A[i, j, k])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    A[i, j, k] = (0.125 * (B[i + 1, j, k] - 2.0 * B[i, j, k] + B[i - 1, j, k])
                                  + 0.125 * (B[i, j + 1, k] - 2.0 * B[i, j, k] + B[i, j - 1, k])
                                  + 0.125 * (B[i, j, k + 1] - 2.0 * B[i, j, k] + B[i, j, k - 1])
                                  + B[i, j, k])


SIZES = (3, 5)
BENCH_SIZE = 60
JAX_PORT = None
NUMBA_OK = True
