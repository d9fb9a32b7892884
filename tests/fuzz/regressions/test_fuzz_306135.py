"""Fuzzer reproducer (seed 306135), fixed: a run-time Python number % a constant 0.0 returned
instead of raising ZeroDivisionError (only run-time divisors were checked). Was: xla:numpy-raises-ZeroDivisionError-solvent-returns;native:numpy-raises-ZeroDivisionError-solvent-returns;interp:numpy-raises-ZeroDivisionError-solvent-returns.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_306135(q, B):
    c2 = 0
    while c2 < 3 and q > 0:
        B[:-1] *= ((0.25 == q) % (0.5 // 2.0))
        c2 += 1


def ARGS():
    return (
        3,
        np.zeros((0,), dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_fuzz_306135(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_306135(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_306135, backend=backend)(*args)
        return
    check(kernel_306135, *args, backend=backend)
