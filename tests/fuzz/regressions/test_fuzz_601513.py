"""Fuzzer reproducer (seed 601513), fixed: np.sign(-0.0) was -0.0 on XLA, +0.0 in NumPy, so 1.0 // np.sign(B) gave -inf for inf. Was: xla:value.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_601513(B):
    B[1:] *= ((B < B))[1:]
    return (1.0 // np.sign(B))


def ARGS():
    return (
        np.array([-0.9663870643692012, -0.9261092400455617], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_fuzz_601513(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_601513(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_601513, backend=backend)(*args)
        return
    check(kernel_601513, *args, backend=backend)
