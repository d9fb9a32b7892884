"""Fuzzer reproducer (seed 40290), fixed: XLA float % broadcasts its operands: xla:crash-TypeError.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_40290(B, C):
    return (B + (B[B % B.shape[0]] % (C)[:, None]))


def ARGS():
    return (
        np.zeros((0,), dtype=np.int8),
        np.zeros((0,), dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_40290(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_40290(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_40290, backend=backend)(*args)
        return
    check(kernel_40290, *args, backend=backend)
