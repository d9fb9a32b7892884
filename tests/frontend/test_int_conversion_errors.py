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


@pytest.mark.parametrize("backend", ["native", "xla"])
def test_in_a_loop_the_first_failing_conversion_is_the_one_raised(backend):
    """Each kind in a loop, and two failing conversions in one iteration: Python's first.
    (The native backend branches on the checks' conditions, not on the code they set:
    backends/native/error_exit.failed_condition; XLA runs the raised loop, whose six checks
    are one run with two conditions left in its conjunction, checks_to_values.)"""
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


def wrap_in_time_loop(steps, x, out):
    for j in range(x.shape[0]):
        a = x[j]
        for s in range(steps):
            a = a - 6.0 * math.floor(a / 6.0 + 0.5)
        out[j] = a


def test_a_floors_checks_set_the_code_in_one_select_and_carry_no_payload():
    """math.floor's three checks (NaN, infinity, beyond int64) set the error code in one
    select (checks_to_values' runs), and the raised loop over j carries no per-element
    payload through the time loop (they have none: dce.forward_constant_carries); the kind
    raised is still Python's. The run's conjunction is the fits-int64 test alone (the other
    two are `fits or ...`: no `or` is left), and float(math.floor(t)) keeps no fallback for
    values beyond int64 (no `abs`): there the check has failed."""
    from solvent.frontend.translator import translate
    from solvent.ir.printer import print_function
    from solvent.passes.pipeline import run_pipeline
    x, out = np.array([0.5, 7.25, -13.0]), np.zeros(3)
    fn = run_pipeline(translate(wrap_in_time_loop, (3, x, out)).fn)
    text = print_function(fn)
    inner = [op for op in fn.walk() if op.name == "loop.for" and "loop.for" not in
             {o.name for o in op.regions[0].block.ops}]
    assert inner and all(a.type.dtype != "i64" for a in inner[0].regions[0].block.args[1:])
    codes = [op for op in inner[0].regions[0].block.ops if op.name == "tensor.select"
             and op.results[0].type.dtype == "i32" and op.operands[2] in
             inner[0].regions[0].block.args]
    assert len(codes) == 1, text
    names = [op.name for op in inner[0].regions[0].block.ops]
    assert "tensor.or" not in names and "tensor.abs" not in names, text
    for backend in BACKENDS:
        f = solvent.jit(wrap_in_time_loop, backend=backend)
        want, out = np.zeros(3), np.zeros(3)
        wrap_in_time_loop(3, x, want)
        f(3, x, out)
        assert np.array_equal(out, want), backend
        for bad, err, msg in [(np.nan, ValueError, "NaN"), (np.inf, OverflowError, "infinity"),
                              (-np.inf, OverflowError, "infinity"),
                              (1e300, OverflowError, "64-bit")]:
            y, o = np.array([1.0, bad, np.nan]), np.full(3, 9.0)
            with pytest.raises(err, match=msg):
                f(3, y, o)
            assert (o == 9.0).all(), backend
