"""Fuzzer reproducer (seed 148), fixed (was a bug in the XLA lowering: a bool mask converted to float multiplied NaN into 0):
xla: C += (C == C[B % n]) / (B - B) adds 0 where NumPy adds nan (0/0); interp agrees with NumPy.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_148(B, C):
    C[1:] += (((C == C[B % C.shape[0]]) / (B - B)))[1:]
    return C


def ARGS():
    return (
        np.array([-8, 3, -1], dtype=np.int16),
        np.array([2.3357568346163813, 0.5585882113973555, 0.14168833155473476], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    "xla",  # fixed: bool -> float converts lower as a select on XLA
    "interp"])
def test_fuzz_148(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_148(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_148, backend=backend)(*args)
        return
    check(kernel_148, *args, backend=backend)
