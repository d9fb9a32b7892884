"""Lloyd's k-means: broadcast distances, argmin labels, per-cluster masked means with an if on the count. Category: ml."""
import numpy as np


def kernel(X, C, iters):
    k = C.shape[0]
    labels = np.zeros(X.shape[0], dtype=np.int64)
    for it in range(iters):
        d = np.sum((X[:, np.newaxis, :] - C[np.newaxis, :, :]) ** 2, axis=2)
        labels = np.argmin(d, axis=1)
        for j in range(k):
            m = (labels == j)
            cnt = np.sum(m)
            if cnt > 0:
                C[j, :] = np.sum(X * m[:, np.newaxis], axis=0) / cnt
    return labels


def make_args(n, rng):
    X = rng.random((10 * n, 4))
    return (X, X[:5].copy(), 5)


SIZES = (8, 24)
BENCH_SIZE = 2000
JAX_PORT = "kmeans"
NUMBA_OK = True
