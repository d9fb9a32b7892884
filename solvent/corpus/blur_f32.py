"""Repeated 3x3 weighted blur on a float32 image (checks float32 is kept, no promotion). Category: stencil."""
import numpy as np


def kernel(img, iters):
    out = img.copy()
    for it in range(iters):
        out[1:-1, 1:-1] = (0.25 * out[1:-1, 1:-1]
                           + 0.125 * (out[:-2, 1:-1] + out[2:, 1:-1] + out[1:-1, :-2] + out[1:-1, 2:])
                           + 0.0625 * (out[:-2, :-2] + out[:-2, 2:] + out[2:, :-2] + out[2:, 2:]))
    return out, out.sum(axis=0)


def make_args(n, rng):
    return (rng.random((n, n + 1)).astype(np.float32), 10)


SIZES = (8, 24)
BENCH_SIZE = 1000
JAX_PORT = "blur_f32"
NUMBA_OK = True
