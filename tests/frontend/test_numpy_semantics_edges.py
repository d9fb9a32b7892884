"""Issue 7 items 5 and 6: NumPy's promotion of NumPy-function scalars, Python-scalar result
types, chained comparisons, and inputs NumPy accepts that used to give internal errors."""
import math

import numpy as np
import pytest

import solvent
from differential import case, check, run_cases

A32 = np.linspace(0.1, 0.9, 5, dtype=np.float32)
INTS = np.array([-3, 0, 2, 7], dtype=np.int16)
BOOLS = np.array([True, False, True])
CPX = np.array([1 + 1j, 2 - 1j, 1 + 2j, np.nan + 0j], dtype=np.complex64)
CPX2 = np.array([1 + 2j, 1 - 1j, 1 + 2j, 0j], dtype=np.complex64)


def exp_scalar_plus(A):
    return np.exp(0.5) + A


def sqrt_scalar_times(A):
    return np.sqrt(2.0) * A


def clip_scalar_plus(A):
    return np.clip(0.5, 0, 1) + A


def np_add_of_python_ints(A):
    return np.add(1, 2) * A            # np.int64 is strong: int8 * np.int64 -> int64


def math_sqrt_stays_weak(A):
    return math.sqrt(2.0) * A          # a Python float: float32 stays float32


def int_loop(n):
    s = 0
    for i in range(n):
        s += i
    return s


def branch_returns_int(x, A):
    if x > 0:
        return 1
    return 2


def logical_not_float(A):
    return np.logical_not(A), np.logical_and(A, A - 0.5), np.logical_or(A, 0)


def abs_of_bool_and_unsigned(B, U):
    return np.abs(B), np.abs(U)


def float_predicates_of_ints(A, B):
    return np.isnan(A), np.isinf(B), np.isfinite(A), np.isfinite(B)


def complex_order(A, B):
    return A < B, A <= B, A > B, A >= B


def fmin_fmax(A, B):
    return np.fmin(A, B), np.fmax(A, B)


def reduce_0d_axis0(x):
    return np.sum(x, axis=0), np.max(x, axis=-1), np.prod(x, axis=0), np.all(x, axis=0)


CASES = [
    case(exp_scalar_plus, A32), case(sqrt_scalar_times, A32), case(clip_scalar_plus, A32),
    case(np_add_of_python_ints, np.arange(4, dtype=np.int8)),
    case(math_sqrt_stays_weak, A32),
    case(int_loop, 4, id="int_loop-4"), case(int_loop, 0, id="int_loop-zero-trip"),
    case(branch_returns_int, 1.0, A32, id="branch-true"),
    case(branch_returns_int, -1.0, A32, id="branch-false"),
    case(logical_not_float, np.array([0.0, 1.5, np.nan, -0.0])),
    case(logical_not_float, INTS.astype(np.float32), id="logical-f32"),
    case(abs_of_bool_and_unsigned, BOOLS, np.array([0, 200, 255], dtype=np.uint8)),
    case(float_predicates_of_ints, INTS, BOOLS),
    case(complex_order, CPX, CPX2),
    case(complex_order, CPX.astype(np.complex128), CPX2.astype(np.complex128), id="c128"),
    # a NaN imaginary part leaves the pair unordered even where the real parts differ
    # (fuzzer seed 1500599: (inf + nan j) > 0 is False)
    case(complex_order, np.array([complex(np.inf, np.nan), complex(-np.inf, 1), complex(
        2, np.nan), 1j, complex(-1, np.nan)]), np.array([0j, complex(0, np.nan), 2 + 0j,
        complex(np.nan, 1), 3 + 0j]), id="nan-imag"),
    case(fmin_fmax, np.array([1.0, np.nan, 3.0]), np.array([np.nan, 0.0, 4.0])),
    case(reduce_0d_axis0, np.float64(3.0)), case(reduce_0d_axis0, np.int8(-2), id="int8"),
    case(reduce_0d_axis0, np.array(True), id="bool0d"),
]
test_numpy_semantics_edges = run_cases(CASES)


def chained(A):
    return 0.2 < A < 0.8


def chained_scalars(x):
    return 0.2 < x < 0.8


def if_on_array(A):
    if A:
        return 1
    return 0


def test_chained_comparison_of_arrays_raises_value_error_as_numpy_does(backend):
    A = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match="ambiguous"):
        chained(A)
    with pytest.raises(ValueError, match=r"test_numpy_semantics_edges.py:\d+:\d+: the truth"):
        solvent.jit(chained, backend=backend)(A)


@pytest.mark.parametrize("x", [0.1, 0.5, 0.9])
def test_chained_comparison_of_scalars(x, backend):
    check(chained_scalars, x, backend=backend)


@pytest.mark.parametrize("A", [np.zeros(0), np.ones(2)], ids=["empty", "two"])
def test_truth_of_empty_or_long_array_raises_value_error(A, backend):
    with pytest.raises(ValueError):
        if_on_array(A)
    with pytest.raises(ValueError, match="ambiguous"):
        solvent.jit(if_on_array, backend=backend)(A)


@pytest.mark.parametrize("A", [np.ones(1), np.zeros((1, 1))], ids=["one", "one-2d"])
def test_truth_of_one_element_array(A, backend):
    check(if_on_array, A, backend=backend)


def double(A):
    return A * 2


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
@pytest.mark.parametrize("arg", [np.matrix([[1.0, 2.0]]),
                                 np.ma.masked_array([1.0, 2.0], mask=[0, 1])],
                         ids=["matrix", "masked"])
def test_array_subclasses_are_refused_clearly(arg):
    with pytest.raises(solvent.UnsupportedError, match="ndarray subclass"):
        solvent.jit(double)(arg)
    with pytest.warns(UserWarning, match="plain Python"):
        out = solvent.jit(double, fallback="python")(arg)
    assert type(out) is type(arg)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_plain_array_version_is_not_reused_for_a_subclass():
    f = solvent.jit(double)
    f(np.ones((1, 2)))
    with pytest.raises(solvent.UnsupportedError, match="ndarray subclass"):
        f(np.matrix([[1.0, 2.0]]))


class Model:
    def step(self, A):
        return A + 1


@pytest.mark.parametrize("fn", [np.sum, len, np.add], ids=["np.sum", "len", "ufunc"])
def test_non_functions_are_refused_at_decoration(fn):
    with pytest.raises(solvent.UnsupportedError, match="plain|not a Python function"):
        solvent.jit(fn)


def test_a_bound_method_compiles_with_its_object():
    """(refused before; tests/runtime/test_methods.py has the rest)"""
    assert np.array_equal(solvent.jit(Model().step)(np.ones(2)), np.full(2, 2.0))


def test_non_function_with_fallback_runs_as_python():
    f = solvent.jit(np.sum, fallback="python")
    with pytest.warns(UserWarning, match="plain Python"):
        assert f(np.ones(3)) == 3.0
