"""Fuzzer reproducer (seed 40105), fixed: XLA complex maximum/minimum propagate NaN as NumPy's: xla:value.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_40105(A):
    return np.maximum((0.5 / np.mean(A)), 1.0)


def ARGS():
    return (
        np.zeros((0,), dtype=np.complex128),
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_40105(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_40105(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_40105, backend=backend)(*args)
        return
    check(kernel_40105, *args, backend=backend)
