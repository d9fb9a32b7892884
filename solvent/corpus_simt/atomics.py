"""Kernels with atomics: global and shared-memory histograms, a max reduction."""
import numpy as np
from numba import cuda, int64, float64

from . import Case

BINS = 64
TB = 128


@cuda.jit
def histogram(x, hist):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    for k in range(i, x.size, stride):
        b = int(x[k] * BINS)
        if b >= 0 and b < BINS:
            cuda.atomic.add(hist, b, 1)


@cuda.jit
def histogram_shared(x, hist):
    local = cuda.shared.array(BINS, dtype=int64)
    tx = cuda.threadIdx.x
    for b in range(tx, BINS, TB):
        local[b] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        b = int(x[i] * BINS)
        if b >= 0 and b < BINS:
            cuda.atomic.add(local, b, 1)
    cuda.syncthreads()
    for b in range(tx, BINS, TB):
        cuda.atomic.add(hist, b, local[b])


@cuda.jit
def max_abs(x, result):
    best = cuda.shared.array(1, dtype=float64)
    tx = cuda.threadIdx.x
    if tx == 0:
        best[0] = 0.0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.max(best, 0, abs(x[i]))
    cuda.syncthreads()
    if tx == 0:
        cuda.atomic.max(result, 0, best[0])


def _np_hist(x, hist):
    b = (x * BINS).astype(np.int64)
    hist += np.bincount(b[(b >= 0) & (b < BINS)], minlength=BINS)


CASES = [
    Case("histogram", histogram, lambda n: (max(1, n // 8), TB),
         lambda n, r: (r.random(n * n), np.zeros(BINS, np.int64)), _np_hist, (1,)),
    Case("histogram_shared", histogram_shared, lambda n: ((n * n + TB - 1) // TB, TB),
         lambda n, r: (r.random(n * n), np.zeros(BINS, np.int64)), _np_hist, (1,)),
    Case("max_abs", max_abs, lambda n: ((n * n + TB - 1) // TB, TB),
         lambda n, r: (r.standard_normal(n * n), np.zeros(1)),
         lambda x, res: res.__setitem__(0, max(res[0], np.abs(x).max())), (1,)),
]
