"""Fuzzer reproducer (seed 628): xla:value. jnp's complex max skipped the elements with a NaN
part, where NumPy's gives the first of them (ops/reductions.py ``_complex_nan_guard``); the
native backend refuses a complex max (its clear error is allowed here).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_628(A, B, C):
    for i in range(0, B.shape[0] - 1):
        for j in range(1, C.shape[0]):
            B[:-1] *= np.square((B[i] + B[i + 1]))
    return np.isnan((np.max(B) - (C[A % C.shape[0]])[:, None]))


def ARGS():
    return (
        np.array([-8, 9, 8], dtype=np.int64),
        np.array([(-0.2137991013629112+1.1050396285668542j), (-1.0141090522683467-0.3100082763722757j), (-1.0845615827294637-1.2539337153707102j), (1.0724515106016943-0.8079672716558438j), (-1.0552926914857268-0.1932829885464593j), (1.6603875993503816-0.39339851475279475j)], dtype=np.complex128),
        np.array([-0.6658364399201157, 0.2769008371338585, -0.8816180420669658], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_fuzz_628(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_628(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_628, backend=backend)(*args)
        return
    try:
        check(kernel_628, *args, backend=backend)
    except solvent.UnsupportedError:
        assert backend == "native"   # refusing is allowed; a wrong value is not
