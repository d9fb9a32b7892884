"""Fuzzer reproducer (seed 297): not a solvent bug: tests/differential.copy_keep_layout returned a Fortran-ordered argument
itself (np.asfortranarray does not copy), so NumPy's run mutated solvent's input (fixed).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_297(A):
    A[:-1, 1:] = ((np.sqrt(A)))[:-1, 1:]
    return np.mean(A)


def ARGS():
    return (
        np.asfortranarray(np.array([[1.096274630255978, 0.23170609838122697], [-0.6965410521333587, -0.7558367118654288]], dtype=np.float64)),
    )


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_297(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_297(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_297, backend=backend)(*args)
        return
    check(kernel_297, *args, backend=backend)
