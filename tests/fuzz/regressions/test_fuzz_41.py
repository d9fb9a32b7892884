"""Fuzzer reproducer (seed 41), fixed: an if inside a loop whose branches reduce slices of run-time length (A[i, i:].max()) crashed if-conversion (the size of tensor<?xf64> asked at compile time). Was: xla:crash-ValueError;native:crash-ValueError;interp:crash-ValueError.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_41(A, B):
    for i in range(1, A.shape[0] - 1):
        if (A[i, i:].max() > i) > 0.5:
            pass
        else:
            B[i + 1] += ((1.0 // A[i, :i + 1].sum()) == 1)


def ARGS():
    return (
        np.array([[-1.2316649689147774, 0.2671189477208684], [-0.006926123563646536, 0.5015352951547885], [-1.3267282928093849, 1.107768166657506]], dtype=np.float64),
        np.array([0.0937548811679036, -1.1708180763562224, -1.3582403949601034], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_fuzz_41(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_41(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_41, backend=backend)(*args)
        return
    check(kernel_41, *args, backend=backend)


def test_fuzz_41_xla_refuses_naming_the_line():
    with pytest.raises(solvent.UnsupportedError, match=r"run-time bounds.*test_fuzz_41.py:\d+"):
        solvent.jit(kernel_41, backend="xla")(*ARGS())
