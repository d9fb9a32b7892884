"""Loop twin of laplace_converge: Jacobi relaxation in a `while` until the largest change is
below tol, the stencil and the max-change reduction as scalar loops; scalars first. Category: stencil."""
import numpy as np

from .laplace_converge import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "laplace_converge"
TWIN_ARGS = (2, 1, 0)  # (max_iter, tol, u)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def kernel(max_iter, tol, u):
    m, n = u.shape
    new = np.zeros((m, n))
    err = tol + 1.0
    it = 0
    while err > tol and it < max_iter:
        err = 0.0
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                new[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
                d = abs(new[i, j] - u[i, j])
                if d > err:
                    err = d
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                u[i, j] = new[i, j]
        it += 1
    return it, err


SIZES = (4, 7)
BENCH_SIZE = 200
JAX_PORT = None
NUMBA_OK = True
