"""``x ** y`` of Python numbers known at run time (frontend/python_float_power.py): CPython's
value, or CPython's error (ZeroDivisionError for 0.0 to a negative power, OverflowError for
an infinite result of finite operands); where Python gives a complex number (a negative
base, a non-integer exponent) a ValueError that says so, on every backend, instead of NaN.
NumPy scalars keep NumPy's semantics."""
import math

import numpy as np
import pytest

import solvent
from solvent.frontend.python_float_power import COMPLEX

BACKENDS = ["interp", "native", "xla", None]
CASES = [(-4.0, 0.5), (0.0, -1.0), (10.0, 400.0), (2.0, 3.0), (-2.0, 3.0), (-8.0, 1 / 3),
         (-0.0, -2.0), (float("nan"), 0.0), (1.0, float("nan")), (-2.0, -3.0), (2.5, 2.0),
         (1e-300, 2.0), (float("inf"), -1.0)]


def power(x, y):
    return x ** y


def root_of_sum(a, scale):
    s = 0.0
    for v in a:
        s += v * scale
    return s ** 0.5


def _python(fn, *args):
    try:
        r = fn(*args)
    except (ZeroDivisionError, OverflowError) as e:
        return type(e), str(e)
    if isinstance(r, complex):
        return ValueError, "negative number raised to a non-integer power"
    return r


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_powers_as_python(backend):
    f = solvent.jit(power, backend=backend)
    for x, y in CASES + [(-8, 0.5), (0, -0.5), (4, 0.5), (-2.0, 3), (0.0, -1), (10.0, 400)]:
        want = _python(power, x, y)
        if isinstance(want, tuple):
            with pytest.raises(want[0], match="negative number raised" if want[0] is ValueError
                               else r"cannot be raised|Numerical result") as e:
                f(x, y)
            if want[0] is ValueError:
                assert "complex" in str(e.value) and COMPLEX[:40] in str(e.value)
            continue
        got = f(x, y)
        assert type(got) is float, (x, y, got)
        assert got == want or math.isnan(got) and math.isnan(want), (x, y, got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_python_float_accumulated_then_rooted(backend):
    """``s`` is a Python float (0.0 plus NumPy scalars is a NumPy float64: the check stays
    out), and a negative scale makes the root complex in Python but NaN in NumPy."""
    f = solvent.jit(root_of_sum, backend=backend)
    a = np.array([1.0, 3.0])
    assert f(a, 2.0) == pytest.approx(math.sqrt(8.0), rel=1e-15)
    got = f(a, -1.0)
    with np.errstate(invalid="ignore"):
        want = root_of_sum(a, -1.0)
    assert math.isnan(got) and math.isnan(want)   # np.float64 ** 0.5: NumPy's NaN
