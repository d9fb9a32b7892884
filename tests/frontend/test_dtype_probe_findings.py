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


# --- np.clip with Python int bounds past an integer dtype's range (NumPy's _methods._clip):
# such a bound is no bound; a bound was wrapped into the dtype (clip(int8, -1000, 1000) gave
# -24 everywhere, clip(uint16, -1, 1000) gave 1000 everywhere)
U8 = np.array([0, 3, 255, 254, 100], dtype=np.uint8)
U16 = np.array([0, 3, 65535, 1000, 7], dtype=np.uint16)


def clip_wide_python_bounds(a):
    return np.clip(a, -1000, 1000), np.clip(a, -1000, 5), a.clip(-1, 100)


def clip_runtime_python_bounds(a, lo, hi):
    return np.clip(a, lo, hi)


def clip_bound_past_far_edge(a):
    return np.clip(a, 1000, 2000)


cases += [
    case(clip_wide_python_bounds, I8, id="clip_wide_int8"),
    case(clip_wide_python_bounds, U8, id="clip_wide_uint8"),
    case(clip_wide_python_bounds, U16, id="clip_wide_uint16"),
    case(clip_runtime_python_bounds, U8, -1, 300, id="clip_runtime_uint8"),
    case(clip_runtime_python_bounds, I8, 2, 5, id="clip_runtime_int8_inside"),
]


# --- reductions: np.mean of float16 sums in float32 as NumPy's _mean (was inf: 30.0 x 3000
# overflowed float16); np.var/np.std of complex crashed (AttributeError); np.argmax/argmin
# of complex on XLA crashed (jnp orders no complex values): NumPy's order, real part first
F16_BIG = np.full(3000, 30.0, dtype=np.float16)
C64 = (np.array([1, 3, 3, 0, 3, -2]) + 1j * np.array([3, -1, 2, 0, 2, 1])).astype(np.complex64)
C128_NAN = np.array([1, 2 + 1j, complex(np.nan, 0), 5, complex(0, np.nan), 0])


def mean_float16(a):
    return np.mean(a), a.reshape(30, 100).mean(axis=1)


def var_std_complex(z):
    return np.var(z), np.std(z), z.reshape(2, 3).var(axis=0)


def argmax_complex(z):
    return (np.argmax(z), np.argmin(z), z.reshape(2, 3).argmax(axis=1),
            np.argmin(z.reshape(2, 3), axis=0, keepdims=True))


cases += [
    case(mean_float16, F16_BIG),
    case(var_std_complex, C64),
    case(argmax_complex, C64),
    case(argmax_complex, C128_NAN, id="argmax_complex_nan"),
]


# --- a signed integer against a uint64 compares by true values, as NumPy 2's mixed loops
# (was refused: "numpy.less with mixed loop dtypes ['i64', 'u64']")
I64_EDGE = np.array([-1, 0, 2**62, -2**63, 2**63 - 1, 5])
U64_EDGE = np.array([0, 2**64 - 1, 2**62, 2**63, 2**63 - 1, 5], dtype=np.uint64)


def compare_int_uint64(a, b):
    return (a < b, a == b, b >= a, a != b, b > a[0], a[1] <= b[1],
            a.reshape(2, 3) < b[:3], a[:3].astype(np.int8) == b[3:])


cases += [case(compare_int_uint64, I64_EDGE, U64_EDGE)]


# --- a reduction's out= of another dtype: NumPy reduces in the loop its ufunc picks for
# (out, a) and casts into out unsafely (solvent reduced in a's dtype: np.sum(int64, out=f64)
# wrapped past 2**63; np.sum(f16, out=int8) raised); np.diff of bools is not_equal; np.clip
# of a bool array (the clip fix above read bool as an integer dtype)
def sum_out_other_dtype(a, out):
    np.sum(a.reshape(2, 3), axis=0, out=out)
    return out


def cumsum_out_other_dtype(a, out):
    return np.cumsum(a, out=out)


def diff_bool(a):
    return np.diff(a), np.clip(a, 0, 1)


I64_BIG = np.array([-3, 0, 7, -2**63, 2**63 - 1, -1])
U64_BIG = np.array([0, 1, 3, 7, 2**64 - 1, 2**64 - 3], dtype=np.uint64)
F16_SMALL = np.array([-1.5, 0.0, 0.5, 2.0, 3.25, 100.0], dtype=np.float16)
cases += [
    case(sum_out_other_dtype, I64_BIG, np.zeros(3), id="sum_out_i64_f64"),
    case(sum_out_other_dtype, U64_BIG, np.zeros(3, np.int64), id="sum_out_u64_i64"),
    case(sum_out_other_dtype, F16_SMALL, np.zeros(3, np.int8), id="sum_out_f16_i8"),
    case(cumsum_out_other_dtype, F16_SMALL, np.zeros(6, np.uint8), id="cumsum_out_f16_u8"),
    case(diff_bool, np.array([True, False, False, True])),
]


# --- floor/ceil/trunc of bools and reciprocal of integers were internal errors (the ops take
# no such dtype): the bools themselves, and C's 1 / x (1 and -1 stay, all else is 0)
def integer_rounding_and_reciprocal(a, b, u):
    return (np.floor(b), np.ceil(b), np.trunc(b), np.reciprocal(a), np.reciprocal(u),
            np.reciprocal(a.astype(np.int32)), np.reciprocal(a.astype(np.int64)))


cases += [case(integer_rounding_and_reciprocal, np.array([0, 1, 2, -1, -2, 127, -128], np.int8),
               BOOL, np.array([0, 1, 2, 255], np.uint8))]


# --- np.array of numbers written in the code takes the dtype NumPy discovers: [2**63, 1] is
# float64 (a uint64 and an int64 met); it was uint64
def array_of_wide_python_ints():
    return np.array([2**63, 1]), np.array([2**63, 2**64 - 1]), np.array((True, 2, 3))


cases += [case(array_of_wide_python_ints)]


# --- np.fmax/np.fmin of bools were internal errors (the op takes floats and integers)
def fmax_bool(a, b):
    return np.fmax(a, b), np.fmin(a, b), np.fmax(a, b.astype(np.int8))


cases += [case(fmax_bool, BOOL, np.array([False, False, True]))]
test_dtype_probe_findings = run_cases(cases)


def test_clip_bound_past_far_edge_overflows(backend):
    import pytest
    import solvent
    with pytest.raises(OverflowError, match="1000 out of bounds for int8"):
        solvent.jit(clip_bound_past_far_edge, backend=backend)(I8)


def round_bool_decimals(a):
    return np.round(a, 2)


def test_round_bool_with_decimals_raises_as_numpy(backend):
    # NumPy scales the bools in place and cannot cast back (solvent returned float16)
    import pytest
    import solvent
    with pytest.raises(TypeError, match="to dtype\\('bool'\\)"):
        round_bool_decimals(BOOL)
    with pytest.raises(TypeError, match="to dtype\\('bool'\\)"):
        solvent.jit(round_bool_decimals, backend=backend)(BOOL)
