"""Fuzzer reproducer (seed 1325): a constant index out of bounds (axis of size 0) in code
that runs only under a run-time condition raised IndexError at compile time, where NumPy
never runs it (or raises another error first). Fixed in frontend/indexing.py: such an index
is a run-time check (element 0 stands in; on an empty axis a read gets a zero stand-in and a
write is dropped, tests/frontend/test_empty_axis_stand_in.py); it never raises the wrong error.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_1325(A, q):
    for i in range(A.shape[0] - 1):
        t1 = ((0.5 / i))
        if (q % 4) > 0:
            pass
        else:
            A[i + 1, 0] += i


def ARGS():
    return (
        np.zeros((2, 0), dtype=np.float64),
        1,
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_1325(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_1325(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises((type(e), solvent.UnsupportedError)):
            solvent.jit(kernel_1325, backend=backend)(*args)
        return
    try:
        check(kernel_1325, *args, backend=backend)
    except solvent.UnsupportedError:
        pass  # refusing is allowed; a wrong value or a wrong exception is not


def conditional_constant_index(A, x):
    if x > 0:
        A[0, 5] = 1.0
    return A.sum()


@pytest.mark.parametrize("x,raises", [(-1.0, False), (1.0, True)])
def test_constant_index_out_of_bounds_raises_only_where_it_runs(backend, x, raises):
    A = np.ones((2, 3))
    if raises:
        with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 3"):
            conditional_constant_index(A.copy(), x)
        with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 3"):
            solvent.jit(conditional_constant_index, backend=backend)(A.copy(), x)
    else:
        check(conditional_constant_index, A, x, backend=backend)
