"""Fuzzer reproducer (seed 208467), fixed: the interpreter's min over a non-empty axis of a
(0, 1) complex array asked np.iinfo for an identity (ValueError: Invalid integer data type 'c').

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_208467(B):
    B[:-1] += ((1.0 / (B.min(axis=1))[:, None]))[:-1]


def ARGS():
    return (
        np.zeros((0, 1), dtype=np.complex128),
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])   # native refuses complex arrays
def test_fuzz_208467(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_208467(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_208467, backend=backend)(*args)
        return
    check(kernel_208467, *args, backend=backend)
