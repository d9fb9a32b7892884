"""Loop twin of seidel_2d: the in-place 9-point Gauss-Seidel sweep as PolyBench's scalar C loop
(a genuine dependence on the row and column just written). Category: stencil."""
from .seidel_2d import make_args  # noqa: F401

TWIN_OF = "seidel_2d"


def kernel(TSTEPS, A):
    N = A.shape[0]
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i, j] = (A[i, j] + (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j + 1]
                                      + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1])
                           + A[i, j - 1]) / 9.0


SIZES = (4, 7)
BENCH_SIZE = 100
JAX_PORT = None
NUMBA_OK = True
