"""Loop twin of blur_f32: the 3x3 blur on float32 as scalar loops into a scratch image, and the
column sums with float32 accumulators; the iteration count first. Category: stencil."""
import numpy as np

from .blur_f32 import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "blur_f32"
TWIN_ARGS = (1, 0)  # (iters, img)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def kernel(iters, img):
    m, n = img.shape
    out = np.empty_like(img)
    for i in range(m):
        for j in range(n):
            out[i, j] = img[i, j]
    tmp = np.empty_like(img)
    for it in range(iters):
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                tmp[i, j] = (0.25 * out[i, j]
                             + 0.125 * (out[i - 1, j] + out[i + 1, j] + out[i, j - 1] + out[i, j + 1])
                             + 0.0625 * (out[i - 1, j - 1] + out[i - 1, j + 1] + out[i + 1, j - 1]
                                         + out[i + 1, j + 1]))
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                out[i, j] = tmp[i, j]
    colsum = np.zeros(n, dtype=np.float32)
    for j in range(n):
        s = np.float32(0.0)
        for i in range(m):
            s += out[i, j]
        colsum[j] = s
    return out, colsum


SIZES = (4, 7)
BENCH_SIZE = 1000
JAX_PORT = None
NUMBA_OK = True
