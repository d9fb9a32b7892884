"""Fuzzer reproducer (seed 21069): xla:in-place.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_21069(A, B, C):
    for i in range(0, C.shape[0] - 1):
        for j in range(0, A.shape[0]):
            t1 = np.sign(A[j])
            B[i + 1] = ((t1 // B[i + 1]) / (A[j] != 4))
        C[i] += C[(i * 3 + 1) % C.shape[0]]
        t2 = (np.logical_not(C[i + 1]) - np.arctan2(B[i // 2], C[i + 1]))
    if 0.5 > 0.5:
        A[:-1] -= (C.sum() % (2 // 0.5))
    else:
        t3 = (np.min(B) if 4 > 0 else np.mean(C))


def ARGS():
    return (
        np.array([-0.15646070248619856, 0.17581457931954403, -0.43925692763487084, -0.07280224094813682, 1.4741470931254463, -1.1225160650807144, 1.0733396220380516, -0.777482085044079, -0.16790113874489226, -0.48958427690029205, -0.8635399590703373, 0.29895452070964673], dtype=np.float64)[::2],
        np.array([-1.8313549757003784, -1.670401692390442, -0.4270239472389221, 0.8288429379463196, -0.29219967126846313, -1.1994984149932861, 1.3217718601226807, -0.19261491298675537, -0.27438879013061523, 0.809116780757904, -1.321378231048584, -1.2783278226852417, 0.9050889015197754, 2.311333179473877], dtype=np.float32)[::2],
        np.array([0.6307045817375183, -0.6974735856056213, -0.24186135828495026, 0.40006616711616516, 0.3271476924419403, -0.5692089200019836, 0.4985109567642212], dtype=np.float32),
    )


@pytest.mark.parametrize("backend", [
    "xla",
    "interp"])
def test_fuzz_21069(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_21069(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_21069, backend=backend)(*args)
        return
    check(kernel_21069, *args, backend=backend)
