"""Fuzzer reproducer (seed 5450), fixed (a broadcast error in code that may not run is a run-time check, emit.py):
[xla] a broadcast error in a while body that never runs is raised at compile time (NumPy never runs it).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_5450(x, A):
    c1 = 0
    while c1 < 2 and (A.mean() - x) > 1:
        A[:-1, 1:] *= ((x > ((A.sum(axis=1) - A.sum(axis=1)))[:, None]))[:-1, 1:]
        c1 += 1


def ARGS():
    return (
        0.512,
        np.zeros((0, 3), dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_5450(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_5450(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_5450, backend=backend)(*args)
        return
    check(kernel_5450, *args, backend=backend)


def broadcast_error_when_run(n, A, B):
    for i in range(n):
        A[:] += B          # (3,) += (2,): NumPy raises ValueError only if the loop runs


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_the_broadcast_error_is_raised_when_the_code_runs(backend):
    A, B = np.ones(3), np.ones(2)
    f = solvent.jit(broadcast_error_when_run, backend=backend)
    f(0, A, B)                                     # never runs: no error, A unchanged
    assert (A == 1).all()
    with pytest.raises(ValueError, match="could not be broadcast"):
        f(2, A, B)
    assert (A == 1).all()                          # nothing written on failure
