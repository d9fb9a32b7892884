"""Loop twin of jacobi_1d: the 3-point stencil as scalar loops inside the time loop. Category: stencil."""
from .jacobi_1d import make_args  # noqa: F401

TWIN_OF = "jacobi_1d"


def kernel(TSTEPS, A, B):
    n = A.shape[0]
    for t in range(1, TSTEPS):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])


SIZES = (5, 12)
BENCH_SIZE = 100000
JAX_PORT = None
NUMBA_OK = True
