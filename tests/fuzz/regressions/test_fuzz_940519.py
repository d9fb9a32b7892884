"""Fuzzer reproducer (seed 940519), not fixed yet: comparing a uint64 value with a negative
Python int (-3 < q * np.sum(A) for a uint8 A: np.sum gives uint64) raises OverflowError in
solvent, where NumPy 2 compares the true values (True). python_int_operands compares Python
ints with narrower integer arrays in int64, but for uint64 it applies the arithmetic rule
(check_fits). Kept as a strict xfail so the fix makes it say so.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_940519(q, A):
    A[:] -= ((2 - 5) < (q * np.sum(A)))


def ARGS():
    return (
        4,
        np.zeros((0,), dtype=np.uint8),
    )


@pytest.mark.parametrize("backend", [
    pytest.param("xla", marks=pytest.mark.xfail(strict=True, reason=
        '[xla] OverflowError: <solvent-fuzz-940519-452488062897017465>:5:14: Python integer -3 out of bounds for uint64')),
    pytest.param("native", marks=pytest.mark.xfail(strict=True, reason=
        '[native] OverflowError: <solvent-fuzz-940519-452488062897017465>:5:14: Python integer -3 out of bounds for uint64')),
    pytest.param("interp", marks=pytest.mark.xfail(strict=True, reason=
        '[interp] OverflowError: <solvent-fuzz-940519-452488062897017465>:5:14: Python integer -3 out of bounds for uint64'))])
def test_fuzz_940519(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_940519(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_940519, backend=backend)(*args)
        return
    check(kernel_940519, *args, backend=backend)
