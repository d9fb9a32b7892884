"""Fuzzer reproducer (seed 2177), open frontend bug (as test_fuzz_1325): a constant index out of bounds (axis of size 0) in a while loop that never runs raises IndexError at compile time.

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


@pytest.mark.parametrize("backend", [
    pytest.param("xla", marks=pytest.mark.xfail(strict=True, reason=
        '[xla] a constant index out of bounds (axis of size 0) in a while loop that never runs raises IndexError at compile time')),
    pytest.param("interp", marks=pytest.mark.xfail(strict=True, reason=
        '[interp] a constant index out of bounds (axis of size 0) in a while loop that never runs raises IndexError at compile time'))])
def test_fuzz_2177(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_2177(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_2177, backend=backend)(*args)
        return
    check(kernel_2177, *args, backend=backend)
