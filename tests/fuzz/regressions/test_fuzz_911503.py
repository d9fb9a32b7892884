"""Fuzzer reproducer (seed 911503), fixed: native:in-place, a silent wrong answer with default
settings. C, written only in the if's true branch and read in a loop in its false branch, was
donated to the branches (dead after the if); the loop body reused its buffer for
np.where(..., C, 4), clobbering C, which every later trip and the branch's yield still read.
A loop body no longer reuses an array an enclosing if donated (native/bufferize.py). Found
with raising off and SOLVENT_PARALLEL_THRESHOLD=0; it fails the same with the defaults.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_911503(A, B, C):
    if (A.min() ** 3) > 1:
        C[1:] = (((A + A[A % A.shape[0]]) ** 3))[1:]
    else:
        for i in range(B.shape[0]):
            A[::2] = (np.floor(np.where(C[A % C.shape[0]] > 0, C, 4)))[::2]


def ARGS():
    return (
        np.array([-4], dtype=np.int16),
        np.array([0.9428080071082489], dtype=np.float64),
        np.array([0.4703096808595139], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_fuzz_911503(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_911503(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_911503, backend=backend)(*args)
        return
    check(kernel_911503, *args, backend=backend)


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_fuzz_911503_longer(backend):
    """Three elements, the loop running twice: A [0, 3, 3], C unchanged, as NumPy."""
    check(kernel_911503, np.array([-4, 3, 5]), np.ones(2), np.array([0.47, -2.5, 3.7]),
          backend=backend)
