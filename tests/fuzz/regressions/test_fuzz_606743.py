"""Fuzzer reproducer (seed 606743), fixed: A.min(axis=0) picks between -0.0 and +0.0 (IEEE leaves it open; NumPy's SIMD picks +0.0): the driver's signed-zero excuse now sees the .max()/.min() methods. Was: xla:value;native:value.

Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.
"""
import copy
import math  # noqa: F401

import numpy as np
import pytest

import solvent
from differential import check


def kernel_606743(A, q):
    A[1:, 1:] *= (((A == 3) // 3))[1:, 1:]
    return ((q / A.min(axis=0)) + A)


def ARGS():
    return (
        np.array([[-1.465846157330309, 0.039146405021112184, -1.1244093550365708], [1.0710848794950605, -0.02751974016379667, 1.3641034724278651], [1.3489133642625164, 0.8616516632963408, -0.05154124149847695]], dtype=np.float64),
        1,
    )


def test_fuzz_606743():
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import driver
    from test_fuzz_tools import _Prog
    args = ARGS()
    assert driver.run_program(_Prog(kernel_606743, (args[0], np.int64(args[1])))).status \
        == "signed-zero"
