"""``x ** y`` of Python numbers, one of them a float, known at run time: CPython's float power
computed as a float64 pow, with CPython's errors as run-time checks (``error.check``).

Identities (CPython's ``float_pow``; a float64 ``pow`` gives the same value wherever none of
these holds):

- ``0.0 ** y`` with ``y < 0``: ZeroDivisionError('0.0 cannot be raised to a negative power')
  (``pow`` gives inf).
- ``x ** y`` with ``x < 0`` finite and ``y`` finite and not an integer: Python gives a complex
  number (``(-4.0) ** 0.5 == 2j`` up to rounding); ``pow`` gives NaN. solvent types a float
  power as a float (the type cannot depend on a run-time value), so this raises ValueError
  saying so, instead of a silent NaN.
- an infinite result of finite operands: OverflowError((34, 'Numerical result out of
  range')) (``10.0 ** 400``; ``pow`` gives inf).

NumPy scalars and arrays (``x[i] ** 0.5``) keep NumPy's semantics (NaN, inf, no error): only
Python numbers are checked. A literal exponent folds the conditions that cannot hold
(``d ** 0.5`` checks only ``d < 0``, ``d ** 2`` nothing) and leaves out the overflow check:
it reads every result, and ``(j - cx) ** 2`` in mgrid_gaussian_loops' raised loop ran 2.5x
slower with it (9.6 -> 23 ms); such a power of a huge base gives inf, as NumPy's does.
"""
from __future__ import annotations

import numpy as np

from .values import Const

ZERO = "0.0 cannot be raised to a negative power"
COMPLEX = ("negative number raised to a non-integer power: Python gives a complex number "
           "here, but solvent computes a float power as a float (its type cannot depend on "
           "a run-time value); write complex(x) ** y for Python's value, or np.power(x, y) "
           "for NumPy's nan")
RANGE = "(34, 'Numerical result out of range')"


def is_float_power(a, b) -> bool:
    """Both Python numbers (real), at least one a float, not both known at compile time."""
    from .expressions import _python_number

    def is_float(v):
        return type(v.value) is float if isinstance(v, Const) else v.dtype[0] == "f"
    return _python_number(a) and _python_number(b) and (is_float(a) or is_float(b)) and not (
        isinstance(a, Const) and isinstance(b, Const))


def checked_power(em, a, b):
    """``a ** b`` with CPython's errors checked where they can happen."""
    u = em.ufunc
    r = u(np.power, a, b)

    def all_of(*conds):
        conds = [c for c in conds if not (isinstance(c, Const) and c.value is True)]
        if any(isinstance(c, Const) and c.value is False for c in conds):
            return None
        out = conds[0]
        for c in conds[1:]:
            out = u(np.logical_and, out, c)
        return out

    def fails(cond, kind, message):
        if cond is not None:
            em.check(u(np.logical_not, cond), kind, message)

    fails(all_of(u(np.equal, a, Const(0)), u(np.less, b, Const(0))), "ZeroDivisionError", ZERO)
    b_int = isinstance(b, Const) and float(b.value).is_integer() or \
        not isinstance(b, Const) and b.dtype[0] != "f"
    if not b_int:
        fails(all_of(u(np.less, a, Const(0)), u(np.isfinite, a), u(np.isfinite, b),
                     u(np.not_equal, b, u(np.floor, b))), "ValueError", COMPLEX)
    if not isinstance(b, Const):
        fails(all_of(u(np.isinf, r), u(np.isfinite, a), u(np.isfinite, b)), "OverflowError",
              RANGE)
    return r
