"""Bad input to solvent.kernel: launch configurations, divergent barriers, out-of-bounds
indices (IndexError with the line; the caller's arrays unchanged), kernels calling kernels."""
import numpy as np
import pytest
from numba import cuda

import solvent
from solvent.errors import DivergentBarrierError


def copy_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i]


def unguarded(x, out):
    i = cuda.grid(1)
    out[i] = x[i] + 1.0


def divergent(x, out):
    i = cuda.grid(1)
    if i < 5:
        cuda.syncthreads()
    out[i] = x[i]


def divergent_at_run_time(limits, out):
    sd = cuda.shared.array(8, dtype=np.int64)
    tx = cuda.threadIdx.x
    if tx == 3:
        sd[0] = limits[0]  # a race: threads before 3 read the old value, others the new
    n = sd[0]
    for k in range(n):
        out[tx] = k
        cuda.syncthreads()


def thread_dependent_loop(limits, out):
    tx = cuda.threadIdx.x
    for k in range(limits[tx]):
        cuda.syncthreads()
        out[tx] = k


@pytest.mark.parametrize("cfg", [(0, 4), (4, -1), (2.0, 4), (4, (2, 2, 2, 2)), (True, 4),
                                 (4, "8"), ((), 4)])
def test_bad_launch_configuration_is_refused(cfg):
    k = solvent.kernel(copy_kernel)
    with pytest.raises((TypeError, ValueError), match="kernel launch"):
        k[cfg]


def test_launch_without_configuration_is_refused():
    k = solvent.kernel(copy_kernel)
    with pytest.raises(TypeError, match=r"\[blocks, threads_per_block\]"):
        k(np.zeros(3), np.zeros(3))
    with pytest.raises(TypeError, match="kernel launch"):
        k[4]


def test_index_out_of_bounds_names_the_line_and_leaves_arrays_unchanged():
    k = solvent.kernel(unguarded)
    x, out = np.ones(30), np.full(30, 7.0)
    line = unguarded.__code__.co_firstlineno + 2
    with pytest.raises(IndexError, match=rf"test_kernel_errors.py:{line}:\d+: index"):
        k[1, 32](x, out)
    assert (out == 7.0).all()


def test_barrier_under_thread_dependent_if_is_refused_at_compile_time():
    with pytest.raises(DivergentBarrierError, match="'i'"):
        solvent.kernel(divergent)[1, 8](np.ones(8), np.zeros(8))


def test_barrier_under_thread_dependent_loop_is_refused_at_compile_time():
    with pytest.raises(DivergentBarrierError, match="range of this loop"):
        solvent.kernel(thread_dependent_loop)[1, 8](np.ones(8, np.int64), np.zeros(8))


def test_barrier_under_disagreeing_loop_bounds_raises_at_run_time():
    k = solvent.kernel(divergent_at_run_time)
    out = np.full(8, -1.0)
    k[1, 8](np.zeros(1, np.int64), out)  # all threads read 0: no trip, agreed
    np.testing.assert_array_equal(out, np.full(8, -1.0))
    with pytest.raises(DivergentBarrierError, match="disagree"):
        k[1, 8](np.full(1, 3, np.int64), out)
    assert (out == -1).all()


def test_kernel_calling_a_kernel_is_refused():
    inner = cuda.jit(copy_kernel)

    def outer(x, out):
        inner(x, out)

    with pytest.raises(solvent.UnsupportedError, match="cannot call another kernel"):
        solvent.kernel(outer)[1, 4](np.ones(4), np.zeros(4))


def test_cuda_jit_dispatcher_and_plain_function_give_the_same_result():
    x = np.arange(10.0)
    a, b = np.zeros(10), np.zeros(10)
    solvent.kernel(cuda.jit(copy_kernel))[3, 4](x, a)
    solvent.kernel(copy_kernel)[(3,), (4, 1)](x, b)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, x)
