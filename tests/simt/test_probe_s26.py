"""Kernels from the s26 stranger probe (/work/notes/s26/probe_simt.py) that solvent got
wrong or refused, each against the answer Numba's CUDA simulator gives (worked out here in
NumPy)."""
import numpy as np
import numba
from numba import cuda, float32, int32

import solvent

TILE = 4


def matmul_float32_ctor(A, B, C):
    # Numba's documented fast_matmul starts its accumulator with float32(0.)
    sA = cuda.shared.array((TILE, TILE), dtype=float32)
    sB = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[ty, tx] = A[row, t * TILE + tx] if row < A.shape[0] and t * TILE + tx < A.shape[1] else 0
        sB[ty, tx] = B[t * TILE + ty, col] if col < B.shape[1] and t * TILE + ty < B.shape[0] else 0
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc


def numba_type_casts(x, out_i, out_f):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out_i[i] = int32(x[i]) + numba.int32(1)
        out_f[i] = numba.float32(x[i]) * float32(3)


def test_numba_scalar_type_called_as_a_cast():
    r = np.random.default_rng(0)
    A = r.standard_normal((6, 7)).astype(np.float32)
    B = r.standard_normal((7, 5)).astype(np.float32)
    for on in (None, "xla"):
        C = np.zeros((6, 5), np.float32)
        launch = solvent.kernel(matmul_float32_ctor)[(2, 2), (TILE, TILE)]
        (launch.on(on) if on else launch)(A, B, C)
        np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)
    x = np.array([1.7, -2.5, 3.0, 0.2])
    oi, of = np.zeros(4, np.int64), np.zeros(4)
    solvent.kernel(numba_type_casts)[1, 8](x, oi, of)
    np.testing.assert_array_equal(oi, [2, -1, 4, 1])
    np.testing.assert_array_equal(of, np.float32(x) * np.float32(3))


COEF = np.array([0.5, -1.0, 2.0, 3.5])


def const_coef(x, out):
    c = cuda.const.array_like(COEF)
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * c[i % 4]


def test_const_array_like_reads_the_host_array():
    x = np.arange(10.0)
    for on in (None, "xla"):
        out = np.zeros(10)
        launch = solvent.kernel(const_coef)[2, 8]
        (launch.on(on) if on else launch)(x, out)
        np.testing.assert_array_equal(out, x * COEF[np.arange(10) % 4])
