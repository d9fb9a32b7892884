"""Fuzzer reproducer (seed 606588), fixed: an index into an empty axis after a run-time check that may fail first raised IndexError at compile time where NumPy raises the earlier ValueError; it is now a run-time check (the empty axis's read has a stand-in value, its write is dropped), so the earlier check fails first, as in NumPy. Was: xla:numpy-raises-ValueError-solvent-IndexError;native:numpy-raises-ValueError-solvent-IndexError;interp:numpy-raises-ValueError-solvent-IndexError.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_606588(A, x):
    for i in range(1, A.shape[0] - 1):
        t4 = ((A.min() - i))
    A[:, 0] += x


def ARGS():
    return (
        np.zeros((3, 0), dtype=np.float64),
        0.464,
    )


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_fuzz_606588(backend):
    with pytest.raises(ValueError):      # NumPy: A.min() of an empty array, in the loop
        kernel_606588(*copy.deepcopy(ARGS()))
    args = ARGS()
    with pytest.raises(ValueError, match="reduction operation minimum which has no identity"):
        solvent.jit(kernel_606588, backend=backend)(*args)
    assert args[0].shape == (3, 0)


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_fuzz_606588_loop_not_run(backend):
    """One row: the loop runs zero times, and the index error is the one raised."""
    A = np.zeros((1, 0))
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 1 with size 0"):
        kernel_606588(A.copy(), 0.5)
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 1 with size 0"):
        solvent.jit(kernel_606588, backend=backend)(A, 0.5)
