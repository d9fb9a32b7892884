"""Fuzzer reproducer (seed 3064), open bug in floor_divide's lowering:
interp: float32 1.0 // np.sin(A) differs from NumPy's floor_divide (floor(a/b) vs NumPy's fmod-based divmod near integer quotients).

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_3064(A, x):
    A[:] += ((1.0 < np.square(A)))[:]
    A[1:] += (2 ** 3)
    A[::2] *= (((A) * (x)))[::2]
    A[:-1] -= ((1.0 // np.sin(A)))[:-1]
    return np.sin((A.mean() ** 3))


def ARGS():
    return (
        np.array([0.34259337186813354, -2.116529703140259, 1.2264119386672974, 1.0141419172286987], dtype=np.float32),
        1.845,
    )


# interp was an expected failure (its float32 x ** 3 gave 138716.98, NumPy 138717.0, and
# sin(x**3) amplifies the ulp); with jax 0.10.2 and NumPy 2.4.6 both give 138717.0
@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_fuzz_3064(backend):
    args = ARGS()
    try:
        with np.errstate(all="ignore"):
            kernel_3064(*copy.deepcopy(args))
    except Exception as e:  # NumPy raises: solvent must raise the same class
        with pytest.raises(type(e)):
            solvent.jit(kernel_3064, backend=backend)(*args)
        return
    check(kernel_3064, *args, backend=backend)
