"""Levinson-Durbin recursion: AR coefficients from autocorrelations r[0..p], scalar loops
whose trip counts grow with the order k (a recurrence through a and the error e).
Category: sequential."""
import numpy as np


def kernel(r, a, tmp):
    p = a.shape[0] - 1
    a[0] = 1.0
    e = r[0]
    for k in range(1, p + 1):
        acc = r[k]
        for j in range(1, k):
            acc += a[j] * r[k - j]
        lam = -acc / e
        for j in range(1, k):
            tmp[j] = a[j] + lam * a[k - j]
        for j in range(1, k):
            a[j] = tmp[j]
        a[k] = lam
        e = e * (1.0 - lam * lam)
    return e


def make_args(n, rng):
    x = rng.standard_normal(4 * n + 8)
    r = np.array([np.dot(x[: x.size - k], x[k:]) for k in range(n + 1)]) / x.size
    return (r, np.zeros(n + 1), np.zeros(n + 1))


SIZES = (4, 12)
BENCH_SIZE = 300
JAX_PORT = None
NUMBA_OK = True
