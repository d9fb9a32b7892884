"""Fuzzer reproducer (seed 606588), fixed: an index into an empty axis after a run-time check that may fail first raised IndexError at compile time where NumPy raises the earlier ValueError; it is now refused. Was: xla:numpy-raises-ValueError-solvent-IndexError;native:numpy-raises-ValueError-solvent-IndexError;interp:numpy-raises-ValueError-solvent-IndexError.

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
    with pytest.raises(solvent.UnsupportedError, match="after a run-time check that may fail"):
        solvent.jit(kernel_606588, backend=backend)(*ARGS())
