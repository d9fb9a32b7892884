"""Kernels written the way strangers write numba.cuda code (grid-stride loops, early
returns, 2-D/3-D grids, shared tiles indexed by threadIdx.y, Hillis-Steele scans, atomics
whose old value is used, int8 // and %, complex64, device functions with loops, scalar
arguments first, Fortran-ordered and strided arguments), each with its launch and inputs.
tests/simt/test_stranger_simt_kernels.py runs them under solvent and under Numba's CUDA simulator.
"""
import math
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def grid_stride_scale(alpha, x, out):          # scalar first, grid-stride loop
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = alpha * x[i] + 1.0


def early_return(n, x, out):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i >= n:
        return
    out[i] = clamp(x[i], -0.5, 0.5)


def rows_2d(A, out):                            # 2-D grid, guard on both axes
    r, c = cuda.grid(2)
    if r < A.shape[0] and c < A.shape[1]:
        out[r, c] = A[r, c] * (r + 1) - c


def block_sum_shared(x, out):                  # shared tree reduction, loop with a barrier
    tmp = cuda.shared.array(64, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    if i < x.shape[0]:
        tmp[t] = x[i]
    else:
        tmp[t] = 0.0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            tmp[t] += tmp[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = tmp[0]


def hist_int(vals, bins):                       # int atomics, int8 input
    i = cuda.grid(1)
    if i < vals.shape[0]:
        b = vals[i] % bins.shape[0]
        if b < 0:
            b += bins.shape[0]
        cuda.atomic.add(bins, b, 1)


def atomic_max_f32(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic.max(out, 0, x[i])


def local_poly(x, coef, out):                  # local array
    i = cuda.grid(1)
    if i < x.shape[0]:
        acc = cuda.local.array(4, dtype=np.float64)
        for k in range(4):
            acc[k] = coef[k] * x[i] ** k
        s = 0.0
        for k in range(4):
            s += acc[k]
        out[i] = s


def shift_shared(x, out):                      # neighbour read across threads via shared
    sh = cuda.shared.array(32, dtype=np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.shape[0]:
        sh[t] = x[i]
    cuda.syncthreads()
    if i < x.shape[0]:
        if t + 1 < cuda.blockDim.x and i + 1 < x.shape[0]:
            out[i] = sh[t + 1] - sh[t]
        else:
            out[i] = 0.0


def transpose_3d_grid(A, out):                 # 3-D grid
    i, j, k = cuda.grid(3)
    if i < A.shape[0] and j < A.shape[1] and k < A.shape[2]:
        out[k, j, i] = A[i, j, k]


def math_mix(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        out[i] = math.sqrt(abs(v)) + math.exp(-v * v) + math.floor(v * 3.0) + min(v, 0.25)


def c_style_while(x, out):                      # C port: while loop per thread
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        n = 0
        while v > 1.0 and n < 50:
            v = v * 0.5
            n += 1
        out[i] = n


def inplace_update(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = x[i] * 2 + i


def rng(seed):
    return np.random.default_rng(seed)


def cases():
    r = rng(0)
    x100 = r.standard_normal(100)
    A = r.standard_normal((7, 13))
    A3 = r.standard_normal((3, 5, 6))
    yield "grid_stride_scale", grid_stride_scale, (3, 16), lambda: (2.5, x100.copy(), np.zeros(100)), [2]
    yield "grid_stride_scale_f32", grid_stride_scale, (2, 8), lambda: (np.float32(1.5), x100.astype(np.float32), np.zeros(100, np.float32)), [2]
    yield "early_return", early_return, (4, 32), lambda: (100, x100.copy(), np.zeros(100)), [2]
    yield "early_return_strided", early_return, (2, 32), lambda: (50, x100[::2], np.zeros(50)), [2]
    yield "rows_2d", rows_2d, ((2, 4), (4, 4)), lambda: (A.copy(), np.zeros((7, 13))), [1]
    yield "rows_2d_fortran", rows_2d, ((2, 4), (4, 4)), lambda: (np.asfortranarray(A), np.zeros((7, 13), order="F")), [1]
    yield "block_sum_shared", block_sum_shared, (2, 64), lambda: (x100.copy(), np.zeros(2)), [1]
    yield "hist_int8", hist_int, (4, 32), lambda: ((x100 * 50).astype(np.int8), np.zeros(7, np.int32)), [1]
    yield "hist_int64", hist_int, (1, 128), lambda: ((x100 * 500).astype(np.int64), np.zeros(5, np.int64)), [1]
    yield "atomic_max_f32", atomic_max_f32, (4, 32), lambda: (x100.astype(np.float32), np.full(1, -np.inf, np.float32)), [1]
    yield "local_poly", local_poly, (4, 32), lambda: (x100.copy(), np.array([1.0, -2.0, 0.5, 0.25]), np.zeros(100)), [2]
    yield "shift_shared", shift_shared, (4, 32), lambda: (x100.astype(np.float32), np.zeros(100, np.float32)), [1]
    yield "transpose_3d", transpose_3d_grid, ((2, 2, 2), (2, 4, 4)), lambda: (A3.copy(), np.zeros((6, 5, 3))), [1]
    yield "math_mix", math_mix, (4, 32), lambda: (x100.copy(), np.zeros(100)), [1]
    yield "c_style_while", c_style_while, (4, 32), lambda: (np.abs(x100) * 100, np.zeros(100, np.int32)), [1]
    yield "inplace_update", inplace_update, (4, 32), lambda: (x100.copy(),), [0]
    yield "inplace_update_i8", inplace_update, (4, 32), lambda: ((x100 * 10).astype(np.int8),), [0]


def atomic_ticket(counter, order):               # uses the old value atomic.add returns
    i = cuda.grid(1)
    if i < order.shape[0]:
        old = cuda.atomic.add(counter, 0, 1)
        order[i] = old >= 0


def shared_2d_tile(A, out):                       # 2-D shared tile, threadIdx.y
    tile = cuda.shared.array((8, 8), dtype=np.float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r = cuda.blockIdx.y * 8 + ty
    c = cuda.blockIdx.x * 8 + tx
    if r < A.shape[0] and c < A.shape[1]:
        tile[ty, tx] = A[r, c]
    cuda.syncthreads()
    r2 = cuda.blockIdx.x * 8 + ty
    c2 = cuda.blockIdx.y * 8 + tx
    if r2 < out.shape[0] and c2 < out.shape[1]:
        out[r2, c2] = tile[tx, ty]


def int_div_mod(a, out_q, out_r):               # Python semantics of // and % on negatives
    i = cuda.grid(1)
    if i < a.shape[0]:
        out_q[i] = a[i] // 3
        out_r[i] = a[i] % 3


def true_div_ints(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] / 2


def dims_info(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = cuda.blockDim.x * 1000 + cuda.gridDim.x * 100 + cuda.threadIdx.y * 10 + cuda.blockDim.y


def atomic_min_int(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic.min(out, i % 3, x[i])


def device_loop_fn_user(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = horner(x[i], 5)


@cuda.jit(device=True)
def horner(v, n):
    s = 0.0
    for k in range(n):
        s = s * v + (k + 1)
    return s


def prefix_in_block(x, out):                    # Hillis-Steele scan, double buffer
    a = cuda.shared.array(32, dtype=np.float64)
    b = cuda.shared.array(32, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    a[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    off = 1
    while off < 32:
        if t >= off:
            b[t] = a[t] + a[t - off]
        else:
            b[t] = a[t]
        cuda.syncthreads()
        a[t] = b[t]
        cuda.syncthreads()
        off *= 2
    if i < x.shape[0]:
        out[i] = a[t]


def complex_scale(z, out):
    i = cuda.grid(1)
    if i < z.shape[0]:
        out[i] = z[i] * (1.0 + 2.0j) + abs(z[i])


def cases2():
    r = np.random.default_rng(5)
    x = r.standard_normal(70)
    A = r.standard_normal((11, 13))
    ai = np.arange(-20, 21, dtype=np.int64)
    yield "atomic_ticket", atomic_ticket, (3, 32), lambda: (np.zeros(1, np.int32), np.zeros(70, np.bool_)), [0, 1]
    yield "shared_2d_tile", shared_2d_tile, ((2, 2), (8, 8)), lambda: (np.ascontiguousarray(A[:, :11][:11]), np.zeros((11, 11))), [1]
    yield "int_div_mod", int_div_mod, (2, 32), lambda: (ai.copy(), np.zeros(41, np.int64), np.zeros(41, np.int64)), [1, 2]
    yield "int_div_mod_i8", int_div_mod, (2, 32), lambda: (ai.astype(np.int8), np.zeros(41, np.int8), np.zeros(41, np.int8)), [1, 2]
    yield "true_div_ints", true_div_ints, (2, 32), lambda: (ai.copy(), np.zeros(41)), [1]
    yield "dims_info", dims_info, (3, (8, 2)), lambda: (np.zeros(48, np.int64),), [0]
    yield "atomic_min_int", atomic_min_int, (3, 32), lambda: ((x * 100).astype(np.int32), np.full(3, 1000, np.int32)), [1]
    yield "device_loop_fn", device_loop_fn_user, (3, 32), lambda: (x.copy(), np.zeros(70)), [1]
    yield "prefix_in_block", prefix_in_block, (3, 32), lambda: (x.copy(), np.zeros(70)), [1]
    yield "complex_scale", complex_scale, (3, 32), lambda: ((x + 1j * x[::-1]).astype(np.complex64), np.zeros(70, np.complex64)), [1]
    yield "complex_scale128", complex_scale, (3, 32), lambda: (x + 1j * x[::-1], np.zeros(70, np.complex128)), [1]
