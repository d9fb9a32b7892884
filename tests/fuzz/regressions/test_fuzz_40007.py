"""Fuzzer reproducer (seed 40007), fixed: XLA float % broadcasts its operands: xla:crash-TypeError.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_40007(A):
    A[:] += (((np.sum(A, axis=0) % (A.sum(axis=1))[:, None])))[:]


def ARGS():
    return (
        np.zeros((0, 0), dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_40007(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_40007(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_40007, backend=backend)(*args)
        return
    check(kernel_40007, *args, backend=backend)
