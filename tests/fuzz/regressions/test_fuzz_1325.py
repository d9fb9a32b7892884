"""Fuzzer reproducer (seed 1325), open frontend bug: a constant index out of bounds (axis of size 0) in a branch NumPy never runs raises IndexError at compile time, before NumPy's ZeroDivisionError
(frontend/indexing.py raises for constant indices wherever they are; a fix needs a
run-time check and a stand-in value of the right shape, as npapi_math.reduce does for max/min).

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


@pytest.mark.parametrize("backend", [
    pytest.param("xla", marks=pytest.mark.xfail(strict=True, reason=
        "[xla] a constant index out of bounds (axis of size 0) in a branch NumPy never runs raises IndexError at compile time, before NumPy's ZeroDivisionError")),
    pytest.param("interp", marks=pytest.mark.xfail(strict=True, reason=
        "[interp] a constant index out of bounds (axis of size 0) in a branch NumPy never runs raises IndexError at compile time, before NumPy's ZeroDivisionError"))])
def test_fuzz_1325(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_1325(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_1325, backend=backend)(*args)
        return
    check(kernel_1325, *args, backend=backend)
