"""Loops stay loops: a time loop is one op whatever its trip count."""
import numpy as np

import solvent
from solvent.corpus import get


def _count_ops(fn):
    return sum(1 for _ in fn.walk())


def _ops_after_pipeline(kernel, *args):
    jf = solvent.jit(kernel)
    return jf.compile(args).fn


def test_heat_ir_size_does_not_depend_on_tsteps():
    k = get("heat_2d_slices").func
    a, b = np.random.rand(16, 16), np.random.rand(16, 16)
    f10 = _ops_after_pipeline(k, 10, a, b)
    f1000 = _ops_after_pipeline(k, 1000, a, b)
    assert _count_ops(f10) == _count_ops(f1000)
    assert [op.name for op in f10.walk()].count("loop.for") == 1


def test_static_trip_count_is_not_unrolled():
    def kernel(A):
        for t in range(500):
            A[1:-1] = 0.5 * (A[:-2] + A[2:])
        return A

    small = solvent.jit(kernel).compile((np.zeros(8),)).fn
    names = [op.name for op in small.walk()]
    assert names.count("loop.for") == 1
    assert names.count("tensor.update_slice") == 1
