"""Fuzzer reproducer (seed 21318), fixed: an empty result that is the argument itself (after
-(-x) -> x) was handed out without a copy, since np.may_share_memory is False for size 0.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_21318(A, k, B, x):
    B[:] -= (np.where(np.hypot(A, 4) > 0, B, (5 < np.sum(B))))[:]
    return np.negative(np.negative(A))


def ARGS():
    return (
        np.zeros((0,), dtype=np.float64),
        (0, 2),
        np.zeros((0,), dtype=np.float64),
        1.351,
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_21318(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_21318(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_21318, backend=backend)(*args)
        return
    check(kernel_21318, *args, backend=backend)
