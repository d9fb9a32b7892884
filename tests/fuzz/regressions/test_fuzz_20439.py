"""Fuzzer reproducer (seed 20439), fixed (augmented assignment now reads the item before the right-hand side): xla:numpy-raises-IndexError-solvent-ValueError;interp:numpy-raises-IndexError-solvent-ValueError.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_20439(x, k, A, B):
    B[:, 0] -= (x if (1.5 / B.min()) > 0 else (2.0 if 3 > 0 else x))
    t1 = B


def ARGS():
    return (
        -1.0,
        'add',
        np.array([[], [], [], [], [], [], [], [], [], [], [], [], [], []], dtype=np.complex128)[::2, ::2],
        np.array([[], [], [], [], [], [], [], [], [], [], [], [], [], []], dtype=np.float64)[::2, ::2],
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_20439(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_20439(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_20439, backend=backend)(*args)
        return
    check(kernel_20439, *args, backend=backend)
