"""int(), math.floor/ceil/trunc of a float raise Python's errors: NaN -> ValueError,
infinities -> OverflowError (they gave int64's minimum before: a silent wrong answer); a
finite float beyond int64, which a Python int would hold, is an OverflowError saying
solvent's integers are 64-bit. An integer argument of math.floor stays exact (it went through
float64 before). Checked against Python itself on every backend, in straight code and in a
loop that writes an argument (left untouched by the failure). (math.trunc of a float32
scalar is Python's TypeError, np.float32 having no __trunc__: solvent gives the int.)"""
from __future__ import annotations

import math

import numpy as np
import pytest

import solvent

BACKENDS = ["native", "xla", "interp"]


def to_int(x, i):
    return int(x[i])


def floor_of(x, i):
    return math.floor(x[i])


def ceil_of(x, i):
    return math.ceil(x[i])


def trunc_of(x, i):
    return math.trunc(x[i])


def floor_python_int(k):
    return math.floor(k + 0)


def bins_in_loop(x, counts):
    for i in range(x.shape[0]):
        b = math.floor(x[i] * 4.0)
        if 0 <= b < counts.shape[0]:
            counts[b] += 1


VALUES = [1.5, -2.5, -0.0, 2.0 ** 62, -(2.0 ** 63), np.nan, np.inf, -np.inf]


def _python(fn, x, i):
    try:
        return "ok", fn(x, i)
    except (ValueError, OverflowError) as e:
        return type(e), str(e)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [to_int, floor_of, ceil_of, trunc_of])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_to_int_is_pythons(fn, dtype, backend):
    if fn is trunc_of and dtype is np.float32:
        fn = to_int   # Python: TypeError (np.float32 has no __trunc__); int() is trunc
    x = np.array(VALUES, dtype=dtype)
    f = solvent.jit(fn, backend=backend)
    for i in range(len(VALUES)):
        kind, want = _python(fn, x, i)
        if kind == "ok":
            got = f(x, i)
            assert type(got) is int and got == want, (x[i], got, want)
        else:
            with pytest.raises(kind, match=want):
                f(x, i)


@pytest.mark.parametrize("backend", BACKENDS)
def test_beyond_int64_is_refused_not_wrapped(backend):
    x = np.array([1e300, 2.0 ** 63])
    for i in (0, 1):
        with pytest.raises(OverflowError, match="64-bit"):
            solvent.jit(to_int, backend=backend)(x, i)


@pytest.mark.parametrize("backend", BACKENDS)
def test_floor_of_an_integer_is_pythons(backend):
    """A Python int stays exact; a NumPy integer is rounded through float64, as NumPy's
    __floor__ does (math.floor(np.int64(2**62 + 1)) == 2**62)."""
    x = np.array([2 ** 62 + 1, -(2 ** 62) - 1, 7], dtype=np.int64)
    for i in range(3):
        assert solvent.jit(floor_of, backend=backend)(x, i) == math.floor(x[i])
    assert solvent.jit(floor_python_int, backend=backend)(2 ** 62 + 1) == 2 ** 62 + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_nan_in_a_loop_raises_and_leaves_the_counts(backend):
    x = np.array([0.1, 0.6, np.nan, 0.3])
    counts = np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError, match="cannot convert float NaN to integer") as e:
        bins_in_loop(x, counts.copy())
    with pytest.raises(ValueError, match="cannot convert float NaN to integer") as e:
        solvent.jit(bins_in_loop, backend=backend)(x, counts)
    assert "test_int_conversion_errors.py:" in str(e.value)
    assert (counts == 0).all()
    ok = np.array([0.1, 0.6, 0.95, 0.3, 1.7])
    want = np.zeros(4, dtype=np.int64)
    bins_in_loop(ok, want)
    solvent.jit(bins_in_loop, backend=backend)(ok, counts)
    assert (counts == want).all()


def two_ints_in_loop(x, y, out):
    for i in range(x.shape[0]):
        out[i] = int(x[i]) - int(y[i])


@pytest.mark.parametrize("backend", ["native"])   # the one whose test changed; compiles ~1 s
def test_in_a_loop_the_first_failing_conversion_is_the_one_raised(backend):
    """Each kind in a loop, and two failing conversions in one iteration: Python's first.
    (The native backend branches on the checks' conditions, not on the code they set:
    backends/native/error_exit.failed_condition.)"""
    f = solvent.jit(two_ints_in_loop, backend=backend)
    why = {"nan": (ValueError, "float NaN"), "inf": (OverflowError, "float infinity"),
           "big": (OverflowError, "64-bit")}
    for a, b, first in [(np.nan, 1.0, "nan"), (1.0, np.inf, "inf"), (-np.inf, 1.0, "inf"),
                        (1e19, 1.0, "big"), (1e19, np.nan, "big"), (np.nan, 1e19, "nan"),
                        (-np.inf, np.nan, "inf")]:
        x, y = np.array([1.0, 2.0, a, 3.0]), np.array([0.5, 1.0, b, np.nan])
        out = np.full(4, 7, dtype=np.int64)
        with pytest.raises(why[first][0], match=why[first][1]):
            f(x, y, out)
        assert (out == 7).all()
    x, y, out = np.array([1.5, -2.5]), np.array([0.5, 1e18]), np.zeros(2, np.int64)
    f(x, y, out)
    assert list(out) == [1, -2 - 10 ** 18]
