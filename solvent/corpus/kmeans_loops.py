"""Loop twin of kmeans: nearest centre by a scalar distance loop, then per-cluster sums and
counts and the division guarded by an if; the iteration count first. Category: ml."""
import numpy as np

from .kmeans import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "kmeans"
TWIN_ARGS = (2, 0, 1)  # (iters, X, C)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def kernel(iters, X, C):
    npts, dim = X.shape
    k = C.shape[0]
    labels = np.zeros(npts, dtype=np.int64)
    sums = np.zeros((k, dim))
    counts = np.zeros(k, dtype=np.int64)
    for it in range(iters):
        for p in range(npts):
            best = 0
            bestd = 0.0
            for c in range(k):
                d = 0.0
                for q in range(dim):
                    diff = X[p, q] - C[c, q]
                    d += diff * diff
                if c == 0 or d < bestd:
                    bestd = d
                    best = c
            labels[p] = best
        for c in range(k):
            counts[c] = 0
            for q in range(dim):
                sums[c, q] = 0.0
        for p in range(npts):
            c = labels[p]
            counts[c] += 1
            for q in range(dim):
                sums[c, q] += X[p, q]
        for c in range(k):
            if counts[c] > 0:
                for q in range(dim):
                    C[c, q] = sums[c, q] / counts[c]
    return labels


SIZES = (2, 4)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
