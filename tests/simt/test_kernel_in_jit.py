"""A solvent.jit function may launch kernels: the lowered kernel is inlined into it, so a
time loop of launches is one compiled program."""
import numpy as np
import pytest
from numba import cuda

import solvent
from solvent.corpus_simt import basic, shared

jacobi = solvent.kernel(basic.jacobi_2d)
reduce_sum = solvent.kernel(shared.reduce_sum)


def relax(a, b, steps):
    for _ in range(steps):
        jacobi[(2, 2), (16, 16)](a, b)
        jacobi[(2, 2), (16, 16)](b, a)
    return a.sum()


def total(x, partial):
    reduce_sum[(x.size + shared.RB - 1) // shared.RB, shared.RB](x, partial)
    return partial.sum()


def test_time_loop_of_launches_in_a_jitted_function():
    r = np.random.default_rng(0)
    a0 = r.random((30, 30))
    a, b = a0.copy(), np.zeros((30, 30))
    got = solvent.jit(relax)(a, b, 3)
    ra, rb = a0.copy(), np.zeros((30, 30))
    for _ in range(3):
        basic._np_jacobi(ra, rb)
        basic._np_jacobi(rb, ra)
    np.testing.assert_allclose(a, ra, rtol=1e-12)
    np.testing.assert_allclose(b, rb, rtol=1e-12)
    np.testing.assert_allclose(got, ra.sum(), rtol=1e-12)


def test_launch_configuration_from_shapes_and_a_barrier_kernel():
    x = np.random.default_rng(1).random(1000)
    partial = np.zeros(8)
    got = solvent.jit(total)(x, partial)
    np.testing.assert_allclose(got, x.sum(), rtol=1e-12)
    np.testing.assert_allclose(partial[:-1], x[:896].reshape(7, 128).sum(1), rtol=1e-12)


@pytest.mark.parametrize("n", [9, 10])
def test_pathfinder_host_loop_in_a_jitted_function(n):
    from solvent.corpus_simt import physics
    case = physics.CASES[2]
    args = case.make_args(n, np.random.default_rng(n))
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    case.numpy(*ref)
    grid, block = case.config(n)
    case.jit_host(solvent.kernel(case.kernel)[grid, block])(*args)
    np.testing.assert_array_equal(args[3], ref[3])
