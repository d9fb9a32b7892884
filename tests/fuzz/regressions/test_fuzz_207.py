"""Fuzzer reproducer (seed 207), fixed (XLA floor_divide now follows npy_divmod):
xla: x // s gives -0.0 where NumPy gives +0.0 (1.0 // that is -inf, NumPy inf).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_207(A, x):
    return (1.0 // (x // A.sum()))


def ARGS():
    return (
        np.array([0.4882274152296869, -1.5707502710930643], dtype=np.float64),
        -0.059,
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_207(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_207(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_207, backend=backend)(*args)
        return
    check(kernel_207, *args, backend=backend)
