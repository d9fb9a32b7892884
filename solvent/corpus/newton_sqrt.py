"""Newton iterations for square roots with a bounded `while` per element: iterate until the
update is tiny or 50 steps, element by element. Category: sequential."""
import numpy as np


def kernel(v, out):
    for i in range(v.shape[0]):
        x = v[i] if v[i] > 1.0 else 1.0
        k = 0
        delta = 1.0
        while abs(delta) > 1e-12 * x and k < 50:
            delta = 0.5 * (x - v[i] / x)
            x -= delta
            k += 1
        out[i] = x
    return out


def make_args(n, rng):
    return (rng.random(n) * 100.0, np.zeros(n))


SIZES = (5, 40)
BENCH_SIZE = 20000
JAX_PORT = None
NUMBA_OK = True
