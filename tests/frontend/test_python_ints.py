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
