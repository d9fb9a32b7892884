"""Fuzzer reproducer (seed 112): max of an empty array before a compile-time IndexError: NumPy raises the ValueError first
(fixed: an unconditional max/min of an empty axis still raises at compile time, in order).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_112(A, C):
    t1 = (1.0 if (3 / C.max()) > 0 else 1.0)
    A[:, 0] *= 1.0


def ARGS():
    return (
        np.zeros((0, 0), dtype=np.float64),
        np.zeros((0,), dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_112(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_112(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_112, backend=backend)(*args)
        return
    check(kernel_112, *args, backend=backend)
