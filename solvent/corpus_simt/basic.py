"""Kernels without barriers: element-wise, 2-D grids, stencils, device functions."""
import math

import numpy as np
from numba import cuda

from . import Case


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def add_2d(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        c[i, j] = a[i, j] + 2 * b[i, j]


@cuda.jit
def jacobi_2d(src, dst):
    i, j = cuda.grid(2)
    n, m = src.shape
    if 1 <= i < n - 1 and 1 <= j < m - 1:
        dst[i, j] = 0.2 * (src[i, j] + src[i - 1, j] + src[i + 1, j]
                           + src[i, j - 1] + src[i, j + 1])


@cuda.jit
def hotspot(temp, power, out, cap, rx, ry, rz, amb):
    # one explicit step of the Rodinia HotSpot thermal model, borders clamped
    r, c = cuda.grid(2)
    n, m = temp.shape
    if r < n and c < m:
        t = temp[r, c]
        up = temp[max(r - 1, 0), c]
        down = temp[min(r + 1, n - 1), c]
        left = temp[r, max(c - 1, 0)]
        right = temp[r, min(c + 1, m - 1)]
        delta = (power[r, c] + (up + down - 2.0 * t) / ry + (left + right - 2.0 * t) / rx
                 + (amb - t) / rz) / cap
        out[r, c] = t + delta


@cuda.jit(device=True)
def horner(coef, x):
    acc = 0.0
    for k in range(coef.size):
        acc = acc * x + coef[k]
    return acc


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit
def poly_eval(coef, x, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    out[i] = clamp(horner(coef, x[i]), -10.0, 10.0)


@cuda.jit
def gelu_local(x, out):
    # a per-thread scratch array (cuda.local.array) and math functions
    i = cuda.grid(1)
    tmp = cuda.local.array(3, np.float64)
    if i < x.size:
        v = x[i]
        tmp[0] = v
        tmp[1] = math.tanh(0.7978845608 * (v + 0.044715 * v * v * v))
        tmp[2] = 0.5 * tmp[0] * (1.0 + tmp[1])
        out[i] = tmp[2]


def _np_jacobi(src, dst):
    dst[1:-1, 1:-1] = 0.2 * (src[1:-1, 1:-1] + src[:-2, 1:-1] + src[2:, 1:-1]
                             + src[1:-1, :-2] + src[1:-1, 2:])


def _np_hotspot(temp, power, out, cap, rx, ry, rz, amb):
    p = np.pad(temp, 1, mode="edge")
    up, down, left, right = p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
    out[...] = temp + (power + (up + down - 2.0 * temp) / ry + (left + right - 2.0 * temp) / rx
                       + (amb - temp) / rz) / cap


def _np_poly(coef, x, out):
    acc = np.zeros_like(x)
    for c in coef:
        acc = acc * x + c
    out[...] = np.clip(acc, -10.0, 10.0)


def _grid2(n, t=16):
    return ((n + t - 1) // t, (n + t - 1) // t), (t, t)


CASES = [
    Case("saxpy", saxpy, lambda n: ((n * n + 127) // 128, 128),
         lambda n, r: (2.5, r.random(n * n), r.random(n * n), np.zeros(n * n)),
         lambda a, x, y, out: out.__setitem__(..., a * x + y), (3,)),
    Case("add_2d", add_2d, lambda n: _grid2(n + 3),   # c is n x (n + 3)
         lambda n, r: (r.random((n, n + 3)), r.random((n, n + 3)), np.zeros((n, n + 3))),
         lambda a, b, c: c.__setitem__(..., a + 2 * b), (2,)),
    Case("jacobi_2d", jacobi_2d, _grid2,
         lambda n, r: (r.random((n, n)), np.zeros((n, n))), _np_jacobi, (1,)),
    Case("hotspot", hotspot, _grid2,
         lambda n, r: (300 + r.random((n, n)), r.random((n, n)) * 1e-3, np.zeros((n, n)),
                       0.5, 1.5, 1.5, 80.0, 300.0), _np_hotspot, (2,)),
    Case("poly_eval", poly_eval, lambda n: ((n * n + 63) // 64, 64),
         lambda n, r: (np.array([0.5, -1.0, 2.0, 0.25]), r.standard_normal(n * n),
                       np.zeros(n * n)), _np_poly, (2,)),
    Case("gelu_local", gelu_local, lambda n: ((n * n + 127) // 128, 128),
         lambda n, r: (r.standard_normal(n * n), np.zeros(n * n)),
         lambda x, out: out.__setitem__(..., 0.5 * x * (1.0 + np.tanh(
             0.7978845608 * (x + 0.044715 * x ** 3)))), (1,)),
]
