"""Column mean/std, row var, argmax/argmin, any/all, prod and standardised minima along axes. Category: reduction."""
import numpy as np


def kernel(X):
    mu = X.mean(axis=0)
    sd = np.std(X, axis=0)
    var = X.var(axis=1)
    am = np.argmax(X, axis=1)
    amin = X.argmin(axis=0)
    z = (X - mu) / sd
    zmin = np.min(z, axis=0, keepdims=True)
    big = np.any(X > 0.99, axis=1)
    allpos = np.all(X > 0.0)
    p = np.prod(1.0 + 0.001 * X, axis=0)
    return mu, sd, var, am, amin, zmin, big, allpos, p


def make_args(n, rng):
    return (rng.random((n + 5, n)),)


SIZES = (8, 24)
BENCH_SIZE = 1500
JAX_PORT = "axis_stats"
NUMBA_OK = False  # numba: ndarray.mean/std/var with axis= (and keepdims) are unsupported
