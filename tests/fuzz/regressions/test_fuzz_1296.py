"""Fuzzer reproducer (seed 1296): a Python int times a uint64 value crashed with
OverflowError: the NEP 50 fits-check compared with uint64's maximum as an int64 constant
(fixed in frontend/emit.py check_fits: bounds that v's own dtype cannot exceed are skipped).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_1296(q, A):
    if (q * A.sum()) > 0:
        pass


def ARGS():
    return (
        1,
        np.zeros((0,), dtype=np.uint8),
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_1296(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_1296(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_1296, backend=backend)(*args)
        return
    check(kernel_1296, *args, backend=backend)
