"""Fuzzer reproducer (seed 4244), open bug in the XLA lowering:
xla: np.sqrt(A) * np.logical_not(A) is 0 where NumPy has nan (nan * False): the product by a bool loses NaN (as test_fuzz_249).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_4244(A):
    return (np.sqrt(A) * np.logical_not(A))


def ARGS():
    return (
        np.array([-0.19713652079029398], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    "xla",  # fixed: bool -> float converts lower as a select on XLA
    "interp"])
def test_fuzz_4244(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_4244(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_4244, backend=backend)(*args)
        return
    check(kernel_4244, *args, backend=backend)
