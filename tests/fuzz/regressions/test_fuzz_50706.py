"""Fuzzer reproducer (seed 50706), fixed (a compile-time error after a run-time check is itself a run-time check, emit.raise_now): xla:numpy-raises-ZeroDivisionError-solvent-ValueError;interp:numpy-raises-ZeroDivisionError-solvent-ValueError.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def helper(a, b):
    return a * 2 + b

def kernel_50706(A, B, x):
    if np.sign(2.0) > 1:
        pass
    else:
        A[:-1] = (3 // (0.25 // x))
    h1 = helper((1.0 / (5 * B.max())), x)   # (the shrunk program also left out b)


def ARGS():
    return (
        np.zeros((0,), dtype=np.float64),
        np.zeros((0, 0), dtype=np.float64),
        1.304,
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_50706(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_50706(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_50706, backend=backend)(*args)
        return
    check(kernel_50706, *args, backend=backend)
