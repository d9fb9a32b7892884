"""Shape manipulation: concatenate/stack/hstack/vstack, flip, repeat, triu/tril, transpose/reshape/ravel, stepped slices. Category: misc."""
import numpy as np


def kernel(a, b):
    c = np.concatenate((a, b), axis=0)
    s = np.stack((a, b), axis=0)
    h = np.hstack((a, np.flip(b, axis=1)))
    v = np.vstack((a.T, b[::-1, :].T))
    r = np.repeat(a[:, 0], 2)
    t = np.triu(a) + np.tril(b, -1)
    m = s.transpose(1, 0, 2).reshape(a.shape[0], 2 * a.shape[1])
    f = m.flatten()[::3]
    return c.sum(axis=1), s.mean(axis=0), h @ v, r, t, f, a.ravel()[-5:]


def make_args(n, rng):
    return (rng.random((n, n + 2)), rng.random((n, n + 2)))


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = "array_ops"
NUMBA_OK = False  # numba: np.flip with axis= is unsupported
