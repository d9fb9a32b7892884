"""Fuzzer reproducer (seed 5450), open bug in the frontend (emit.py broadcast check at compile time, as for indices in test_fuzz_1325):
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
    pytest.param("xla", marks=pytest.mark.xfail(strict=True, reason=
        '[xla] a broadcast error in a while body that never runs is raised at compile time (NumPy never runs it)')),
    pytest.param("interp", marks=pytest.mark.xfail(strict=True, reason=
        '[interp] a broadcast error in a while body that never runs is raised at compile time (NumPy never runs it)'))])
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
