"""Python ints are compiled as int64 (frontend/python_ints.py): ``+ - *`` of Python ints
that leave the 64-bit range raise OverflowError with the line, where Python's ints would
grow and plain 64-bit arithmetic would wrap silently; results in range equal Python's.
NumPy integers keep NumPy's wrapping."""
import re

import numpy as np
import pytest

import solvent

BACKENDS = ["native", "xla", "interp"]
MIN, MAX = -(1 << 63), (1 << 63) - 1


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def scaled(n):
    return n * 10 ** 12


def arith(a, b):
    return a + b, a - b, a * b, b - a


def const_sides(a):
    return a + 7, 7 - a, a - 7, a * 3, -3 * a, a * -1


def numpy_ints_wrap(x):
    return x[0] * x[1] + x[2]          # int64 elements: NumPy's wrapping, unchecked


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_growing_python_int_raises_overflow_error_with_the_line(backend):
    f = solvent.jit(fib, backend=backend)
    assert f(91) == fib(91)        # computes fib(92), the largest Fibonacci number in int64
    with pytest.raises(OverflowError, match=r"test_python_ints.py:\d+:\d+: Python int result "
                                            r"does not fit in 64 bits"):
        f(92)                      # fib(93), computed though not returned, needs 65 bits
    g = solvent.jit(scaled, backend=backend)
    assert g(10 ** 6) == 10 ** 18
    with pytest.raises(OverflowError):
        g(10 ** 8)


EDGES = [0, 1, -1, 2, -2, 3, 10 ** 9, -(10 ** 9), 3037000499, 3037000500, -3037000500,
         MAX, MIN, MAX - 6, MIN + 6, MAX // 3, MIN // 3, (MAX // 3) + 1]


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_each_operation_raises_exactly_where_python_leaves_int64(backend):
    f = solvent.jit(arith, backend=backend)
    g = solvent.jit(const_sides, backend=backend)
    for a in EDGES:
        want = const_sides(a)
        if all(MIN <= w <= MAX for w in want):
            assert g(a) == want, a
        else:
            with pytest.raises(OverflowError):
                g(a)
        for b in EDGES:
            want = arith(a, b)
            if all(MIN <= w <= MAX for w in want):
                assert f(a, b) == want, (a, b)
            else:
                with pytest.raises(OverflowError):
                    f(a, b)


def test_numpy_integers_keep_numpys_wrapping():
    x = np.array([MAX, 2, 5], dtype=np.int64)
    with np.errstate(over="ignore"):
        want = numpy_ints_wrap(x)
    assert solvent.jit(numpy_ints_wrap, backend="native")(x) == want


# --- **, <<, -, abs, // -1 of Python ints (frontend/python_int_powers.py) -----------------
ALL_BACKENDS = ["native", "xla", "interp", None]     # None: the automatic choice


def power(n, k):
    return n ** k


def literal_negative_power(n):
    return n ** -2


def shift(n, k):
    return n << k


def negate(n):
    return -n


def absolute(n):
    return abs(n)


def floor_div_minus_one(n):
    return n // -1


def const_powers(n):
    return 3 ** n, (-2) ** n, n ** 3, n ** 2, 1 << n, n << 3


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_negative_exponent_known_at_run_time_raises_one_clear_error(backend):
    from differential import check, jitted
    f = jitted(power, backend)
    with pytest.raises(ValueError, match=r"test_python_ints.py:\d+:\d+: negative exponent: "
                                         r"Python's int \*\* int gives a float.*float\(n\) \*\* k"):
        f(2, -2)                   # Python: 0.25, a float; solvent types int ** int as int
    check(power, 2, 3, backend=backend)
    check(power, -3, 0, backend=backend)
    check(literal_negative_power, 2, backend=backend)      # a literal: Python's float


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn,ok,bad", [
    (shift, (1, 62), [(1, 63), (1, 64), (-3, 62)]),
    (power, (3, 39), [(3, 41), (2, 63), (-3, 40)]),
    (negate, (MAX,), [(MIN,)]),
    (absolute, (MIN + 1,), [(MIN,)]),
    (floor_div_minus_one, (MIN + 1,), [(MIN,)]),
], ids=lambda v: getattr(v, "__name__", None))
def test_python_int_overflow_of_shift_power_negation_raises(backend, fn, ok, bad):
    from differential import check, jitted
    check(fn, *ok, backend=backend)
    f = jitted(fn, backend)
    if fn is shift:
        with pytest.raises(ValueError, match="negative shift count"):   # Python's error
            f(1, -1)
    for args in bad:
        with pytest.raises(OverflowError, match=r"test_python_ints.py:\d+:\d+: Python int "
                                                r"result does not fit in 64 bits"):
            f(*args)


POW_EDGES = [0, 1, -1, 2, -2, 3, -3, 8, -8, 2097152, -2097153, 3037000499, 3037000500,
             -3037000500, MAX, MIN]
EXPONENTS = [0, 1, 2, 3, 20, 21, 39, 40, 41, 62, 63, 64, 100, MAX]


def _python(fn, *args):
    if args[1] > 200 and (fn is shift or abs(args[0]) > 1):
        args = (args[0], 200)      # as out of range as MAX, without building that int
    return fn(*args)


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_power_and_shift_raise_exactly_where_python_leaves_int64(backend):
    fs = {fn: solvent.jit(fn, backend=backend) for fn in (power, shift, const_powers)}
    for a in POW_EDGES:
        for fn in (power, shift):
            for b in EXPONENTS:
                want = _python(fn, a, b) if fn is power or a else 0
                if MIN <= want <= MAX:
                    assert fs[fn](a, b) == want, (fn.__name__, a, b)
                else:
                    with pytest.raises(OverflowError):
                        fs[fn](a, b)
    for b in [0, 2, 3, 20, 21, 39, 40, 41, 60, 61, 62, 63, 64]:
        want = const_powers(b)
        if all(MIN <= w <= MAX for w in want):
            assert fs[const_powers](b) == want, b
        else:
            with pytest.raises(OverflowError):
                fs[const_powers](b)


def negation_in_loop(a):
    p, q, r = (np.empty(a.shape[0], np.int64) for _ in range(3))
    for i in range(a.shape[0]):
        p[i] = abs(i - 3) ** 2
        q[i] = -i // -1
        r[i] = 1 << i
    return p, q, r


def test_checks_of_loop_indices_are_proven_away():
    """The checks of ``abs(i - 3) ** 2``, ``-i // -1`` and ``1 << i`` with ``i`` a loop
    index of known range hold on every trip: prove_checks removes them (no error flags)."""
    from differential import assert_same_value
    f = solvent.jit(negation_in_loop, backend="native")
    text = f.explain(np.zeros(20))
    assert_same_value(f(np.zeros(20)), negation_in_loop(np.zeros(20)), "result")
    final = text.split("## after")[-1]
    assert "OverflowError" not in final and "error.check" not in final
