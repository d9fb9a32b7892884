"""Fuzzer reproducer (seed 2177): a constant index out of bounds (axis of size 0) in code
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


def kernel_2177(x, A):
    c2 = 0
    while c2 < 1 and (x != x) > 0.5:
        for i in range(1, A.shape[0] - 1):
            A[i, 0] += 1.0
        c2 += 1


def ARGS():
    return (
        1.6,
        np.zeros((3, 0), dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_2177(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_2177(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises((type(e), solvent.UnsupportedError)):
            solvent.jit(kernel_2177, backend=backend)(*args)
        return
    try:
        check(kernel_2177, *args, backend=backend)
    except solvent.UnsupportedError:
        pass  # refusing is allowed; a wrong value or a wrong exception is not
