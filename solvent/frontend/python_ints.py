"""Python's unbounded ints, compiled as 64-bit integers: an ``+``, ``-`` or ``*`` of Python
ints (loop counters, accumulators, ``int(...)`` values, integer arguments) whose result does
not fit raises ``OverflowError`` with the line, where Python would give a larger int and
64-bit arithmetic a wrapped one: never a silent wrong number. NumPy integers (array
elements, ``np.int64(...)``, reductions of integer arrays) wrap as in NumPy, unchecked.

Identities the checks rely on (``r`` the wrapped 64-bit result, ``^``/``&`` bitwise):
``a + b`` overflows iff ``(a ^ r) & (b ^ r) < 0`` (both operands' signs differ from the
result's); ``a - b`` iff ``(a ^ b) & (a ^ r) < 0``; ``a * b`` (``a`` not 0 or -1) iff
``r // a != b`` (an exact product divides back; a wrapped one differs from the true one by
a multiple of 2**64, more than ``|a|``), and ``-1 * b`` iff ``b`` is the minimum. With one
operand a constant ``c`` the test is a range of the other, computed here exactly:
``a + c`` fits iff ``MIN - c <= a <= MAX - c``, and so on, which LLVM folds away where a
loop's bounds already imply it.

``a ** b``, ``a << b``, ``-a``, ``abs(a)`` and ``a // b`` of Python ints are checked too
(python_int_powers.py states their identities); ``a ** b`` and ``a << b`` with ``b``
negative at run time raise ValueError: Python's ``2 ** -2`` is the float 0.25, a result type
known only at run time, which solvent (typing ``int ** int`` as int) cannot give.

Not checked: arithmetic written inside a subscript (``a[i * n + j]``, the flat offsets of
code ported from C): the index is bounds-checked, and a wrapped offset that lands back in
range needs a product beyond 2**63 from operands that index an array; checking it would keep
the loop-raising passes from reading such offsets as subscripts. Nor is a step by a
constant of at most 2**20 inside a loop (``count += 1``, ``k -= 2``): such a counter leaves
the 64-bit range only after more than 2**43 iterations, or when it starts within that many
steps of a limit (that start is the one case left unchecked); checking it would make every
counting loop a recurrence instead of a reduction the raising passes turn into a sum.
"""
from __future__ import annotations

import numpy as np

from . import python_float_power as float_power
from . import python_int_powers as powers
from .values import Const, Tensor

MIN, MAX = -(1 << 63), (1 << 63) - 1
CHECKED = (np.add, np.subtract, np.multiply)
MESSAGE = ("Python int result does not fit in 64 bits (solvent computes Python ints as "
           "int64; Python's would grow)")


def python_int(v) -> bool:
    """A Python int (not bool), compile-time or run-time (a weak int64 scalar)."""
    if isinstance(v, Const):
        return type(v.value) is int
    return isinstance(v, Tensor) and v.weak and v.type.rank == 0 and v.dtype == "i64"


def _range_of_other(uf, c: int, const_first: bool):
    """(lo, hi): the values ``a`` for which ``uf(a, c)`` (``uf(c, a)`` if ``const_first``)
    fits in 64 bits."""
    if uf is np.add:
        return max(MIN, MIN - c), min(MAX, MAX - c)
    if uf is np.subtract:
        if const_first:    # c - a
            return max(MIN, c - MAX), min(MAX, c - MIN)
        return max(MIN, MIN + c), min(MAX, MAX + c)
    if c == 0:
        return MIN, MAX
    if c > 0:
        return -((-MIN) // c), MAX // c          # ceil(MIN / c), floor(MAX / c)
    return max(MIN, -((-MAX) // c)), min(MAX, MIN // c)   # ceil(MAX / c), floor(MIN / c)


SMALL_STEP = 1 << 20


def _small_step(uf, a, b) -> bool:
    """``x + c`` / ``x - c`` / ``c + x`` with a constant ``|c| <= 2**20``: in a loop, a
    counter's step."""
    if uf is np.multiply:
        return False
    c = b if isinstance(b, Const) else a if (isinstance(a, Const) and uf is np.add) else None
    return c is not None and abs(c.value) <= SMALL_STEP


class PythonIntMixin:
    def python_int_arith(self, uf, a, b):
        """``uf(a, b)``, checked for overflow where both are Python ints, one at run time (and
        a float power of Python numbers for CPython's errors: python_float_power.py)."""
        if uf is np.power and float_power.is_float_power(a, b):
            return float_power.checked_power(self, a, b)
        both = python_int(a) and python_int(b) and not (
            isinstance(a, Const) and isinstance(b, Const))
        if both and uf in powers.NONNEGATIVE:
            powers.check_nonnegative(self, uf, b)
        r = self.ufunc(uf, a, b)
        if not both or self.shared.get("in_subscript"):
            return r
        if uf in CHECKED and not (self.in_loop and _small_step(uf, a, b)):
            self.check(self._fits(uf, a, b, r), "OverflowError", MESSAGE)
        elif uf in powers.FITS:
            fits = powers.FITS[uf](self, a, b, r)
            if not (isinstance(fits, Const) and fits.value is True):
                self.check(fits, "OverflowError", MESSAGE)
        return r

    def python_int_unary(self, uf, x):
        """``-x`` and ``abs(x)``: checked where ``x`` is a run-time Python int (only
        ``-2**63`` has no 64-bit negation)."""
        r = self.ufunc(uf, x)
        if python_int(x) and not isinstance(x, Const) and not self.shared.get("in_subscript"):
            self.check(self.ufunc(np.greater, x, Const(MIN)), "OverflowError", MESSAGE)
        return r

    def _fits(self, uf, a, b, r):
        u = self.ufunc
        if isinstance(a, Const) or isinstance(b, Const):
            c, x = (a, b) if isinstance(a, Const) else (b, a)
            lo, hi = _range_of_other(uf, c.value, isinstance(a, Const))
            if lo == MIN and hi == MAX:
                return Const(True)
            return u(np.logical_and, u(np.greater_equal, x, Const(lo)),
                     u(np.less_equal, x, Const(hi)))
        zero = Const(0)
        if uf is np.add:
            return u(np.greater_equal, u(np.bitwise_and, u(np.bitwise_xor, a, r),
                                         u(np.bitwise_xor, b, r)), zero)
        if uf is np.subtract:
            return u(np.greater_equal, u(np.bitwise_and, u(np.bitwise_xor, a, b),
                                         u(np.bitwise_xor, a, r)), zero)
        # a * b: a in (0, -1) decided apart; otherwise r // a gives b back exactly
        small = u(np.logical_or, u(np.equal, a, zero), u(np.equal, a, Const(-1)))
        safe_a = self.select(small, Const(1), a)
        divides_back = u(np.equal, u(np.floor_divide, r, safe_a), b)
        minus_one_ok = u(np.logical_or, u(np.not_equal, a, Const(-1)),
                         u(np.not_equal, b, Const(MIN)))
        return self.select(small, minus_one_ok, divides_back)
