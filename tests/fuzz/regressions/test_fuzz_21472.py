"""Fuzzer reproducer (seed 21472), fixed (augmented assignment now reads the item before the right-hand side): xla:numpy-raises-IndexError-solvent-ValueError;interp:numpy-raises-IndexError-solvent-ValueError.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_21472(A, B):
    A[:, 0] -= np.floor(np.logical_not(np.max(A)))
    for i in range(B.shape[0]):
        for j in range(1, B.shape[0] - 1):
            t1 = np.tanh((i < j))
            B[j + 1] = np.maximum((j < B[j]), np.minimum(2, t1))
        t2 = 2.0
        A[:] *= ((4 + 3) == 0.5)
    for i in range(1, A.shape[0]):
        A[1:, 1:] = (((A.max() / (A.sum(axis=1))[:, None]) < np.where(A > 0, A, 2)))[1:, 1:]
        A[i - 1, 0] *= np.hypot(3, 2.0)
        B[i - 1] = np.arctan2(i, (B.mean() * B[i - 1]))
    B[:] -= (np.min(B) != 1)
    A[:-1] = ((1.5 / ((B > A.sum(axis=1)))[:, None]))[:-1]
    return np.where(np.mean(A, axis=0) > 0, (np.mean(A, axis=0) // np.sum(A, axis=0)), 2.0)


def ARGS():
    return (
        np.array([[], [], [], [], [], [], [], [], [], [], [], [], [], []], dtype=np.float64)[::2, ::2],
        np.array([1.0501653986840098, 0.9666014411840516, -0.7280351928855623, -0.8438089427039476, -0.8635144424826343, -0.135596373255238, -1.8507219571130327, 0.2544970063619274, 2.84457169185036, -1.706640882303564, -0.5561225882780532, -1.5779621586251205, -0.5175064467072149, 1.6435409709059003], dtype=np.float64)[::2],
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_21472(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_21472(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_21472, backend=backend)(*args)
        return
    check(kernel_21472, *args, backend=backend)
