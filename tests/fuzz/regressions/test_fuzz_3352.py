"""Fuzzer reproducer (seed 3352), fixed (XLA floor_divide now follows npy_divmod):
xla: 1.0 // (-0.0 // 0.5) is -inf, NumPy inf: floor_divide loses NumPy's sign of a zero quotient (as test_fuzz_207).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_3352(A, B):
    for i in range(0, A.shape[0] - 1):
        for j in range(B.shape[0] - 1):
            B[j + 1] *= ((i < i))
    B[:] -= ((1.0 // (B // 0.5)))[:]


def ARGS():
    return (
        np.array([-0.7360499102427197, 0.09049181351624659], dtype=np.float64),
        np.array([1.1931246929152037, -0.6166466682771641], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_3352(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_3352(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_3352, backend=backend)(*args)
        return
    check(kernel_3352, *args, backend=backend)
