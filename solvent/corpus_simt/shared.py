"""Kernels with shared memory and barriers: tiled matmul, reductions, transpose, scan,
row softmax."""
import math

import numpy as np
from numba import cuda, float64

from . import Case

TILE = 16
RB = 128  # threads per block of the 1-D kernels
SCAN = 256


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((TILE, TILE), dtype=float64)
    sB = cuda.shared.array((TILE, TILE), dtype=float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    n = A.shape[0]
    k_dim = A.shape[1]
    m = B.shape[1]
    acc = 0.0
    for t in range((k_dim + TILE - 1) // TILE):
        a = 0.0
        if row < n and t * TILE + tx < k_dim:
            a = A[row, t * TILE + tx]
        sA[ty, tx] = a
        b = 0.0
        if col < m and t * TILE + ty < k_dim:
            b = B[t * TILE + ty, col]
        sB[ty, tx] = b
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if row < n and col < m:
        C[row, col] = acc


@cuda.jit
def reduce_sum(x, partial):
    sd = cuda.shared.array(RB, dtype=float64)
    tx = cuda.threadIdx.x
    i = cuda.grid(1)
    v = 0.0
    if i < x.size:
        v = x[i]
    sd[tx] = v
    cuda.syncthreads()
    s = RB // 2
    while s > 0:
        if tx < s:
            sd[tx] += sd[tx + s]
        cuda.syncthreads()
        s //= 2
    if tx == 0:
        partial[cuda.blockIdx.x] = sd[0]


@cuda.jit
def transpose_tiled(src, dst):
    tile = cuda.shared.array((TILE, TILE + 1), dtype=float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if y < src.shape[0] and x < src.shape[1]:
        tile[ty, tx] = src[y, x]
    cuda.syncthreads()
    x2 = cuda.blockIdx.y * TILE + tx
    y2 = cuda.blockIdx.x * TILE + ty
    if y2 < dst.shape[0] and x2 < dst.shape[1]:
        dst[y2, x2] = tile[tx, ty]


@cuda.jit
def scan_blelloch(x, out, sums):
    # exclusive prefix sum of each block's 2 * SCAN // 2 elements (Blelloch's work-efficient
    # up-sweep / down-sweep), block totals to sums
    temp = cuda.shared.array(SCAN, dtype=float64)
    tid = cuda.threadIdx.x
    base = cuda.blockIdx.x * SCAN
    n = x.size
    a = 0.0
    if base + 2 * tid < n:
        a = x[base + 2 * tid]
    b = 0.0
    if base + 2 * tid + 1 < n:
        b = x[base + 2 * tid + 1]
    temp[2 * tid] = a
    temp[2 * tid + 1] = b
    offset = 1
    d = SCAN // 2
    while d > 0:
        cuda.syncthreads()
        if tid < d:
            ai = offset * (2 * tid + 1) - 1
            bi = offset * (2 * tid + 2) - 1
            temp[bi] += temp[ai]
        offset *= 2
        d //= 2
    if tid == 0:
        sums[cuda.blockIdx.x] = temp[SCAN - 1]
        temp[SCAN - 1] = 0.0
    d = 1
    while d < SCAN:
        offset //= 2
        cuda.syncthreads()
        if tid < d:
            ai = offset * (2 * tid + 1) - 1
            bi = offset * (2 * tid + 2) - 1
            t = temp[ai]
            temp[ai] = temp[bi]
            temp[bi] += t
        d *= 2
    cuda.syncthreads()
    if base + 2 * tid < n:
        out[base + 2 * tid] = temp[2 * tid]
    if base + 2 * tid + 1 < n:
        out[base + 2 * tid + 1] = temp[2 * tid + 1]


@cuda.jit
def softmax_rows(x, out):
    # one block per row: shared-memory max and sum reductions, then normalize
    buf = cuda.shared.array(RB, dtype=float64)
    row = cuda.blockIdx.x
    tx = cuda.threadIdx.x
    m = x.shape[1]
    best = -np.inf
    for j in range(tx, m, RB):
        best = max(best, x[row, j])
    buf[tx] = best
    cuda.syncthreads()
    s = RB // 2
    while s > 0:
        if tx < s:
            buf[tx] = max(buf[tx], buf[tx + s])
        cuda.syncthreads()
        s //= 2
    top = buf[0]
    cuda.syncthreads()
    total = 0.0
    for j in range(tx, m, RB):
        total += math.exp(x[row, j] - top)
    buf[tx] = total
    cuda.syncthreads()
    s = RB // 2
    while s > 0:
        if tx < s:
            buf[tx] += buf[tx + s]
        cuda.syncthreads()
        s //= 2
    denom = buf[0]
    for j in range(tx, m, RB):
        out[row, j] = math.exp(x[row, j] - top) / denom


def _np_scan(x, out, sums):
    n = x.size
    nb = sums.size
    pad = np.zeros(nb * SCAN)
    pad[:n] = x
    blocks = pad.reshape(nb, SCAN)
    ex = np.cumsum(blocks, axis=1) - blocks
    out[...] = ex.reshape(-1)[:n]
    sums[...] = blocks.sum(axis=1)


def _np_softmax(x, out):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    out[...] = e / e.sum(axis=1, keepdims=True)


def _blocks(n, per):
    return (n + per - 1) // per


CASES = [
    Case("matmul_tiled", matmul_tiled,
         lambda n: ((_blocks(n + 5, TILE), _blocks(n, TILE)), (TILE, TILE)),
         lambda n, r: (r.random((n, n + 7)), r.random((n + 7, n + 5)), np.zeros((n, n + 5))),
         lambda A, B, C: C.__setitem__(..., A @ B), (2,)),
    Case("reduce_sum", reduce_sum, lambda n: (_blocks(n * n, RB), RB),
         lambda n, r: (r.random(n * n), np.zeros(_blocks(n * n, RB))),
         lambda x, p: p.__setitem__(..., np.add.reduceat(
             np.pad(x, (0, p.size * RB - x.size)), np.arange(0, p.size * RB, RB))), (1,)),
    Case("transpose_tiled", transpose_tiled,
         lambda n: ((_blocks(n + 3, TILE), _blocks(n, TILE)), (TILE, TILE)),
         lambda n, r: (r.random((n, n + 3)), np.zeros((n + 3, n))),
         lambda s, d: d.__setitem__(..., s.T), (1,)),
    Case("scan_blelloch", scan_blelloch, lambda n: (_blocks(n * n, SCAN), SCAN // 2),
         lambda n, r: (r.random(n * n), np.zeros(n * n), np.zeros(_blocks(n * n, SCAN))),
         _np_scan, (1, 2)),
    Case("softmax_rows", softmax_rows, lambda n: (n, RB),
         lambda n, r: (r.standard_normal((n, 3 * n)), np.zeros((n, 3 * n))), _np_softmax, (1,)),
]
