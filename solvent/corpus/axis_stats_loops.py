"""Loop twin of axis_stats: column mean/std, row variance, argmax/argmin by index tracking,
standardised minima, early-exit `while` loops for any/all, and a product. Category: reduction."""
import math

import numpy as np

from .axis_stats import make_args  # noqa: F401

TWIN_OF = "axis_stats"


def kernel(X):
    m, n = X.shape
    mu = np.empty(n)
    sd = np.empty(n)
    var = np.empty(m)
    am = np.empty(m, dtype=np.int64)
    amin = np.empty(n, dtype=np.int64)
    zmin = np.empty((1, n))
    big = np.empty(m, dtype=np.bool_)
    p = np.empty(n)
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += X[i, j]
        mu[j] = s / m
        v = 0.0
        for i in range(m):
            d = X[i, j] - mu[j]
            v += d * d
        sd[j] = math.sqrt(v / m)
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += X[i, j]
        mean = s / n
        v = 0.0
        for j in range(n):
            v += (X[i, j] - mean) ** 2
        var[i] = v / n
    for i in range(m):
        best = 0
        for j in range(1, n):
            if X[i, j] > X[i, best]:
                best = j
        am[i] = best
    for j in range(n):
        best = 0
        for i in range(1, m):
            if X[i, j] < X[best, j]:
                best = i
        amin[j] = best
    for j in range(n):
        lo = (X[0, j] - mu[j]) / sd[j]
        for i in range(1, m):
            z = (X[i, j] - mu[j]) / sd[j]
            if z < lo:
                lo = z
        zmin[0, j] = lo
    for i in range(m):
        found = False
        j = 0
        while j < n and not found:
            found = X[i, j] > 0.99
            j += 1
        big[i] = found
    allpos = True
    i = 0
    while allpos and i < m * n:
        allpos = X[i // n, i % n] > 0.0
        i += 1
    for j in range(n):
        prod = 1.0
        for i in range(m):
            prod *= 1.0 + 0.001 * X[i, j]
        p[j] = prod
    return mu, sd, var, am, amin, zmin, big, allpos, p


SIZES = (3, 6)
BENCH_SIZE = 1000
JAX_PORT = None
NUMBA_OK = True
