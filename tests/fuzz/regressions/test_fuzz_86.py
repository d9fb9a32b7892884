"""Fuzzer reproducer (seed 86): bool array ** 2 is np.square (int8), not power with a Python int (int64)
(fixed in frontend/expressions.py).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_86(B):
    return ((B ** 2))


def ARGS():
    return (
        np.zeros((0, 0), dtype=np.bool),
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_86(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_86(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_86, backend=backend)(*args)
        return
    check(kernel_86, *args, backend=backend)
