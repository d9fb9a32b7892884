"""Fuzzer reproducer (seed 396): np.int64 scalar stored into an int8 element that it does not fit: NumPy raises
OverflowError (fixed in frontend/emit.py cast_for_store).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_396(C):
    C[::2] *= C[::2]
    t3 = (np.sum(C))
    for i in range(C.shape[0] - 1):
        C[i + 1] *= t3


def ARGS():
    return (
        np.array([3, -2, -1, -5, 5, 6], dtype=np.int8)[::2],
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_396(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_396(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_396, backend=backend)(*args)
        return
    check(kernel_396, *args, backend=backend)
