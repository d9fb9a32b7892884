"""Fuzzer reproducer (seed 1035): native:value. The value written back into A (``A[:] *= A -
1``) was computed in A's buffer while the in-place update before it (``A[0, 0] += 1``), which
lives in that buffer, was still to be read by the row sums (native bufferize.py
``_buffer_unread_after``).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_1035(A):
    for i in range(A.shape[0] - 1):
        A[i, 0] += 1.0
    A[:] *= ((((A)) - 1.0))[:]
    return ((A.sum(axis=1) ** 3) > 0)


def ARGS():
    return (
        np.array([[-1.1021944415289453], [-0.07234244567819943]], dtype=np.float64),
    )


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_fuzz_1035(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_1035(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_1035, backend=backend)(*args)
        return
    check(kernel_1035, *args, backend=backend)
