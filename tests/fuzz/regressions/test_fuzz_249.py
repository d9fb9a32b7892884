"""Fuzzer reproducer (seed 249), fixed (was a bug in the XLA lowering: a bool mask converted to float multiplied NaN into 0):
xla: A[::2] -= sqrt(A[i]) * (i == x) leaves A unchanged where NumPy gets nan (nan * 0).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_249(x, A, B):
    for i in range(1, B.shape[0]):
        A[::2] -= (np.sqrt(A[i]) * (i == x))


def ARGS():
    return (
        -1.54,
        np.array([-1.2412330430390426, 2.365026269609738, -0.4343146303567192], dtype=np.float64),
        np.array([-0.379084865876978, 1.1049039748775327, -0.1955669961228564], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    "xla",  # fixed: bool -> float converts lower as a select on XLA
    "interp"])
def test_fuzz_249(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_249(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_249, backend=backend)(*args)
        return
    check(kernel_249, *args, backend=backend)
