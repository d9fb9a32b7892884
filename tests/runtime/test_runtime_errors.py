"""Errors NumPy raises at run time are raised by solvent too, naming the source line, and
leave the caller's arrays untouched (issue 7 item 2): checks travel as values
(ops/checks.py, passes/checks_to_values.py) and the runtime raises before write-back."""
import re

import numpy as np
import pytest

import solvent
from differential import check


def _raises_like_numpy(fn, args, backend, exc, match):
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(exc):
        fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    with pytest.raises(exc, match=match):
        solvent.jit(fn, backend=backend)(*copies)
    for a, c in zip(args, copies):   # nothing written back
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, c, equal_nan=True)


def read_at(A, i):
    return A[i]


def write_at(A, i, v):
    A[0] = 1.0           # written before the failure: must not reach the caller
    A[i] = v


def loop_reads_past_end(A, n):
    s = 0.0
    for i in range(n):
        s += A[i]
    return s


def while_scans(A):
    i = 0
    while A[i] > 0:      # NumPy: IndexError when every value is positive
        i += 1
    return i


def gather(A, idx):
    return A[idx]


def scatter(A, idx):
    A[idx] = 0.0


def window(A, i):
    return A[i:i + 3].sum()


def step_from_argument(A, s):
    t = 0.0
    for i in range(0, 5, s):
        t += A[i]
    return t


def two_d(A, i, j):
    A[i, j] += 1.0
    return A


LINE = r"test_runtime_errors.py:\d+:\d+: "


@pytest.mark.parametrize("i", [5, -6, 100])
def test_scalar_read_out_of_bounds(i, backend):
    _raises_like_numpy(read_at, (np.arange(5.0), i), backend, IndexError,
                       LINE + rf"index {i} is out of bounds for axis 0 with size 5")


@pytest.mark.parametrize("i", [-5, 0, 4])
def test_scalar_read_in_bounds(i, backend):
    check(read_at, np.arange(5.0), i, backend=backend)


def test_scalar_write_out_of_bounds_leaves_caller_untouched(backend):
    _raises_like_numpy(write_at, (np.zeros(4), 4, 2.0), backend, IndexError,
                       LINE + "index 4 is out of bounds")


def test_loop_reading_past_the_end(backend):
    _raises_like_numpy(loop_reads_past_end, (np.ones(4), 6), backend, IndexError,
                       "index 4 is out of bounds")
    check(loop_reads_past_end, np.ones(4), 4, backend=backend)


def test_while_loop_that_runs_off_the_array_stops_and_raises(backend):
    _raises_like_numpy(while_scans, (np.ones(6),), backend, IndexError, "index 6 is out")
    check(while_scans, np.array([3.0, 2.0, -1.0, 5.0]), backend=backend)


@pytest.mark.parametrize("idx", [[0, 7, 1], [-8, 0]], ids=["high", "low"])
def test_gather_out_of_bounds(idx, backend):
    idx = np.array(idx)
    bad = idx[(idx >= 6) | (idx < -6)][0]
    _raises_like_numpy(gather, (np.arange(6.0), idx), backend, IndexError,
                       f"index {bad} is out of bounds for axis 0 with size 6")


@pytest.mark.parametrize("idx", [np.array([], np.int64), np.zeros((0, 2), np.uint8),
                                 np.array([4, 0, 5], np.uint8)], ids=["empty", "empty-2d", "u8"])
def test_gather_with_empty_or_unsigned_index_arrays(idx, backend):
    check(gather, np.arange(6.0), idx, backend=backend)


def test_scatter_out_of_bounds(backend):
    _raises_like_numpy(scatter, (np.ones(6), np.array([1, 6])), backend, IndexError,
                       "index 6 is out of bounds")
    check(scatter, np.ones(6), np.array([1, -6]), backend=backend)


@pytest.mark.parametrize("i", [4, -1])
def test_window_that_does_not_fit_is_numpys_shorter_slice_or_an_error(i, backend):
    """Never a wrong sum: where a backend takes run-time lengths the call is compiled again
    with NumPy's clamped slice (tests/runtime/test_clamped_windows.py); XLA raises."""
    A = np.arange(6.0)
    if backend == "xla":
        with pytest.raises(IndexError, match=LINE + "a slice of length 3 starting at"):
            solvent.jit(window, backend=backend)(A, i)
    else:
        check(window, A, i, backend=backend)
    check(window, A, 3, backend=backend)


def test_range_step_zero_at_run_time(backend):
    _raises_like_numpy(step_from_argument, (np.ones(5), 0), backend, ValueError,
                       LINE + "range\\(\\) arg 3 must not be zero")
    check(step_from_argument, np.ones(5), 2, backend=backend)


def test_second_axis_index(backend):
    _raises_like_numpy(two_d, (np.zeros((3, 4)), 1, 4), backend, IndexError,
                       "index 4 is out of bounds for axis 1 with size 4")


def short_circuit(A, i):
    if i < A.shape[0] and A[i] > 0:
        return 1.0
    return 0.0


def guarded_if_expression(A, i):
    return A[i] if i < A.shape[0] else A[0] - 10.0


@pytest.mark.parametrize("i", [0, 2, 3, 10])
def test_checks_under_short_circuit_do_not_fire(i, backend):
    A = np.array([1.0, -1.0, 2.0])
    check(short_circuit, A, i, backend=backend)
    check(guarded_if_expression, A, i, backend=backend)


def test_checks_proved_in_bounds_are_removed():
    def stencil(A, B):
        for i in range(1, A.shape[0] - 1):
            B[i] = A[i - 1] + A[i + 1]
    text = solvent.explain(stencil, np.ones(8), np.ones(8))
    final = text.split("## after dce")[1]
    assert "errors" not in final.split("\n")[2]  # the function head lists no checks


# --- LinAlgError, ZeroDivisionError, negative integer powers, NEP 50 overflow ---------------

def solve(A, b):
    return np.linalg.solve(A, b)


def inverse(A):
    return np.linalg.inv(A)


def chol(A):
    return np.linalg.cholesky(A)


SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


def test_singular_matrices_raise_linalg_error(backend):
    _raises_like_numpy(solve, (SINGULAR, np.ones(2)), backend, np.linalg.LinAlgError,
                       LINE + "Singular matrix")
    _raises_like_numpy(inverse, (SINGULAR,), backend, np.linalg.LinAlgError, "Singular matrix")
    _raises_like_numpy(chol, (np.array([[1.0, 2.0], [2.0, 1.0]]),), backend,
                       np.linalg.LinAlgError, "Matrix is not positive definite")


def test_nan_input_is_not_a_linalg_error(backend):
    check(solve, np.array([[np.nan, 1.0], [0.0, 1.0]]), np.ones(2), backend=backend)


def test_cholesky_reads_only_the_lower_triangle_as_numpy_does(backend):
    check(chol, np.array([[4.0, 9.0], [1.0, 2.0]]), backend=backend)   # not symmetric


def py_div(x, y):
    return x / y


def py_floordiv(x, y):
    return x // y


def py_mod(x, y):
    return x % y


def array_div(A, y):
    return A / y


@pytest.mark.parametrize("fn", [py_div, py_floordiv, py_mod])
@pytest.mark.parametrize("x,y", [(1.0, 0.0), (3, 0), (True, False)])
def test_python_scalar_division_by_zero(fn, x, y, backend):
    with pytest.raises(ZeroDivisionError) as python:
        fn(x, y)
    # Python's own words: 'float modulo', 'integer division or modulo by zero', ...
    _raises_like_numpy(fn, (x, y), backend, ZeroDivisionError,
                       LINE + re.escape(str(python.value)) + "$")


@pytest.mark.parametrize("fn", [py_div, py_floordiv, py_mod])
def test_python_scalar_division(fn, backend):
    check(fn, 7, 2, backend=backend)
    check(fn, -7.5, 2.0, backend=backend)


def test_array_division_by_zero_is_numpy_inf(backend):
    check(array_div, np.ones(3), 0.0, backend=backend)


def int_power(A, k):
    return A ** k


def test_integer_array_to_a_negative_power(backend):
    msg = "Integers to negative integer powers are not allowed"
    _raises_like_numpy(int_power, (np.arange(3), -1), backend, ValueError, msg)
    _raises_like_numpy(int_power, (np.arange(3), np.array([1, -2, 0])), backend, ValueError, msg)
    check(int_power, np.arange(3), 3, backend=backend)
    check(int_power, np.arange(3.0), -1, backend=backend)


def add_int(A, n):
    return A + n


def add_300(A):
    return A + 300


def less_than(A, n):
    return A < n


def store_int(A, n):
    A[0] = n


I8 = np.array([1, -2, 3], dtype=np.int8)


@pytest.mark.parametrize("fn,args", [(add_int, (I8, 300)), (add_int, (I8, -129)),
                                     (add_300, (I8,)), (store_int, (I8, 1000)),
                                     (add_int, (np.arange(3, dtype=np.uint8), -1))],
                         ids=["add-arg", "add-low", "add-const", "store", "uint8"])
def test_python_int_out_of_bounds_for_the_array_dtype(fn, args, backend):
    _raises_like_numpy(fn, args, backend, OverflowError, LINE + "Python integer -?\\d+ out of "
                       "bounds for u?int8")


@pytest.mark.parametrize("n", [300, -300, 5, -2])
def test_comparison_with_an_out_of_range_python_int_compares_values(n, backend):
    check(less_than, I8, n, backend=backend)
    check(add_int, I8, 100, backend=backend)


def python_number_mod_constant_zero(q, B):
    B[:-1] *= (q % 0.0)          # q is a run-time Python int: float modulo by zero


def python_number_div_constant_zero_in_untaken_branch(q, B):
    if q < 0:
        B[:] = q // 0
    return B


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_run_time_python_number_by_constant_zero_raises_where_reached(backend):
    B = np.ones(3)
    with pytest.raises(ZeroDivisionError):
        solvent.jit(python_number_mod_constant_zero, backend=backend)(3, B)
    assert np.array_equal(B, np.ones(3))
    r = solvent.jit(python_number_div_constant_zero_in_untaken_branch, backend=backend)(3, B)
    assert np.array_equal(r, np.ones(3))
