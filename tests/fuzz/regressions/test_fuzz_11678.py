"""Fuzzer find (seed 11678, reduced by hand): ``1 / (3 == 1.5)`` in a branch NumPy never runs
raised ZeroDivisionError at compile time (constant folding). Fixed in frontend/emit.py: under a
run-time condition or in a loop the error is a run-time check where it runs; code that always
runs still raises at compile time."""
import numpy as np
import pytest

import solvent
from differential import check


def kernel_11678(q, A):
    if q > 0:
        A[1:] = 2.0
    else:
        A[:] *= (1 / (3 == 1.5))
    return A.sum()


def test_fuzz_11678_untaken_branch(backend):
    check(kernel_11678, 1, np.ones(3), backend=backend)


def test_fuzz_11678_taken_branch_raises(backend):
    with pytest.raises(ZeroDivisionError):
        kernel_11678(0, np.ones(3))
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        solvent.jit(kernel_11678, backend=backend)(0, np.ones(3))
