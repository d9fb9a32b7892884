"""``raise`` statements in the user's code: the exception NumPy-on-Python raises, with the
line, where the statement is reached: in a while loop (which it ends: a non-converging
iteration must not spin forever), a for loop, a branch decided at compile time, a helper
function; nothing written back to the caller's arrays. Were refused ("the Raise statement is
not supported"). Each case runs the plain Python function as the oracle."""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from solvent.errors import UnsupportedError

BACKENDS = ["native", "xla", "interp"]


class ConvergenceError(Exception):
    pass


def newton_sqrt(c, tol, maxit):
    x = c
    it = 0
    while abs(x * x - c) > tol:
        x = x - (x * x - c) / (2 * x)
        it += 1
        if it > maxit:
            raise RuntimeError("Newton did not converge")
    return x


def normalize_rows(a):
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            if a[i, j] < 0:
                raise ValueError(f"negative weight in row {i}")
            s += a[i, j]
        a[i, :] /= s          # rows before the bad one are written: not back to the caller
    return a


def _positive(v):
    if v <= 0:
        raise ArithmeticError("log of a non-positive value")
    return np.log(v)


def log_sum(x):
    s = 0.0
    for v in x:
        s += _positive(v)
    return s


def shape_guard(a):
    if a.ndim != 2:
        raise TypeError("expected a matrix")
    return a.sum(axis=0)


def search(x, target):
    for i in range(len(x)):
        if x[i] == target:
            break
    else:
        raise LookupError("not found")
    return i


def bare_class(x):
    if x[0] > 0:
        raise NotImplementedError
    return x


def user_class(x):
    raise ConvergenceError("no")


def _both(fn, args, backend):
    """Python's outcome and solvent's, each (value, None) or (None, exception)."""
    out = []
    for run in (fn, solvent.jit(fn, backend=backend)):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        try:
            out.append((run(*copies), None, copies))
        except Exception as e:   # noqa: BLE001 (comparing what each raises)
            out.append((None, e, copies))
    return out


CASES = [
    (newton_sqrt, (2.0, 1e-12, 50)), (newton_sqrt, (2.0, 1e-300, 5)),
    (normalize_rows, (np.array([[1.0, 3.0], [2.0, 2.0]]),)),
    (normalize_rows, (np.array([[1.0, 3.0], [2.0, -2.0], [1.0, 1.0]]),)),
    (normalize_rows, (np.asfortranarray(np.array([[1.0, 3.0], [-2.0, 2.0]], np.float32)),)),
    (log_sum, (np.array([1.0, 2.0, 3.0]),)), (log_sum, (np.array([1.0, 0.0, 3.0]),)),
    (shape_guard, (np.ones((2, 3)),)), (shape_guard, (np.ones(3),)),
    (search, (np.array([4, 5, 6], np.int8), 5)), (search, (np.array([4, 5, 6], np.int8), 7)),
    (bare_class, (np.array([1.0]),)), (bare_class, (np.array([-1.0]),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in
                                                 enumerate(CASES)])
def test_raises_as_python_does(backend, fn, args):
    (want, werr, _), (got, gerr, copies) = _both(fn, args, backend)
    if werr is None:
        assert gerr is None, gerr
        np.testing.assert_allclose(got, want, rtol=1e-6)
        return
    assert type(gerr) is type(werr), gerr
    assert str(werr) in str(gerr) and "test_raise.py:" in str(gerr)
    for a, c in zip(args, copies):   # the caller's arrays as they were
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(c, a)


def test_classes_the_runtime_does_not_know_are_refused_with_the_line():
    with pytest.raises(UnsupportedError, match=r"test_raise.py:\d+.*raise of this exception"):
        solvent.jit(user_class)(np.ones(2))


def test_run_time_message_fields_other_than_one_integer_are_refused():
    def f(x):
        for v in x:
            if v < 0:
                raise ValueError(f"bad value {v}")
        return x
    with pytest.raises(UnsupportedError, match="message computed at run time"):
        solvent.jit(f)(np.ones(2))


def histogram_nan(x, lo, w, nb):
    counts = np.zeros(nb, dtype=np.int64)
    for v in x:
        b = int((v - lo) / w)    # NaN: Python's ValueError here, before counts[b] below
        counts[b] += 1
    return counts


def first_positive(x):
    y = x[x > 0]
    if len(y) == 0:
        raise ValueError("no positive entry")
    return y[0]                # out of bounds too, after the raise


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_first_failure_in_program_order_is_raised(backend):
    # a check inside a native op (an index outside its axis) came later than the failed
    # check before it, and was raised instead (IndexError for int(nan) then counts[b])
    cases = [(histogram_nan, (np.array([0.5, np.nan, 1.5]), 0.0, 1.0, 3)),
             (histogram_nan, (np.array([0.5, np.inf], np.float32), 0.0, 1.0, 3)),
             (histogram_nan, (np.array([0.5, 7.0]), 0.0, 1.0, 3))]
    if backend != "xla":   # a run-time length
        cases += [(first_positive, (-np.ones(3),)), (first_positive, (np.array([-1.0, 2.0]),))]
    for fn, args in cases:
        (want, werr, _), (got, gerr, copies) = _both(fn, args, backend)
        if werr is None:
            np.testing.assert_array_equal(got, want)
            continue
        assert type(gerr) is type(werr), (fn.__name__, args, gerr)
        assert str(werr).split(" for axis")[0] in str(gerr)
