"""Error behaviour: unsupported constructs raise solvent.UnsupportedError naming the file and
line; bad calls raise TypeError; the caller's arrays are never changed by a failed call;
fallback="python" warns and runs the original function."""
import inspect
import os
import warnings

import numpy as np
import pytest

import solvent

MARK = "# <- offending line"


def _line_of(fn, marker=MARK):
    lines, first = inspect.getsourcelines(fn)
    hits = [first + k for k, line in enumerate(lines) if marker in line]
    assert len(hits) == 1
    return hits[0]


# Every kernel writes into its argument before reaching the unsupported line, so a failed
# call that leaked partial effects would show up.
def k_try(A):
    A[0] = 100.0
    try:  # <- offending line
        A[1] = 1.0
    except IndexError:
        A[1] = 2.0
    return A


def k_arange_from_data(A):
    A[0] = 100.0
    return np.arange(int(A[1])).sum()  # <- offending line (a length read from data)


def k_return_in_loop(A):
    # a return inside a loop is supported; returning a tuple there and a number after the
    # loop is not (the error names the loop the return leaves)
    A[0] = 100.0
    for i in range(A.shape[0]):  # <- offending line
        if i > 1:
            return i, A
    return -1


def k_raise(A):
    A[0] = 100.0
    raise ValueError("no")  # <- offending line


def k_with(A):
    A[0] = 100.0
    with open("x") as fh:  # <- offending line
        A[1] = 1.0


def k_list_comp(A):
    A[0] = 100.0
    return [A[i] for i in range(2) if A[i] > 0]  # <- offending line


def k_unknown_call(A):
    A[0] = 100.0
    return np.linalg.eig(A)  # <- offending line


def _helper_bad(X):
    X[1] = 5.0
    return X.tolist()  # <- offending line


def k_error_in_helper(A):
    A[0] = 100.0
    return _helper_bad(A)


def k_dict(A):
    # (dict literals compile now: test_dicts_built_inside.py; a comprehension does not)
    A[0] = 100.0
    d = {k: A for k in "ab"}  # <- offending line
    return d


# (functions defined inside the kernel, lambdas and iteration over arrays are supported now:
# tests/frontend/test_python_idioms.py; global and closure arrays: test_outer_arrays.py)
UNSUPPORTED = [k_try, k_arange_from_data, k_return_in_loop, k_with,
               k_list_comp, k_unknown_call, k_dict]


def test_raise_raises_with_the_line_and_leaves_the_array(backend):
    # (was refused; a raise of a built-in exception is compiled now: test_raise.py)
    A = np.arange(4.0)
    with pytest.raises(ValueError, match=r"test_errors.py:51:\d+: no") as ei:
        solvent.jit(k_raise, backend=backend)(A)
    assert "# <- offending line" in open(__file__).read().splitlines()[50]
    assert not isinstance(ei.value, solvent.UnsupportedError)
    np.testing.assert_array_equal(A, np.arange(4.0))


@pytest.mark.parametrize("fn", UNSUPPORTED, ids=lambda f: f.__name__)
def test_unsupported_names_file_and_line(fn, backend):
    A = np.arange(4.0)
    A0 = A.copy()
    with pytest.raises(solvent.UnsupportedError) as ei:
        solvent.jit(fn, backend=backend)(A)
    msg = str(ei.value)
    line = _line_of(fn)
    assert os.path.basename(__file__) in msg, msg
    assert f"{__file__}:{line}:" in msg or f"{os.path.basename(__file__)}:{line}:" in msg, \
        f"expected line {line} in: {msg}"
    np.testing.assert_array_equal(A, A0, err_msg="a failed call changed the argument")


def test_unsupported_in_helper_points_into_helper(backend):
    A = np.arange(4.0)
    with pytest.raises(solvent.UnsupportedError) as ei:
        solvent.jit(k_error_in_helper, backend=backend)(A)
    line = _line_of(_helper_bad)
    assert f"{os.path.basename(__file__)}:{line}:" in str(ei.value), str(ei.value)
    np.testing.assert_array_equal(A, np.arange(4.0))


def test_error_is_exception_with_message(backend):
    with pytest.raises(solvent.UnsupportedError) as ei:
        solvent.jit(k_try, backend=backend)(np.zeros(3))
    assert isinstance(ei.value, Exception)
    assert "try" in str(ei.value).lower()


# --- bad calls -----------------------------------------------------------------------------------
def two_args(A, x):
    A[0] = x
    return A


def test_wrong_argument_count(backend):
    f = solvent.jit(two_args, backend=backend)
    A = np.zeros(3)
    with pytest.raises(TypeError):
        f(A)
    with pytest.raises(TypeError):
        f(A, 1.0, 2.0)
    with pytest.raises(TypeError):
        f(A, y=1.0)
    np.testing.assert_array_equal(A, np.zeros(3))
    # and the same function still works after the failures
    assert f(A, x=2.0) is A and A[0] == 2.0


def identity_sum(A):
    A[0] = 0
    return A


@pytest.mark.parametrize("arr", [
    np.array([1, "a", None], dtype=object),
    np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]"),
    np.array([1, 2], dtype="timedelta64[s]"),
    np.array(["ab", "cd"]),
], ids=["object", "datetime64", "timedelta64", "str"])
def test_unsupported_dtype(arr, backend):
    before = arr.copy()
    with pytest.raises(solvent.UnsupportedError):
        solvent.jit(identity_sum, backend=backend)(arr)
    assert np.array_equal(arr, before)


def test_unsupported_scalar_argument(backend):
    with pytest.raises(solvent.UnsupportedError):
        solvent.jit(identity_sum, backend=backend)(object())


# --- failures leave arguments untouched ------------------------------------------------------------
def k_static_out_of_bounds(A):
    A[0] = 100.0
    return A[10]


def test_index_error_like_numpy(backend):
    A = np.arange(4.0)
    with pytest.raises(IndexError):
        k_static_out_of_bounds(A.copy())
    with pytest.raises(IndexError):
        solvent.jit(k_static_out_of_bounds, backend=backend)(A)
    np.testing.assert_array_equal(A, np.arange(4.0))


def k_write_both(A, B):
    A[0] = 1.0
    B[1] = 2.0


def test_aliased_arguments_refused_and_untouched(backend):
    A = np.arange(4.0)
    with pytest.raises(solvent.UnsupportedError):
        solvent.jit(k_write_both, backend=backend)(A, A[::-1])
    np.testing.assert_array_equal(A, np.arange(4.0))


def k_shape_error(A, B):
    A[0] = 100.0
    return A + B


def test_broadcast_error_leaves_args(backend):
    A, B = np.arange(4.0), np.arange(3.0)
    with pytest.raises(ValueError):
        k_shape_error(A.copy(), B)
    with pytest.raises((ValueError, solvent.UnsupportedError)):
        solvent.jit(k_shape_error, backend=backend)(A, B)
    np.testing.assert_array_equal(A, np.arange(4.0))


# --- fallback="python" ---------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [k_try, k_arange_from_data],
                         ids=lambda f: f.__name__)
def test_fallback_python(fn, backend, capsys):
    A = np.arange(4.0)
    expected_arg = A.copy()
    expected = fn(expected_arg)
    capsys.readouterr()
    jf = solvent.jit(fn, fallback="python", backend=backend)
    with pytest.warns(UserWarning, match="solvent"):
        got = jf(A)
    np.testing.assert_array_equal(A, expected_arg)
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, expected)
        if expected is expected_arg:
            assert got is A
    else:
        assert type(got) is type(expected) and got == expected


def test_fallback_not_used_when_supported(backend):
    A = np.arange(4.0)
    jf = solvent.jit(two_args, fallback="python", backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jf(A, 3.0) is A
    assert A[0] == 3.0


def test_fallback_decorator_form():
    @solvent.jit(fallback="python")
    def k(A):
        return k_try(A)
    # a function defined inside a test is still compiled from its source
    A = np.arange(3.0)
    with pytest.warns(UserWarning):
        r = k(A)
    assert r is A and A[0] == 100.0 and A[1] == 1.0


def test_bad_options():
    with pytest.raises(ValueError):
        solvent.jit(two_args, fallback="numpy")
    with pytest.raises(ValueError):
        solvent.jit(two_args, backend="cuda")(np.zeros(2), 1.0)


KERNELS = {
    "double": lambda x: x * 2,
    "shift": lambda x: x + 1,
}
PLAIN = lambda x: x - 1  # noqa: E731
TWO = [lambda x: x * 3, lambda x: x * 5]
SPREAD = (
    lambda u, k=2.0:
        np.cumsum(u)[-1] * (k +
                            1.0)
)


@pytest.mark.parametrize("fn", [KERNELS["double"], PLAIN, TWO[0], TWO[1], SPREAD],
                         ids=["in-a-dict", "assigned", "first-of-two", "second-of-two",
                              "over-lines"])
def test_jit_of_a_lambda_compiles_the_lambda_meant(fn):
    """solvent.jit(lambda ...) re-reads the source: a lambda inside a dict literal, one of
    two on a line (told apart by where its body starts), one whose body spans lines (inspect
    gives only its first line) compile as the lambda itself."""
    x = np.arange(4.0)
    np.testing.assert_array_equal(solvent.jit(fn)(x), fn(x))


def test_explain_of_a_lambda_names_it_lambda():
    assert "@lambda(" in solvent.explain(PLAIN, np.ones(3))


def test_a_lambda_without_source_is_refused():
    fn = eval("lambda x: x + 1")
    with pytest.raises(solvent.UnsupportedError, match="cannot read the source"):
        solvent.jit(fn)(np.ones(3))
