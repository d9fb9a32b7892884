"""An error Python or NumPy raises on a line is raised only if that line runs (s26 failure
probe). Found while translating (a shape that does not fit, ``1 // 0`` of constants, ``assert
False``), it was raised at compile time even inside a branch that never ran; now it is a run-time
check that fails where the line is reached (frontend/statements.defer_error), naming the line,
with the caller's arrays unchanged. A path that certainly fails (a ``raise``) no longer needs
the names the other path binds (``if bad: raise ...  else: y = ...``)."""
import inspect
import math

import numpy as np
import pytest

import solvent

BACKENDS = ["interp", "native", "xla"]


def reshape_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        b = a.reshape(3, 3)   # fails
        a[1] = b[0, 0]
    return a


def assert_false_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        assert False, "unreachable"   # fails
    return a


def const_division_in_loop(a, k):
    for i in range(k):
        a[i] = 1 // 0   # fails
    return a


def matmul_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        a[1] = a @ np.ones(3)   # fails
    return a


def axis_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        a[1] = a.sum(axis=2)   # fails
    return a


def int_nan_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        a[1] = int(math.nan)   # fails
    return a


def setitem_shape_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        a[0:3] = np.ones(4)   # fails
    return a


def concatenate_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        a[1] = np.concatenate([a, np.ones((2, 2))]).sum()   # fails
    return a


def stack_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        a[1] = np.stack([a, np.ones(3)]).sum()   # fails
    return a


def inv_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        a[1] = np.linalg.inv(a.reshape(2, 5)).sum()   # fails
    return a


def list_item_in_branch(a, k):
    a[0] = 7.0
    if k > 0:
        a[1] = [1, 2][5]   # fails
    return a


def raise_or_bind(a, k):
    if k > 0:
        raise ValueError("bad mode")   # fails
    else:
        y = a[1] * 2.0
    a[0] = y
    return a


def elif_chain(a, mode):
    if mode == 0:
        y = a[0]
    elif mode == 1:
        y = a[1] + 1.0
    else:
        raise ValueError("unknown mode")
    return y


def return_or_raise(a, mode):
    if mode == 0:
        return a.sum()
    else:
        raise ValueError("unknown mode")


def view_or_raise(a, mode):
    if mode == 0:
        b = a[1:]
    else:
        raise ValueError("unknown mode")
    b[0] = 100.0          # writes through the view into the caller's array
    return a


def helper_after_failure(a, k):
    a[0] = 7.0
    if k > 0:
        b = a.reshape(3, 3)   # fails
        c = b.sum()
    else:
        c = a[2]
    return c


def ifexp_arm(a, k):
    b = a.reshape(3, 3) if k > 0 else a
    b[0] = 7.0
    return b


CASES = [
    (reshape_in_branch, ValueError), (assert_false_in_branch, AssertionError),
    (const_division_in_loop, ZeroDivisionError), (matmul_in_branch, ValueError),
    (axis_in_branch, np.exceptions.AxisError), (int_nan_in_branch, ValueError),
    (raise_or_bind, ValueError), (helper_after_failure, ValueError),
    # NumPy's and Python's errors, which were UnsupportedError or internal errors
    (setitem_shape_in_branch, ValueError), (concatenate_in_branch, ValueError),
    (stack_in_branch, ValueError), (inv_in_branch, np.linalg.LinAlgError),
    (list_item_in_branch, IndexError),
]


def _failing_line(fn):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if s.rstrip().endswith("# fails"))


def _python(fn, a, k):
    a = a.copy()
    try:
        return fn(a, k), None
    except Exception as e:
        return None, e


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,exc", CASES, ids=[c[0].__name__ for c in CASES])
def test_an_error_is_raised_only_where_its_line_runs(fn, exc, backend):
    line = _failing_line(fn)
    jf = solvent.jit(fn, backend=backend)
    want, err = _python(fn, np.arange(10.0), 0)
    assert err is None
    a = np.arange(10.0)
    got = jf(a, 0)          # the branch does not run: Python's answer, no error
    np.testing.assert_array_equal(got, want)
    a = np.arange(10.0)
    _, err = _python(fn, a, 1)
    assert type(err) is exc
    with pytest.raises(exc, match=rf"test_errors_where_they_run.py:{line}:\d+: ") as got:
        jf(a, 1)
    # and Python's or NumPy's own words (pytest adds a line to an assert's message)
    assert str(got.value).endswith(str(err).split("\n")[0])
    np.testing.assert_array_equal(a, np.arange(10.0))    # nothing written back
    np.testing.assert_array_equal(jf(np.arange(10.0), 0), want)   # and good again


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_path_that_raises_does_not_need_the_other_paths_names(backend):
    jf = solvent.jit(elif_chain, backend=backend)
    for mode in (0, 1):
        assert jf(np.arange(3.0), mode) == elif_chain(np.arange(3.0), mode)
    with pytest.raises(ValueError, match="unknown mode"):
        jf(np.arange(3.0), 2)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [return_or_raise, view_or_raise])
def test_a_raising_path_neither_falls_off_the_end_nor_changes_a_view(fn, backend):
    # refused before: 'returns a value on some paths and falls off its end', and "'b'
    # refers to different arrays depending on a run-time condition"
    jf = solvent.jit(fn, backend=backend)
    a = np.arange(4.0)
    want = fn(np.arange(4.0), 0)
    got = jf(a, 0)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, [0.0, 100.0, 2.0, 3.0] if fn is view_or_raise
                                  else np.arange(4.0))
    a = np.arange(4.0)
    with pytest.raises(ValueError, match="unknown mode"):
        jf(a, 1)
    np.testing.assert_array_equal(a, np.arange(4.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_error_in_a_conditional_operand_is_raised_where_it_is_chosen(backend):
    # 'x if c else y' with an x that cannot be computed: raised at compile time before,
    # also where c is false; the result is y itself (writes through it reach the caller's)
    jf = solvent.jit(ifexp_arm, backend=backend)
    a = np.arange(10.0)
    got = jf(a, 0)
    np.testing.assert_array_equal(got, ifexp_arm(np.arange(10.0), 0))
    np.testing.assert_array_equal(a, ifexp_arm(np.arange(10.0), 0))
    a = np.arange(10.0)
    with pytest.raises(ValueError, match=r"into shape \(3,3\)"):
        jf(a, 1)
    np.testing.assert_array_equal(a, np.arange(10.0))


def store_then_reshape(a, k):
    a[k] = 1.0
    return a.reshape(3, 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_earlier_run_time_check_fails_first(backend):
    # the reshape always fails, but after a store whose index is known only at run time:
    # IndexError where that fails first (it was ValueError at compile time for any k)
    jf = solvent.jit(store_then_reshape, backend=backend)
    a = np.zeros(10)
    with pytest.raises(IndexError, match="index 20 is out of bounds"):
        jf(a, 20)
    with pytest.raises(ValueError, match=r"into shape \(3,3\)"):
        jf(a, 2)
    assert not a.any()
