"""Fuzzer reproducer (seed 52571): xla:value.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
import differential
from differential import check


def helper(a, b):
    return a * 2 + b

def kernel_52571(x, C):
    h4 = helper(((np.sum(C, axis=0) // np.mean(C, axis=0)) ** 3), x)
    return (h4 ** 3)


def ARGS():
    return (
        1.904,
        np.array([[-1.6863335739294343, -0.12457216992589307], [0.17529967687732043, 1.775557924542219], [-0.2058825690074085, 0.767988710280072]], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", [
    pytest.param("xla", marks=pytest.mark.xfail(strict=True, reason=
        "XLA rewrites x / broadcast(s) as x * (1/s) (np.mean), 1 ulp from NumPy's division, and // of the mean amplifies it to a whole unit (as seed 3953)")),
    "interp"])
def test_fuzz_52571(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_52571(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_52571, backend=backend)(*args)
        return
    check(kernel_52571, *args, backend=backend)


def test_fuzz_52571_exact_division(monkeypatch):
    """With SOLVENT_XLA_EXACT_DIVISION=1 XLA divides as NumPy does, and the program agrees."""
    monkeypatch.setenv("SOLVENT_XLA_EXACT_DIVISION", "1")
    differential._JITS.pop((kernel_52571, "xla"), None)   # compile anew under the variable
    check(kernel_52571, *ARGS(), backend="xla")
