"""Fuzzer reproducer (seed 128), fixed: a dot of two slices whose length follows the loop variable, under a run-time if, crashed if-conversion (the size of tensor<?xf64> asked at compile time). Was: xla:crash-ValueError;native:crash-ValueError;interp:crash-ValueError.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_128(A, B):
    for i in range(1, A.shape[0]):
        if (np.max(A) * i) > 0:
            A[i] = ((B[:i + 1, 0] @ B[:i + 1, 0][::-1]))


def ARGS():
    return (
        np.array([0.3425204055332401, -1.6109878911055506], dtype=np.float64),
        np.array([[-0.8183197983078653], [0.5617051224330553]], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_fuzz_128(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_128(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_128, backend=backend)(*args)
        return
    check(kernel_128, *args, backend=backend)


def test_fuzz_128_xla_refuses_naming_the_line():
    with pytest.raises(solvent.UnsupportedError, match=r"run-time bounds.*test_fuzz_128.py:\d+"):
        solvent.jit(kernel_128, backend="xla")(*ARGS())
