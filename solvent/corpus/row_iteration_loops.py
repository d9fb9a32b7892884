"""Loop twin of row_iteration: row means subtracted and rows scaled by index loops, and the
distances to the centre by a component loop with math.sqrt. Category: misc."""
import math

from .row_iteration import make_args  # noqa: F401

TWIN_OF = "row_iteration"


def kernel(A, points, center):
    m, n = A.shape
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += A[i, j]
        mean = s / n
        for j in range(n):
            A[i, j] -= mean
    total = 0.0
    npts, dim = points.shape
    for p in range(npts):
        d2 = 0.0
        for q in range(dim):
            d = points[p, q] - center[q]
            d2 += d * d
        total += math.sqrt(d2)
    for i in range(m):
        f = 1.0 / (i + 1)
        for j in range(n):
            A[i, j] *= f
    return total


SIZES = (3, 7)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
