"""Three-layer dense MLP forward pass with ReLU and tanh output. Category: ml (dot-dominated)."""
import numpy as np


def kernel(X, W1, b1, W2, b2, W3, b3):
    h = np.maximum(X @ W1 + b1, 0.0)
    h = np.maximum(h @ W2 + b2, 0.0)
    out = np.tanh(h @ W3 + b3)
    return out


def make_args(n, rng):
    d, h, o = n + 2, 2 * n, n // 2 + 1
    s1, s2, s3 = 1.0 / np.sqrt(d), 1.0 / np.sqrt(h), 1.0 / np.sqrt(h)
    return (rng.standard_normal((4 * n, d)),
            rng.standard_normal((d, h)) * s1, rng.standard_normal(h) * 0.1,
            rng.standard_normal((h, h)) * s2, rng.standard_normal(h) * 0.1,
            rng.standard_normal((h, o)) * s3, rng.standard_normal(o) * 0.1)


SIZES = (8, 24)
BENCH_SIZE = 256
JAX_PORT = "mlp_forward"
NUMBA_OK = True
