"""Fuzzer reproducer (seed 20612): xla:in-place.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
import differential
from differential import check


def kernel_20612(A, k, B, C):
    C[1:] += A[A % A.shape[0]][1:]
    C[:] += (np.logical_and(np.where(B.sum(axis=1) > 0, C, np.max(A)), np.minimum(B.sum(axis=1), 4)))[:]
    C[1:] *= ((np.mean(A) * np.max(A)) % 0.25)
    return np.where(np.tanh(np.mean(B, axis=0)) > 0, np.sin(np.mean(B, axis=0)), 0.5)


def ARGS():
    return (
        np.array([9, -9, 7], dtype=np.int64),
        None,
        np.array([[6, 5, 4, -6], [-6, -3, -1, -2], [3, -6, -4, -6]], dtype=np.int16),
        np.array([-0.2157994373501072, 0.8333757673791267, 0.9643021060650027, 0.4946041467731755, 1.788975266817341, -0.10578968495197902], dtype=np.float64)[::2],
    )


@pytest.mark.parametrize("backend", [
    pytest.param("xla", marks=pytest.mark.xfail(strict=True, reason=
        "XLA rewrites x / broadcast(s) as x * (1/s) (its algebraic simplifier; no flag turns it off), 1 ulp from NumPy's division, and % of the mean amplifies that ulp to a whole period")),
    "interp"])
def test_fuzz_20612(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_20612(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_20612, backend=backend)(*args)
        return
    check(kernel_20612, *args, backend=backend)


def test_fuzz_20612_exact_division(monkeypatch):
    """With SOLVENT_XLA_EXACT_DIVISION=1 XLA divides as NumPy does, and the program agrees."""
    monkeypatch.setenv("SOLVENT_XLA_EXACT_DIVISION", "1")
    differential._JITS.pop((kernel_20612, "xla"), None)   # compile anew under the variable
    check(kernel_20612, *ARGS(), backend="xla")
