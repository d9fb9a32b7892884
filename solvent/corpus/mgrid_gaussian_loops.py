"""Loop twin of mgrid_gaussian: the Gaussian-weighted centroid with the grid coordinates as
loop indices and three scalar accumulators. Category: reduction."""
import math

from .mgrid_gaussian import make_args  # noqa: F401

TWIN_OF = "mgrid_gaussian"


def kernel(img, sigma):
    ny, nx = img.shape
    cy = (ny - 1) / 2.0
    cx = (nx - 1) / 2.0
    total = 0.0
    sy = 0.0
    sx = 0.0
    for i in range(ny):
        for j in range(nx):
            w = math.exp(-((j - cx) ** 2 + (i - cy) ** 2) / (2.0 * sigma * sigma)) * img[i, j]
            total += w
            sy += w * i
            sx += w * j
    return sy / total, sx / total


SIZES = (4, 9)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
