"""Loop twin of logreg_gd: gradient descent with the sigmoid inlined per sample, the gradient
as a column loop, and the mean log-loss by a loop; learning rate and iterations first. Category: ml."""
import math

import numpy as np

from .logreg_gd import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "logreg_gd"
TWIN_ARGS = (4, 3, 0, 1, 2)  # (iters, lr, X, y, w)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def kernel(iters, lr, X, y, w):
    m, n = X.shape
    p = np.empty(m)
    for it in range(iters + 1):
        for i in range(m):
            z = 0.0
            for j in range(n):
                z += X[i, j] * w[j]
            p[i] = 1.0 / (1.0 + math.exp(-z))
        if it == iters:
            break
        for j in range(n):
            g = 0.0
            for i in range(m):
                g += X[i, j] * (p[i] - y[i])
            w[j] -= lr * (g / m)
    loss = 0.0
    for i in range(m):
        loss += y[i] * math.log(p[i] + 1e-12) + (1.0 - y[i]) * math.log(1.0 - p[i] + 1e-12)
    return -(loss / m)


SIZES = (2, 4)
BENCH_SIZE = 300
JAX_PORT = None
NUMBA_OK = True
