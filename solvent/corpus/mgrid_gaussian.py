"""Gaussian-weighted centroid of an image on coordinate grids from np.mgrid, the way image
analysis code computes spot positions. Category: reduction."""
import numpy as np


def kernel(img, sigma):
    ny, nx = img.shape
    y, x = np.mgrid[0:ny, 0:nx]
    cy, cx = (ny - 1) / 2.0, (nx - 1) / 2.0
    w = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2.0 * sigma * sigma)) * img
    total = w.sum()
    return (w * y).sum() / total, (w * x).sum() / total


def make_args(n, rng):
    return (rng.random((n, n + 3)), n / 4.0)


SIZES = (6, 20)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = False
