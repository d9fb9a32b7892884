"""Differential tests: scalar/array arithmetic, comparisons, boolean logic, ufuncs, math."""
import math

import numpy as np
import pytest

import solvent

from differential import case, check, run_cases

rng = np.random.default_rng(0)
A34 = rng.standard_normal((3, 4))
B34 = rng.standard_normal((3, 4))
R4 = rng.standard_normal(4)
C31 = rng.standard_normal((3, 1))
P34 = rng.uniform(0.5, 3.0, (3, 4))
I34 = rng.integers(-20, 20, (3, 4))
J34 = rng.integers(1, 7, (3, 4))
NAN4 = np.array([1.0, np.nan, -2.0, 0.0])


# --- scalar arithmetic --------------------------------------------------------------------------
def scalar_ops(x, y):
    return x + y, x - y, x * y, x / y, x // y, x % y, -x, +y


def scalar_pow(x, y):
    return x ** 2, y ** 3, x ** 0.5


def scalar_mixed(i, f):
    return i + f, i * 2, i / 2, i // 2, f // 2, i % 3, f % 2.0


def scalar_expr(x, y):
    z = (x + 1) * (y - 2) / 4
    w = z * z - x
    return w


def int_bitops(x, y):
    return x & y, x | y, x ^ y, x << 2, x >> 1, ~x


# --- arrays and broadcasting --------------------------------------------------------------------
def array_ops(A, B):
    return A + B, A - B, A * B, A / B, -A


def array_floordiv_mod(A, B):
    return A // B, A % B


def bcast_row(A, r):
    return A + r, A * r - 1.0


def bcast_col_row(c, r):
    return c * r, c - r


def bcast_scalar(A, x):
    return A * x + 2, 3.0 - A / x, x ** 2 * A


def array_pow(A):
    return A ** 2, A ** 0.5, 2.0 ** A


def int_array_ops(I, J):
    return I + J, I * J, I // J, I % J, I - 3, I ** 2, I / J


def int_array_bits(I, J):
    return I & J, I | J, I ^ J, ~I, I << 2, I >> 1


def array_scalar_from_array(A):
    return A * A[0, 0] + A[1, 2]


# --- comparisons, and/or/not, ternary -----------------------------------------------------------
def array_compare(A, B):
    return A < B, A <= B, A > 0, A >= B, A == A, A != B


def scalar_compare(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


def element_compare(A):
    return A[0, 0] < A[0, 1], A[1, 1] == A[1, 1]


def chained(x):
    return 0 < x < 10, -1 <= x <= 1, 1 < x > 0


def chained_elem(A):
    return A[0, 0] < A[0, 1] < A[0, 2]


def and_or_not(x, y):
    return x > 0 and y > 0, x > 0 or y > 0, not x > 0, not (x > y)


def and_or_value(x, y):
    return x or y, x and y


def ternary(x, y):
    return x if x > y else y


def ternary_elem(A, x):
    return A[0, 0] if A[0, 0] > x else x * 1.0


def ternary_array(A, B, x):
    C = A if x > 0 else B
    return C * 2


def abs_diff_scalar(A):
    d = A[0, 0] - A[1, 0]
    return d if d > 0 else -d


def logic_arrays(A, B):
    m = (A > 0) & (B > 0)
    n = (A > 0) | ~(B > 0)
    return m, n, m ^ n


# --- ufuncs and math ----------------------------------------------------------------------------
def unary_ufuncs(A):
    return (np.exp(A), np.sin(A), np.cos(A), np.tan(A), np.tanh(A), np.abs(A), np.floor(A),
            np.ceil(A), np.sign(A), np.negative(A), np.arctan(A), np.sinh(A), np.cosh(A))


def positive_ufuncs(P):
    return np.sqrt(P), np.log(P), np.log10(P), np.log2(P), np.log1p(P), np.expm1(P)


def binary_ufuncs(A, B):
    return (np.arctan2(A, B), np.maximum(A, B), np.minimum(A, B), np.power(np.abs(A), B),
            np.hypot(A, B), np.add(A, B), np.multiply(A, 2), np.subtract(1, A),
            np.divide(A, B))


def nan_ufuncs(X):
    return np.maximum(X, 0.0), np.minimum(X, 0.0), np.sign(X), np.abs(X), np.fmax(X, 0.0)


def int_ufuncs(I):
    return np.abs(I), np.sign(I), np.maximum(I, 0), np.sqrt(np.abs(I)), np.exp(I * 0.1), \
        np.square(I)


def int_floor_ceil(I):
    return np.floor(I), np.ceil(I), np.trunc(I)


def where_clip(A, B):
    return (np.where(A > 0, A, B), np.where(A > 0, A, 0.0), np.where(A > B, 1, 0),
            np.clip(A, -0.5, 0.5), np.clip(A, -1, None), A.clip(0.0, 1.0))


def where_int_float(I, x):
    return np.where(I > 0, I, x)


def clip_int(I):
    return np.clip(I, -5, 5), np.clip(I, 0, 3.5)


def math_scalars(x, y):
    return (math.sqrt(x), math.exp(y), math.log(x), math.sin(y), math.cos(y), math.tan(y),
            math.tanh(y), math.atan2(y, x), math.fabs(y), math.hypot(x, y))


def math_elems(A):
    a = A[0, 0]
    return math.sqrt(abs(a)), math.exp(a), math.floor(a), math.ceil(a), math.sin(A[1, 1])


def math_floor_ceil(x):
    return math.floor(x), math.ceil(x), math.floor(-x), math.ceil(-x)


def math_consts(A):
    return A * math.pi + math.e, np.pi * A


def builtins_scalars(x, y, i):
    return abs(x), abs(i), min(x, y), max(x, y, 0.0), min(i, 3), max(i, -100, 2)


def builtins_round(x, y):
    return round(x), round(y), round(x, 1), round(2.5), round(3.5), round(-2.5)


def builtins_int_float(x, i):
    return int(x), int(-x), float(i), float(x), int(i), bool(i), bool(x)


def builtins_on_elems(A):
    a = A[0, 0]
    return abs(a), float(a), int(a * 10), round(a), round(a, 2)


def np_round(A):
    return np.round(A), np.round(A * 10, 1), np.around(A, 2), A.round(1)


def round_negative_decimals(X, K):
    """NumPy rounds integers to tens through float64 and casts back (int8 127 -> -126)."""
    return np.round(X, -1), np.around(K, -2), X.round(1), np.round(X.astype(np.float64) * 1.5, -1)


def round_complex(Z):
    return np.round(Z, 1), np.rint(Z), np.round(Z * 10, -1)


def round_half_even(X):
    return np.round(X), np.rint(X)


def ufunc_float32(F):
    return np.sqrt(np.abs(F)), np.exp(F), F * 2.0, np.sin(F) + 1, np.maximum(F, 0)


def int_div_by_zero(I, Z):
    return I // Z, I % Z


def float_div_by_zero(A, Z):
    return A / Z, A // Z, A % Z


def int_div_negative_divisor(I, J):
    return I // -J, I % -J, np.floor_divide(-I, J), np.remainder(I, -3)


def scalar_div_negative(x, y):
    return x // y, x % y, divmod_like(x, y)


def divmod_like(x, y):
    return x - (x // y) * y


def pyint_pow_neg(n):
    return n ** -1, n ** -2, 2 ** n


def builtin_max_nan(x):
    return max(x, 1.0), max(1.0, x), min(x, 1.0), min(1.0, x)


cases = [
    case(scalar_ops, 7, 2, id="scalar_ops_int"),
    case(scalar_ops, -7, 2, id="scalar_ops_negint"),
    case(scalar_ops, 7.5, -2.0, id="scalar_ops_float"),
    case(scalar_ops, np.float64(2.5), np.float64(-1.25), id="scalar_ops_npf64"),
    case(scalar_ops, np.int64(-7), np.int64(3), id="scalar_ops_npi64"),
    case(scalar_pow, 3, 2),
    case(scalar_pow, 1.5, -2.0, id="scalar_pow_float"),
    case(scalar_mixed, 7, 2.5),
    case(scalar_expr, 3, 1.5),
    case(int_bitops, 12, 10),
    case(array_ops, A34, B34),
    case(array_floordiv_mod, A34, B34),
    case(bcast_row, A34, R4),
    case(bcast_col_row, C31, R4),
    case(bcast_scalar, A34, 2.5),
    case(bcast_scalar, A34, 3, id="bcast_scalar_int"),
    case(array_pow, P34),
    case(int_array_ops, I34, J34),
    case(int_array_bits, I34, J34),
    case(array_scalar_from_array, A34),
    case(array_compare, A34, B34),
    case(scalar_compare, 3, 4),
    case(scalar_compare, 2.5, 2.5, id="scalar_compare_float"),
    case(scalar_compare, np.float64(1.0), 2.0, id="scalar_compare_np"),
    case(element_compare, A34),
    case(chained, 5, id="chained_in"),
    case(chained, 12, id="chained_out"),
    case(chained, 0.5, id="chained_float"),
    case(chained_elem, A34),
    case(and_or_not, 1, -2),
    case(and_or_not, 3.0, 2.0, id="and_or_not_float"),
    case(and_or_value, 0, 5),
    case(and_or_value, 3, 5, id="and_or_value_nonzero"),
    case(ternary, 3, 5),
    case(ternary, 5.5, 1.5, id="ternary_float"),
    case(ternary_elem, A34, -10.0),
    case(ternary_array, A34, B34, 1.0),
    case(ternary_array, A34, B34, -1.0, id="ternary_array_else"),
    case(abs_diff_scalar, A34),
    case(logic_arrays, A34, B34),
    case(unary_ufuncs, A34),
    case(positive_ufuncs, P34),
    case(binary_ufuncs, A34, B34),
    case(nan_ufuncs, NAN4),
    case(int_ufuncs, I34),
    case(int_floor_ceil, I34),
    case(where_clip, A34, B34),
    case(where_int_float, I34, 0.5),
    case(clip_int, I34),
    case(math_scalars, 2.0, -0.7),
    case(math_scalars, 3, 1, id="math_scalars_int"),
    case(math_elems, A34),
    case(math_floor_ceil, 2.5),
    case(math_consts, A34),
    case(builtins_scalars, -2.5, 1.5, -7),
    case(builtins_round, 2.5, -3.7),
    case(builtins_int_float, 2.7, 5),
    case(builtins_on_elems, A34),
    case(np_round, A34),
    case(round_half_even, np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999])),
    case(round_negative_decimals, np.array([-128, -7, 7, 127, 0, 5, 15, 25], np.int8),
         np.array([2**60 + 1, -150, 250], np.int64)),
    case(round_negative_decimals, np.array([250, 5, 15], np.uint8), np.array([1234, -55], np.int16),
         id="round_negative_decimals_u8"),
    case(round_complex, np.array([1.25 + 2.35j, -0.5 + 0.5j, 1.5 - 2.5j])),
    case(ufunc_float32, A34.astype(np.float32)),
    case(int_div_by_zero, I34[0].copy(), np.array([0, 1, 0, -2])),
    case(float_div_by_zero, A34[0].copy(), np.array([0.0, 1.0, -0.0, 2.0])),
    case(int_div_negative_divisor, I34, J34),
    case(scalar_div_negative, 7, -2),
    case(scalar_div_negative, -7.5, 2.0, id="scalar_div_negative_float"),
    case(pyint_pow_neg, 2),
    case(builtin_max_nan, float("nan")),
]

test_arith = run_cases(cases)


def math_sqrt_of_float32(A):
    return math.sqrt(A[0]), math.sqrt(A[1] * A[2]), math.sqrt(A[3]) + A[0]


@pytest.mark.parametrize("be", ["xla", "interp", "native"])
def test_math_functions_convert_float32_to_double_first(be):
    """Python's math.sqrt converts a float32 argument to a double and computes in double;
    solvent computed np.sqrt in float32 and widened the result (found by polar_helper_loops
    on float32 inputs). sqrt is correctly rounded on every backend: compare exactly."""
    A = np.array([2.0, 3.0, 1.7, 0.3], dtype=np.float32)
    got = solvent.jit(math_sqrt_of_float32, backend=be)(A)
    exp = math_sqrt_of_float32(A)
    assert [type(g) for g in got] == [type(e) for e in exp]
    assert got == exp


def math_in_loop(A, out):
    for i in range(A.shape[0]):
        out[i] = math.sqrt(A[i]) + math.log(A[i] + 1.0) + math.exp(A[i])


def math_const_in_untaken_branch(A, flag):
    if flag:
        return math.sqrt(-1.0) + A
    return 2.0 * A


@pytest.mark.parametrize("be", ["xla", "interp", "native"])
@pytest.mark.parametrize("value,error", [(-1.0, ValueError), (-1.5, ValueError),
                                         (800.0, OverflowError), (np.nan, None),
                                         (np.inf, None), (0.5, None)])
def test_math_functions_raise_where_python_raises(be, value, error):
    """math.sqrt(-1) and math.log(0) raise ValueError and math.exp(800) OverflowError in
    Python, where NumPy's ufunc gives NaN or inf; a NaN or inf argument raises nothing. The
    caller's arrays are left untouched when it raises."""
    A = np.array([0.25, value, 2.0])
    out = np.zeros(3)
    f = solvent.jit(math_in_loop, backend=be)
    if error is None:
        check(math_in_loop, A, np.zeros(3), backend=be)
        return
    with pytest.raises(error, match="math (domain|range) error"):
        math_in_loop(A, out.copy())
    with pytest.raises(error, match="math (domain|range) error"):
        f(A, out)
    assert not out.any()


def test_math_error_of_constants_only_where_it_runs(backend):
    check(math_const_in_untaken_branch, np.ones(2), False, backend=backend)
    with pytest.raises(ValueError, match="math domain error"):
        solvent.jit(math_const_in_untaken_branch, backend=backend)(np.ones(2), True)


def more_math(x, y):
    return (math.copysign(1.0, y) * math.fabs(x), math.asinh(x), math.degrees(y),
            math.radians(x), math.exp2(y), math.trunc(float(x)), math.isnan(x), math.isinf(y),
            math.isfinite(x), math.acosh(abs(x) + 1), math.atanh(y / 10))


def atanh_pole(x):
    return math.atanh(x)


@pytest.mark.parametrize("x,y", [(1.7, -0.3), (np.float32(-2.25), np.float64(3.0)),
                                 (-0.0, 0.0), (np.int8(3), -7)])
def test_more_math_functions_match_python(x, y, backend):
    check(more_math, x, y, backend=backend)


@pytest.mark.parametrize("value", [1.0, -1.0, 2.0])
def test_math_atanh_errors_as_python(value, backend):
    with pytest.raises(ValueError, match="math domain error"):
        math.atanh(value)
    with pytest.raises(ValueError, match=r"test_arith.py:\d+.*math domain error"):
        solvent.jit(atanh_pole, backend=backend)(value)


def fmod_cbrt(a, b, x):
    return np.fmod(a, b), np.cbrt(x), np.fmod(x, 0.7), math.fmod(2.5, 0.75) + x.sum(), \
        math.cbrt(float(x[0]))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16])
def test_fmod_and_cbrt_as_numpy(dtype, backend):
    """C's remainder (the dividend's sign); an integer zero divisor gives 0 and INT_MIN
    fmod -1 does not trap (NumPy's answers); cbrt of negatives, signed zero, inf, NaN."""
    a = np.array([7, -7, 7, -7, 5, -128, 3, 0], np.int64).astype(dtype)
    b = np.array([3, 3, -3, -3, 0, -1, 0, 2], np.int64).astype(dtype)
    x = np.array([-8.0, 27.0, 0.5, -0.0, np.inf, np.nan])
    check(fmod_cbrt, a, b, x, backend=backend)
    check(fmod_cbrt, a[::-2], b[::-2], x[:3].astype(np.float32), backend=backend)


def _m_sin(A, out):
    for i in range(A.shape[0]):
        out[i] = math.sin(A[i])


def _m_cos(A, out):
    for i in range(A.shape[0]):
        out[i] = math.cos(A[i])


def _m_tan(A, out):
    for i in range(A.shape[0]):
        out[i] = math.tan(A[i])


def _m_sqrt(A, out):
    for i in range(A.shape[0]):
        out[i] = math.sqrt(A[i])


def _m_log(A, out):
    for i in range(A.shape[0]):
        out[i] = math.log(A[i])


def _m_log2(A, out):
    for i in range(A.shape[0]):
        out[i] = math.log2(A[i])


def _m_log10(A, out):
    for i in range(A.shape[0]):
        out[i] = math.log10(A[i])


def _m_log1p(A, out):
    for i in range(A.shape[0]):
        out[i] = math.log1p(A[i])


def _m_asin(A, out):
    for i in range(A.shape[0]):
        out[i] = math.asin(A[i])


def _m_acos(A, out):
    for i in range(A.shape[0]):
        out[i] = math.acos(A[i])


def _m_acosh(A, out):
    for i in range(A.shape[0]):
        out[i] = math.acosh(A[i])


def _m_atanh(A, out):
    for i in range(A.shape[0]):
        out[i] = math.atanh(A[i])


def _m_log_base2(A, out):
    for i in range(A.shape[0]):
        out[i] = math.log(A[i], 2)


def _m_log_of_base(A, out):   # base 1: ZeroDivisionError, as CPython's log(x) / log(base)
    for i in range(A.shape[0]):
        out[i] = math.log(8.0, A[i])


SPECIAL_MATH = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5,
                1e-300, -1e-300, 1e300, -1e300]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8])
@pytest.mark.parametrize("be", ["native", "xla", "interp"])
@pytest.mark.parametrize("fn", [_m_sin, _m_cos, _m_tan, _m_sqrt, _m_log, _m_log2, _m_log10,
                                _m_log1p, _m_asin, _m_acos, _m_acosh, _m_atanh,
                                _m_log_base2, _m_log_of_base],
                         ids=lambda f: f.__name__[3:])
def test_math_domain_and_pole_errors_as_python_on_special_values(fn, be, dtype):
    """The checks are decided from the argument (sin: infinite, sqrt/log: < 0, asin: |x| >
    1, log: x == 0, ...): each special value raises the error Python raises, or none and
    NumPy's value; the first failing element is Python's first."""
    _as_python_on(fn, be, dtype, SPECIAL_MATH if dtype != np.int8 else
                  [0, 1, -1, 2, -2, 127, -128])


def _as_python_on(fn, be, dtype, values):
    """``fn`` under solvent on each value (between two harmless ones) raises Python's error
    or gives NumPy's value, leaving the output untouched when it raises."""
    f = solvent.jit(fn, backend=be)
    for v in values:
        with np.errstate(over="ignore"):   # 1e300 is inf in float32
            A = np.array([0.75 if dtype != np.int8 else 1, v, 0.25], dtype=dtype)
        want, got = np.zeros(3), np.zeros(3)
        try:
            fn(A, want)   # math.* converts each element (float32, int8) to a double
        except (ValueError, OverflowError, ZeroDivisionError) as e:
            with pytest.raises(type(e), match=str(e)):
                f(A, got)
            assert not got.any(), v
            continue
        f(A, got)
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0, err_msg=str(v))


def _m_exp(A, out):
    for i in range(A.shape[0]):
        out[i] = math.exp(A[i])


def _m_expm1(A, out):
    for i in range(A.shape[0]):
        out[i] = math.expm1(A[i])


# log(DBL_MAX) as a double (its exp is finite), the next double (its exp overflows)
EXP_EDGE = [709.782712893384, float(np.nextafter(709.782712893384, np.inf)), 710.0, 709.0,
            -745.2, -800.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8])
@pytest.mark.parametrize("be", ["native", "xla", "interp"])
@pytest.mark.parametrize("fn", [_m_exp, _m_expm1], ids=lambda f: f.__name__[3:])
def test_math_overflow_as_python_on_special_values(fn, be, dtype):
    """math.exp/expm1's OverflowError is decided from the argument (finite and above
    log(DBL_MAX)): at the edge and on each special value it raises where Python raises, an
    infinite argument raises nothing, and the values are NumPy's elsewhere."""
    _as_python_on(fn, be, dtype, SPECIAL_MATH + EXP_EDGE if dtype != np.int8 else
                  [0, 1, -1, 127, -128])


def test_round_of_a_boolean_array_is_float16():
    """NumPy rounds booleans in float16 (the native backend has no float16: auto takes XLA)."""
    def f(m):
        return np.round(m)
    m = np.array([True, False])
    got = solvent.jit(f)(m)
    assert got.dtype == np.float16 and np.array_equal(got, f(m))


BOOL_A = np.array([[True, False, True], [False, False, False]])
BOOL_B = np.array([[False, True], [True, True], [True, False]])


@pytest.mark.parametrize("backend", ["native", "xla", "interp"])
def test_boolean_matrix_products(backend):
    """NumPy's boolean product is an or of ands (it was refused)."""
    def f(A, B, v):
        return A @ B, np.dot(A, v), np.einsum("ij,jk->ik", A, B), np.matmul(A[None], B[None])
    args = (BOOL_A, np.asfortranarray(BOOL_B), BOOL_B[:, 0].copy())
    for g, w in zip(solvent.jit(f, backend=backend)(*args), f(*args)):
        assert g.dtype == w.dtype == np.bool_ and np.array_equal(g, w)


def test_tensordot_of_unequal_lengths_is_a_value_error():
    def f(A, B):
        return np.tensordot(A, B, 1)
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        f(np.ones((3, 4)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        solvent.jit(f)(np.ones((3, 4)), np.ones((2, 4)))
