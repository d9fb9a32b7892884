"""Fuzzer reproducer (seed 940519), fixed: comparing a uint64 value with a negative Python
int (-3 < q * np.sum(A) for a uint8 A: np.sum gives uint64) raised OverflowError in
solvent, where NumPy 2 compares the true values (True). A negative Python int is now below
every uint64 (frontend/emit.py, _compare_u64_with_python_int).

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


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
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


def u64_comparisons(q, A):
    s = q * np.sum(A)
    return (-3 < s), (s > -3), (s == -1), (s != -2), (s <= -5), (-1 >= s), (s < 7), \
        (A.astype(np.uint64) > -1)


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
@pytest.mark.parametrize("A", [np.zeros(0, np.uint8), np.array([3, 4], np.uint8)])
def test_uint64_against_python_ints_compares_true_values(A, backend):
    check(u64_comparisons, 4, A, backend=backend)
