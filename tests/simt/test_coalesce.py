"""coalesce.py: a per-thread loop over coalesced accesses (``w[k, j]`` with ``j`` the
thread's index) runs with the threads innermost; kernels where that would not be exact or
not possible keep the flattened form. Every result against a NumPy reference."""
import math

import numpy as np
import pytest
from numba import cuda

import solvent


def column_dot(inp, w, bias, out, grad):
    j = cuda.grid(1)
    if j >= w.shape[1]:
        return
    s = bias[j]
    for k in range(w.shape[0]):
        s += inp[k] * w[k, j]
    o = 1.0 / (1.0 + math.exp(-s))
    out[j] = o
    for k in range(w.shape[0]):
        grad[k, j] = inp[k] * o


def _ref(inp, w, bias):
    o = 1.0 / (1.0 + np.exp(-(inp @ w + bias)))
    return o, np.outer(inp, o)


def shifted_reads(w, out):
    # thread j reads the column another thread writes: threads are not independent, so
    # the loop keeps its flattened (sequential threads) form
    j = cuda.grid(1)
    if j < w.shape[1] - 1:
        for k in range(w.shape[0]):
            w[k, j] = w[k, j + 1] * 2.0


def varying_trip(w, out):
    j = cuda.grid(1)
    if j < w.shape[1]:
        s = 0.0
        for k in range(j % 3, w.shape[0]):   # a trip count that differs between threads
            s += w[k, j]
        out[j] = s


def loop_name_reused(w, out):
    j = cuda.grid(1)
    if j < w.shape[1]:
        s = 0.0
        for k in range(w.shape[0]):
            s += w[k, j]
        k = j * 2   # the loop's name assigned per thread: fission cannot interchange it
        out[j] = s + k


def row_view(w, out):
    j = cuda.grid(1)
    if j < w.shape[1]:
        col = w[:, j]   # an array kept across the loop: only scalars are kept per thread
        s = 0.0
        for k in range(w.shape[0]):
            s += col[k] * w[k, j]
        out[j] = s


@pytest.mark.parametrize("n_in,n_out,layout,dtype", [
    (7, 45, "C", np.float64), (16, 32, "F", np.float64), (5, 33, "strided", np.float32),
    (1, 1, "C", np.float64), (0, 3, "C", np.float64), (3, 0, "C", np.float64)])
def test_column_dot_matches_numpy_and_runs_threads_innermost(n_in, n_out, layout, dtype):
    rng = np.random.default_rng(n_in * 100 + n_out)
    inp = rng.standard_normal(n_in).astype(dtype)
    w = rng.standard_normal((n_in, 2 * n_out if layout == "strided" else n_out)).astype(dtype)
    w = {"C": w, "F": np.asfortranarray(w), "strided": w[:, ::2]}[layout]
    bias = rng.standard_normal(n_out).astype(dtype)
    out, grad = np.zeros(n_out, dtype), np.zeros((n_in, n_out), dtype)
    launch = solvent.kernel(column_dot)[max(1, (n_out + 15) // 16), 16]
    launch(inp, w, bias, out, grad)
    o, g = _ref(inp.astype(np.float64), w.astype(np.float64), bias.astype(np.float64))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, o, rtol=tol, atol=tol)
    np.testing.assert_allclose(grad, g, rtol=tol, atol=tol)
    low = launch.report(inp, w, bias, out, grad)
    line = column_dot.__code__.co_firstlineno
    assert low.coalesced == [line + 5, line + 9]
    assert "threads innermost" in launch.explain(inp, w, bias, out, grad)


def test_a_block_of_one_thread_along_x_stays_flattened():
    inp, w, bias = np.ones(4), np.ones((4, 6)), np.zeros(6)
    out, grad = np.zeros(6), np.zeros((4, 6))
    launch = solvent.kernel(column_dot)[6, 1]
    launch(inp, w, bias, out, grad)
    o, g = _ref(inp, w, bias)
    np.testing.assert_allclose(out, o, rtol=1e-12)
    np.testing.assert_allclose(grad, g, rtol=1e-12)
    assert not launch.report(inp, w, bias, out, grad).coalesced


def test_threads_that_touch_each_others_elements_keep_the_flattened_order():
    w = np.arange(24.0).reshape(4, 6)
    ref = w.copy()
    for j in range(5):          # the threads in order, as the flattened loop runs them
        ref[:, j] = ref[:, j + 1] * 2.0
    launch = solvent.kernel(shifted_reads)[2, 4]
    got = w.copy()
    launch(got, np.zeros(1))
    np.testing.assert_array_equal(got, ref)
    assert not launch.report(w, np.zeros(1)).coalesced


@pytest.mark.parametrize("kernel", [varying_trip, loop_name_reused, row_view])
def test_loops_fission_cannot_interchange_keep_the_flattened_form(kernel):
    w = np.random.default_rng(1).random((5, 13))
    out = np.zeros(13)
    launch = solvent.kernel(kernel)[2, 8]
    launch(w, out)
    cols = np.arange(13)
    if kernel is varying_trip:
        ref = np.array([w[j % 3:, j].sum() for j in cols])
    elif kernel is loop_name_reused:
        ref = w.sum(axis=0) + 2 * cols
    else:
        ref = (w * w).sum(axis=0)
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    assert not launch.report(w, out).coalesced


def test_other_backends_and_jit_hosts_run_the_flattened_form():
    rng = np.random.default_rng(3)
    inp, w, bias = rng.standard_normal(6), rng.standard_normal((6, 20)), rng.standard_normal(20)
    o, g = _ref(inp, w, bias)
    k = solvent.kernel(column_dot)
    for backend in ("xla", "interp"):
        launch = k[2, 16].on(backend)
        out, grad = np.zeros(20), np.zeros((6, 20))
        launch(inp, w, bias, out, grad)
        np.testing.assert_allclose(out, o, rtol=1e-12)
        np.testing.assert_allclose(grad, g, rtol=1e-12)
        low = launch.report(inp, w, bias, out, grad)
        assert low.flat is not None and not low.coalesced
    step = k[2, 16]

    @solvent.jit
    def twice(inp, w, bias, out, grad):
        for _ in range(2):
            step(inp, w, bias, out, grad)

    out, grad = np.zeros(20), np.zeros((6, 20))
    twice(inp, w, bias, out, grad)
    np.testing.assert_allclose(out, o, rtol=1e-12)
    np.testing.assert_allclose(grad, g, rtol=1e-12)


# --- runs between barriers: per-thread loops over shared tiles ------------------------------

T = 8


def tiled_mm(A, B, C, n, m, kd):
    # a stranger's tiled matmul: 2-D grid and block, ragged last blocks, int32 sizes,
    # the tile width read from blockDim
    sa = cuda.shared.array((T, T), dtype=np.float64)
    sb = cuda.shared.array((T, T), dtype=np.float64)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    w = cuda.blockDim.x
    r = cuda.blockIdx.y * w + ty
    c = cuda.blockIdx.x * w + tx
    acc = 0.0
    for t in range((kd + w - 1) // w):
        if r < n and t * w + tx < kd:
            sa[ty, tx] = A[r, t * w + tx]
        else:
            sa[ty, tx] = 0.0
        if c < m and t * w + ty < kd:
            sb[ty, tx] = B[t * w + ty, c]
        else:
            sb[ty, tx] = 0.0
        cuda.syncthreads()
        for k in range(w):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if r < n and c < m:
        C[r, c] = acc


def shared_vector_matvec(x, W, out):
    # 1-D blocks: the block copies x into shared memory with a blockDim-strided loop, then
    # each thread walks a column of W
    sx = cuda.shared.array(64, dtype=np.float32)
    tx = cuda.threadIdx.x
    j = cuda.grid(1)
    n = x.shape[0]
    for k in range(tx, n, cuda.blockDim.x):
        sx[k] = x[k]
    cuda.syncthreads()
    if j < W.shape[1]:
        s = np.float32(0)
        for k in range(n):
            s += sx[k] * W[k, j]
        out[j] = s


def triangle_tile(A, out):
    # the inner loop's trip count depends on the thread: it stays inside the thread loop
    sa = cuda.shared.array((T, T), dtype=np.float64)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    r = cuda.blockIdx.x * T + ty
    sa[ty, tx] = A[r, tx] if r < A.shape[0] else 0.0
    cuda.syncthreads()
    s = 0.0
    for k in range(tx, T):
        s += sa[ty, k] * sa[k, tx]
    if r < A.shape[0]:
        out[r, tx] = s


@pytest.mark.parametrize("n,kd,m,dtype", [(13, 21, 10, np.float64), (9, 17, 3, np.float32)])
def test_tiled_matmul_runs_its_tile_product_with_threads_innermost(n, kd, m, dtype):
    rng = np.random.default_rng(n * 31 + kd)
    A = rng.standard_normal((n, kd)).astype(dtype)
    B = rng.standard_normal((kd, m)).astype(dtype)
    C = np.zeros((n, m), dtype)
    launch = solvent.kernel(tiled_mm)[((m + T - 1) // T, (n + T - 1) // T), (T, T)]
    args = (A, B, C, np.int32(n), np.int32(m), np.int32(kd))
    launch(*args)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(C, A.astype(np.float64) @ B.astype(np.float64), rtol=tol,
                               atol=tol)
    low = launch.report(*args)
    line = tiled_mm.__code__.co_firstlineno
    assert low.coalesced == [line + 20]
    assert "threads innermost" in launch.explain(*args)
    # the other backends run the kernel without the added barrier, to the same result
    C2 = np.zeros((n, m), dtype)
    launch.on("interp")(A, B, C2, np.int32(n), np.int32(m), np.int32(kd))
    np.testing.assert_allclose(C2, C, rtol=tol, atol=tol)


@pytest.mark.parametrize("n,m", [(5, 37), (64, 32), (1, 1)])
def test_a_loop_after_a_barrier_over_a_shared_vector_runs_threads_innermost(n, m):
    rng = np.random.default_rng(n + m)
    x = rng.standard_normal(n).astype(np.float32)
    W = rng.standard_normal((n, m)).astype(np.float32)
    out = np.zeros(m, np.float32)
    launch = solvent.kernel(shared_vector_matvec)[(m + 15) // 16, 16]
    launch(x, W, out)
    np.testing.assert_allclose(out, x.astype(np.float64) @ W, rtol=1e-4, atol=1e-5)
    line = shared_vector_matvec.__code__.co_firstlineno
    assert launch.report(x, W, out).coalesced == [line + 12]


def test_a_loop_with_a_thread_dependent_trip_count_stays_inside_the_thread_loop():
    A = np.random.default_rng(2).random((13, T))
    out = np.zeros((13, T))
    launch = solvent.kernel(triangle_tile)[2, (T, T)]
    launch(A, out)
    ref = np.zeros((16, T))
    for b in range(2):
        tile = np.zeros((T, T))
        rows = A[b * T:(b + 1) * T]
        tile[:len(rows)] = rows
        for ty in range(T):
            for tx in range(T):
                ref[b * T + ty, tx] = sum(tile[ty, k] * tile[k, tx] for k in range(tx, T))
    np.testing.assert_allclose(out, ref[:13], rtol=1e-12)
    assert not launch.report(A, out).coalesced


def guarded_column_sums(w, out):
    # the usual `if j < n` guard around the per-thread loop, int32 columns count
    j = cuda.grid(1)
    if j < out.shape[0]:
        s = np.float32(0)
        for k in range(w.shape[0]):
            s += w[k, j]
        out[j] = s * 2


@pytest.mark.parametrize("rows,cols", [(6, 45), (1, 16), (0, 5)])
def test_a_guarded_loop_without_barriers_runs_threads_innermost(rows, cols):
    w = np.random.default_rng(rows).random((rows, cols)).astype(np.float32)
    out = np.full(cols, -1.0, np.float32)
    launch = solvent.kernel(guarded_column_sums)[(cols + 15) // 16, 16]
    launch(w, out)
    np.testing.assert_allclose(out, 2 * w.sum(axis=0, dtype=np.float64), rtol=1e-5)
    line = guarded_column_sums.__code__.co_firstlineno
    assert launch.report(w, out).coalesced == [line + 5]


def strided_block_sums(w, out):
    # reads blockDim: the grouping of threads into blocks shows in the result
    j = cuda.grid(1)
    if j < out.shape[0]:
        s = 0.0
        for k in range(w.shape[0]):
            s += w[k, j] * cuda.blockDim.x
        out[j] = s


@pytest.mark.parametrize("blocks,threads_", [(64, 16), (33, 32), (48, 8)])
def test_threads_told_apart_only_by_cuda_grid_run_in_wider_blocks(blocks, threads_):
    n = blocks * threads_ - 3   # a ragged last block
    rng = np.random.default_rng(blocks)
    inp, w, bias = rng.standard_normal(5), rng.standard_normal((5, n)), rng.standard_normal(n)
    out, grad = np.zeros(n), np.zeros((5, n))
    launch = solvent.kernel(column_dot)[blocks, threads_]
    launch(inp, w, bias, out, grad)
    o, g = _ref(inp, w, bias)
    np.testing.assert_allclose(out, o, rtol=1e-12)
    np.testing.assert_allclose(grad, g, rtol=1e-12)
    low = launch.report(inp, w, bias, out, grad)
    from solvent.backends.native import threads
    if blocks % 2 == 0 and blocks >= 8 * threads.settings()["threads"]:
        assert low.regrouped is not None   # at least 4 blocks per thread of the pool remain
    if low.regrouped is not None:
        assert low.regrouped.grid[0] * low.regrouped.block[0] == blocks * threads_
        assert blocks % low.regrouped.grid[0] == 0
        assert "the threads run in" in launch.explain(inp, w, bias, out, grad)


def test_a_kernel_reading_block_dim_keeps_its_blocks():
    w = np.random.default_rng(0).random((3, 40))
    out = np.zeros(40)
    launch = solvent.kernel(strided_block_sums)[64, 8]
    launch(w, out)
    np.testing.assert_allclose(out, 8 * w.sum(axis=0), rtol=1e-12)
    low = launch.report(w, out)
    assert low.regrouped is None and low.coalesced
