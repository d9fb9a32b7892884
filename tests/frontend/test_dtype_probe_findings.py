"""Differential tests for what notes/s25/probe_dtypes.py found: NumPy's (and Python's) dtype
and scalar-type rules that solvent got wrong, each checked on every backend."""
import numpy as np

from differential import case, run_cases

I8 = np.array([-128, 127, 0, 7, -3], dtype=np.int8)
BOOL = np.array([True, False, True])


def not_of_numpy_bool(a):
    # Python's `not` gives a Python bool, also of a NumPy bool (was np.bool_)
    return not a[0], not (a[1] > 0), not a[1]


def invert_python_bool(b):
    # ~True is -2 in Python: bool is an int (was False, NumPy's bool invert)
    return ~b, ~(b and b)


def isclose_int8_minimum(a):
    # NumPy makes b inexact first; |b| of int8's -128 wrapped to -128 (allclose(a, a) False)
    return np.allclose(a, a), np.isclose(a, a), np.isclose(a, np.int8(-128))


cases = [
    case(not_of_numpy_bool, BOOL),
    case(invert_python_bool, True),
    case(isclose_int8_minimum, I8),
]

test_dtype_probe_findings = run_cases(cases)


# --- NumPy's TypeErrors are raised as NumPy raises them (were UnsupportedError, even on a
# branch that never runs)
def inplace_float_into_int(a, flag):
    if flag:
        a += 1.5
    return a


def bool_subtract(a):
    return a - a


def test_inplace_cast_error_only_where_it_runs(backend):
    import pytest
    import solvent
    f = solvent.jit(inplace_float_into_int, backend=backend)
    a = np.arange(3)
    assert f(a, False) is a and a.tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match=r"test_dtype_probe_findings.py:\d+.*same_kind") as e:
        f(a, True)
    assert isinstance(e.value, np._core._exceptions.UFuncTypeError)
    assert a.tolist() == [0, 1, 2]


def test_bool_subtract_raises_type_error(backend):
    import pytest
    import solvent
    with pytest.raises(TypeError, match="boolean subtract"):
        solvent.jit(bool_subtract, backend=backend)(BOOL)
