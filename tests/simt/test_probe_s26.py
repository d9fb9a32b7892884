"""Kernels from the s26 stranger probe (/work/notes/s26/probe_simt.py) that solvent got
wrong or refused, each against the answer Numba's CUDA simulator gives (worked out here in
NumPy)."""
import numpy as np
import pytest
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
        launch.on(on)(A, B, C)
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
        launch.on(on)(x, out)
        np.testing.assert_array_equal(out, x * COEF[np.arange(10) % 4])


def atomic_min_in_expression(a, x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = cuda.atomic.min(a, i, x[i]) + 1


def last_block_done(x, count, out):
    # the "last block finishes the job" idiom: the atomic's old value in an if's test
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * 2
    if cuda.threadIdx.x == 0:
        if cuda.atomic.add(count, 0, 1) == cuda.gridDim.x - 1:
            out[x.shape[0]] = 1.0


def test_atomic_old_value_inside_an_expression():
    a0 = np.array([3, -1, 5, 0, 2], np.int32)
    x = np.array([1, 4, -2, 0, 7], np.int32)
    for on in (None, "xla"):
        a, out = a0.copy(), np.zeros(5, np.int32)
        launch = solvent.kernel(atomic_min_in_expression)[1, 8]
        launch.on(on)(a, x, out)
        np.testing.assert_array_equal(out, a0 + 1)
        np.testing.assert_array_equal(a, np.minimum(a0, x))
    x = np.arange(20.0)
    count, out = np.zeros(1, np.int32), np.zeros(21)
    solvent.kernel(last_block_done)[3, 8](x, count, out)
    np.testing.assert_array_equal(out, np.r_[x * 2, 1.0])
    assert count[0] == 3


def atomic_and_read_same_array(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + cuda.atomic.add(a, i, 1)


def test_atomic_in_an_expression_that_reads_its_array_is_refused():
    # hoisting the atomic above the statement would change what a[i] reads
    with pytest.raises(solvent.UnsupportedError, match="besides updating"):
        solvent.kernel(atomic_and_read_same_array)[1, 4](np.zeros(4), np.zeros(4))


def scaled(x, out, alpha=2.0):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * alpha


_scaled = solvent.kernel(scaled)


def host_scaled(x, out):
    _scaled[2, 8](x, out)


def test_kernel_parameter_with_a_default_value():
    x = np.arange(10.0)
    for on in (None, "xla"):
        out = np.zeros(10)
        launch = _scaled[2, 8]
        launch.on(on)(x, out)
        np.testing.assert_array_equal(out, 2 * x)
    out = np.zeros(10)
    _scaled[2, 8](x, out, 5.0)
    np.testing.assert_array_equal(out, 5 * x)
    out = np.zeros(10)
    solvent.jit(host_scaled)(x, out)
    np.testing.assert_array_equal(out, 2 * x)
    assert "alpha" in _scaled[2, 8].explain(x, out)


def plus_one(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] + 1


def axpy_into(a, x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a * x[i] + y[i]


def test_the_same_array_passed_twice_is_updated_in_place():
    # k(x, x): each thread reads and writes its own element, well defined in CUDA (and in
    # Numba's simulator); solvent refused ('share memory')
    k = solvent.kernel(plus_one)
    for on in (None, "xla"):
        x = np.arange(30.0)
        k[2, 16].on(on)(x, x)
        np.testing.assert_array_equal(x, np.arange(30.0) + 1)
    y = np.arange(30.0)
    k[2, 16](y, np.zeros(30))          # a version for separate arrays first
    k[2, 16](y, y)
    np.testing.assert_array_equal(y, np.arange(30.0) + 1)
    base = np.arange(40.0)
    k[2, 16](base[::2], base[::2])      # the same view twice (two view objects)
    np.testing.assert_array_equal(base[::2], np.arange(0, 40.0, 2) + 1)
    np.testing.assert_array_equal(base[1::2], np.arange(1, 40.0, 2))
    z = np.arange(30.0)
    solvent.kernel(axpy_into)[2, 16](2.0, z, z, z)
    np.testing.assert_array_equal(z, 3 * np.arange(30.0))


def test_overlapping_but_different_views_are_still_refused():
    x = np.arange(31.0)
    with pytest.raises(solvent.UnsupportedError, match="share memory"):
        solvent.kernel(plus_one)[2, 16](x[1:], x[:-1])
    np.testing.assert_array_equal(x, np.arange(31.0))


RB = 32


def rotate_then_break(x, out):
    sm = cuda.shared.array(RB, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i]
    cuda.syncthreads()
    for it in range(10):
        if it == 3:
            break
        v = sm[(t + 1) % RB]
        cuda.syncthreads()
        sm[t] = v
        cuda.syncthreads()
    out[i] = sm[t] + 100 * it


def rotate_odd_continue(x, out):
    sm = cuda.shared.array(RB, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i]
    cuda.syncthreads()
    for it in range(6):
        if it % 2 == 1:
            continue
        v = sm[(t + 1) % RB]
        cuda.syncthreads()
        sm[t] = v
        cuda.syncthreads()
    out[i] = sm[t]


def grow_until_flag(x, out, limit):
    # an iterative kernel that stops when thread 0 says so through shared memory
    sm = cuda.shared.array(RB, dtype=np.float64)
    flag = cuda.shared.array(1, dtype=np.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i]
    if t == 0:
        flag[0] = 0
    cuda.syncthreads()
    k = 0
    while True:
        v = sm[(t + 1) % RB]
        cuda.syncthreads()
        sm[t] = v + 1.0
        if t == 0 and sm[0] > limit:
            flag[0] = 1
        cuda.syncthreads()
        if flag[0] == 1:
            break
        k += 1
    out[i] = sm[t] + 1000 * k


def thread_dependent_break(x, out):
    t = cuda.threadIdx.x
    for it in range(4):
        if t == it:
            break
        cuda.syncthreads()
    out[t] = x[t]


def _rotations(x, n):
    return np.concatenate([np.roll(b, -n) for b in x.reshape(-1, RB)])


def test_break_and_continue_in_a_loop_with_barriers():
    x = np.arange(64.0)
    for on in (None, "xla"):
        out = np.zeros(64)
        launch = solvent.kernel(rotate_then_break)[2, RB]
        launch.on(on)(x, out)
        np.testing.assert_array_equal(out, _rotations(x, 3) + 300)
        out = np.zeros(64)
        launch = solvent.kernel(rotate_odd_continue)[2, RB]
        launch.on(on)(x, out)
        np.testing.assert_array_equal(out, _rotations(x, 3))
    # the reference: the same loop over blocks in NumPy
    out = np.zeros(64)
    solvent.kernel(grow_until_flag)[2, RB](x, out, 40.0)
    ref = []
    for b in x.reshape(-1, RB):
        sm, k = b.copy(), 0
        while True:
            sm = np.roll(sm, -1) + 1.0
            if sm[0] > 40.0:
                break
            k += 1
        ref.append(sm + 1000 * k)
    np.testing.assert_array_equal(out, np.concatenate(ref))


def test_break_under_a_thread_dependent_condition_around_a_barrier_is_refused():
    from solvent.errors import DivergentBarrierError
    with pytest.raises(DivergentBarrierError):
        solvent.kernel(thread_dependent_break)[1, 8](np.ones(8), np.zeros(8))


def nested_break(x, out):
    sm = cuda.shared.array(RB, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i]
    cuda.syncthreads()
    for a in range(3):
        for b in range(5):
            if b > a + 1:
                break
            v = sm[(t + 1) % RB]
            cuda.syncthreads()
            sm[t] = v
            cuda.syncthreads()
    out[i] = sm[t]


def test_break_in_a_barrier_loop_nested_in_another():
    # the flag is carried through both loops (see the native fix below)
    x = np.arange(96.0)
    for on in (None, "xla"):
        out = np.zeros(96)
        launch = solvent.kernel(nested_break)[3, RB]
        launch.on(on)(x, out)
        np.testing.assert_array_equal(out, _rotations(x, 9), err_msg=str(on))


def rotate_with_flag_in_nested_loops(x, out):
    # written by hand the way jumps.py writes a nested break: a flag carried through two
    # loops around a barrier. On the native backend the blocks loop could not run on the
    # pool after all, but its arrays kept one copy per pool thread, and the threads loop
    # nested in it (which then ran on the pool) used another copy than the code around it:
    # every output was 0.0 with 3 blocks (1 block was right)
    sm = cuda.shared.array(RB, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i]
    cuda.syncthreads()
    for a in range(3):
        stop = False
        for b in range(5):
            if not stop:
                if b > a + 1:
                    stop = True
                if not stop:
                    v = sm[(t + 1) % RB]
                    cuda.syncthreads()
                    sm[t] = v
                    cuda.syncthreads()
    out[i] = sm[t]


def test_flag_carried_through_two_loops_around_a_barrier_with_parallel_blocks():
    x = np.arange(96.0)
    for on in (None, "native", "xla"):
        out = np.full(96, -1.0)
        launch = solvent.kernel(rotate_with_flag_in_nested_loops)[3, RB]
        launch.on(on)(x, out)
        np.testing.assert_array_equal(out, _rotations(x, 9), err_msg=str(on))
