"""z = alpha x + beta y over a long vector, float64: one pass, memory-bound. Category: elementwise (memory-bound)."""


def kernel(alpha, x, beta, y):
    return alpha * x + beta * y


def make_args(n, rng):
    return (1.5, rng.standard_normal(n * n), -0.25, rng.standard_normal(n * n))


SIZES = (1, 24)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
