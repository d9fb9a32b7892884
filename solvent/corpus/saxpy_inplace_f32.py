"""y += a * x in place on float32 vectors: one pass, memory-bound, written back. Category: elementwise (memory-bound)."""


def kernel(a, x, y):
    y += a * x


def make_args(n, rng):
    return (0.75, rng.standard_normal(n * n).astype("float32"),
            rng.standard_normal(n * n).astype("float32"))


SIZES = (1, 24)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
