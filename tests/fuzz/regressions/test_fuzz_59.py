"""Fuzzer reproducer (seed 59), fixed (solvent writes atan2's zero cases out on XLA):
xla: arctan2(A, h1 == 0.25) with A == 0.0 and a bool 0 is nan, NumPy 0.0.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def helper(a, b):
    return a * 2 + b

def kernel_59(A, q):
    A[::2] = (2.0 * (5 == 4))
    h1 = helper((1.0 < 0.5), q)
    return np.arctan2(A, (h1 == 0.25))


def ARGS():
    return (
        np.array([-1.0069957123095605], dtype=np.float64),
        4,
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_59(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_59(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_59, backend=backend)(*args)
        return
    check(kernel_59, *args, backend=backend)
