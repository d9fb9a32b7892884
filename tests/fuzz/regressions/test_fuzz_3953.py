"""Fuzzer reproducer (seed 3953), open bug in the XLA lowering:
xla: np.sum(A, axis=0) % np.mean(A, axis=0) differs from NumPy's float remainder (fmod-based, sign of the divisor).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
import differential
from differential import check


def kernel_3953(A):
    return ((np.sum(A, axis=0) % np.mean(A, axis=0)))


def ARGS():
    return (
        np.array([[1.9026957188767946, 2.0707385257262434], [2.144158385471814, 0.4323617286696148], [-1.218067156087593, 0.00647177232559354]], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    pytest.param("xla", marks=pytest.mark.xfail(strict=True, reason=
        "XLA rewrites x / broadcast(s) as x * (1/s) (its algebraic simplifier; no flag turns it off), 1 ulp from NumPy's division, and % of the mean amplifies that ulp to a whole period")),
    "interp"])
def test_fuzz_3953(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_3953(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_3953, backend=backend)(*args)
        return
    check(kernel_3953, *args, backend=backend)


def test_fuzz_3953_exact_division(monkeypatch):
    """With SOLVENT_XLA_EXACT_DIVISION=1 XLA divides as NumPy does, and the program agrees."""
    monkeypatch.setenv("SOLVENT_XLA_EXACT_DIVISION", "1")
    differential._JITS.pop((kernel_3953, "xla"), None)   # compile anew under the variable
    check(kernel_3953, *ARGS(), backend="xla")
