"""Fuzzer reproducer (seed 162): ValueError at compile time for max/min of an empty array
in a branch NumPy never runs (fixed: the error is a run-time check in the frontend).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_162(x, A):
    if (x == 0.25) > 1:
        if (np.min(A) ** 2) > 1:
            pass


def ARGS():
    return (
        -0.347,
        np.zeros((0,), dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_162(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_162(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_162, backend=backend)(*args)
        return
    check(kernel_162, *args, backend=backend)


def min_of_empty_when_positive(x, A):
    if x > 0:
        return np.min(A)
    return A.sum()


def test_min_of_empty_raises_where_it_runs(backend):
    A = np.zeros((0,))
    check(min_of_empty_when_positive, -1.0, A, backend=backend)
    with pytest.raises(ValueError, match="zero-size array to reduction operation min"):
        min_of_empty_when_positive(1.0, A)
    with pytest.raises(ValueError, match="zero-size array to reduction operation min"):
        solvent.jit(min_of_empty_when_positive, backend=backend)(1.0, A)
