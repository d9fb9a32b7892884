"""Overflow checks of ``a ** b``, ``a << b`` and ``a // b`` on Python ints computed as int64
(python_ints.py holds ``+ - *`` and the design): each ``FITS`` rule returns a boolean that
holds iff the true (unbounded) result lies in the 64-bit range; ``r`` is the wrapped result.

Identities (``MIN, MAX = -2**63, 2**63 - 1``, ``T = 2**63``):

- ``a // b`` overflows only for ``MIN // -1`` (``T``); ``b == 0`` is a ZeroDivisionError.
- ``a << b`` (``0 <= b``) fits iff ``b < 64`` and ``(r >> b) == a`` (arithmetic shift: the
  bits shifted out were copies of the sign), or ``a == 0``. With ``b`` a constant ``c`` it
  is the range ``MIN >> c <= a <= MAX >> c``; with ``a`` a constant, ``b`` at most the
  largest shift that keeps ``a * 2**b`` in range.
- ``a ** b`` (``0 <= b``) with ``b`` a constant ``c``: ``a`` within ``[-R, R]`` with ``R``
  the integer ``c``-th root of ``MAX``, the low end ``-floor(T ** (1/c))`` for odd ``c``
  (``(-2)**63 == MIN`` fits); with ``a`` a constant: ``b`` at most the largest exponent.
  Both at run time: ``b <= 1`` always fits; otherwise ``p = |float(a)| ** float(b)``
  decides, with a margin: no integer power ``x**e`` (``e >= 2``) other than ``T`` itself
  lies within a relative ``2**-35`` of ``T`` (the nearest, ``3037000500**2``, is
  ``1.6e-11`` away), and a float ``pow`` is within a few ulp (``2**-50``), so
  ``p < T (1 - 2**-40)`` fits, ``p > T (1 + 2**-40)`` overflows, and between the two the
  true value is ``±T``: it fits iff it is ``-T`` (``a < 0`` and ``b`` odd).

``a ** b`` and ``a << b`` with ``b < 0`` raise ValueError first (``check_nonnegative``):
Python's ``2 ** -2`` is a float, its ``1 << -1`` a ValueError.
"""
from __future__ import annotations

import numpy as np

from .values import Const

MIN, MAX, T = -(1 << 63), (1 << 63) - 1, 1 << 63
NEGATIVE_POWER = ("negative exponent: Python's int ** int gives a float for a negative "
                  "exponent, but solvent types int ** int as int (the result type cannot "
                  "depend on a run-time value); write float(n) ** k for a float power")
NEGATIVE_SHIFT = "negative shift count"
NONNEGATIVE = (np.power, np.left_shift)
_MARGIN = 2.0 ** -40


def check_nonnegative(em, uf, b) -> None:
    """ValueError unless the exponent or shift count ``b`` is >= 0 (a literal negative
    exponent is a float power, not an error)."""
    if isinstance(b, Const):
        if uf is np.left_shift and b.value < 0:
            em.check(Const(False), "ValueError", NEGATIVE_SHIFT)
        return
    msg = NEGATIVE_POWER if uf is np.power else NEGATIVE_SHIFT
    em.check(em.ufunc(np.greater_equal, b, Const(0)), "ValueError", msg)


def _in_range(em, x, lo: int, hi: int):
    if lo <= MIN and hi >= MAX:
        return Const(True)
    u = em.ufunc
    return u(np.logical_and, u(np.greater_equal, x, Const(max(lo, MIN))),
             u(np.less_equal, x, Const(min(hi, MAX))))


def _root(n: int, c: int) -> int:
    """The largest x >= 0 with x**c <= n (c >= 2, 0 <= n <= 2**63)."""
    lo, hi = 0, 1 << 32
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid ** c <= n:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _largest(step, c: int, limit: int) -> int:
    """The largest e >= 0 with |step(c, e)| <= limit (|c| >= 2)."""
    e = 0
    while abs(step(c, e + 1)) <= limit:
        e += 1
    return e


def _power_fits(em, a, b, r):
    u = em.ufunc
    if isinstance(b, Const):
        c = b.value
        if c <= 1:
            return Const(True)
        if c >= 64:
            return _in_range(em, a, -1, 1)
        hi = _root(MAX, c)
        return _in_range(em, a, -_root(T, c) if c % 2 else -hi, hi)
    if isinstance(a, Const):
        c = a.value
        if c in (-1, 0, 1):
            return Const(True)
        e_pos = _largest(pow, c, MAX)
        ok = u(np.less_equal, b, Const(e_pos))
        e_neg = _largest(pow, c, T)
        if c < 0 and e_neg > e_pos and e_neg % 2:
            ok = u(np.logical_or, ok, u(np.equal, b, Const(e_neg)))
        return ok
    fa = u(np.abs, em.convert(em.tensor(a), "f64"))
    p = u(np.power, fa, em.convert(em.tensor(b), "f64"))
    edge = u(np.logical_and, u(np.less_equal, p, Const(T * (1 + _MARGIN))),
             u(np.logical_and, u(np.less, a, Const(0)),
               u(np.equal, u(np.bitwise_and, b, Const(1)), Const(1))))
    return u(np.logical_or, u(np.less_equal, b, Const(1)),
             u(np.logical_or, u(np.less, p, Const(T * (1 - _MARGIN))), edge))


def _shift_fits(em, a, b, r):
    u = em.ufunc
    if isinstance(b, Const):
        c = b.value
        if c < 0:
            return Const(True)      # a ValueError already
        if c >= 64:
            return _in_range(em, a, 0, 0)
        return _in_range(em, a, MIN >> c, MAX >> c)
    if isinstance(a, Const):
        c = a.value
        if c == 0:
            return Const(True)
        return u(np.less_equal, b, Const(_largest(lambda x, e: x << e, c,
                                                   T if c < 0 else MAX)))
    short = u(np.less, b, Const(64))
    back = u(np.equal, u(np.right_shift, r, em.select(short, b, Const(0))), a)
    return em.select(short, back, u(np.equal, a, Const(0)))


def _floordiv_fits(em, a, b, r):
    u = em.ufunc
    if isinstance(b, Const):
        return u(np.greater, a, Const(MIN)) if b.value == -1 else Const(True)
    if isinstance(a, Const):
        return u(np.not_equal, b, Const(-1)) if a.value == MIN else Const(True)
    return u(np.logical_or, u(np.greater, a, Const(MIN)), u(np.not_equal, b, Const(-1)))


FITS = {np.power: _power_fits, np.left_shift: _shift_fits, np.floor_divide: _floordiv_fits}
