"""VJP rules of the elementwise ops (``solvent.ops.elementwise``), one table.

A rule is ``rule(b, op, xs, ys, cts) -> cotangents of the operands`` (``None``: zero): ``xs``
are the operands and ``ys`` the results in the emitted program, ``cts`` the results'
cotangents; it emits IR through the builder ``b``. Identity each row relies on: the
derivative of the ufunc (``d/dx exp x = exp x`` ...); operands broadcast, so each cotangent
is summed back to its operand's shape (``emit.unbroadcast``). Rounding ops (floor, ceil,
trunc, rint, sign) are piecewise constant: zero cotangent. Complex operands (the convention of
``rules_complex``): ``mul`` and ``div`` take the conjugate of the other factor; ``abs(z)``
gives ``ct z / |z|``; ``convert`` between real and complex keeps the real part. A cotangent
times a local derivative is zero where the cotangent is zero, whatever the derivative
(``nothing_from_zero``: a branch not taken after if-conversion contributes nothing).
"""
from __future__ import annotations

import cmath
import math

from ..ir.registry import register_vjp
from ..ir.rewrite import constant_value, defining
from . import emit as E
from .rules_complex import conj_if_complex as _cj


def _u(name):
    return lambda b, *xs: b.one(f"tensor.{name}", *xs)


mul, div, add, sub, neg = _u("mul"), _u("div"), _u("add"), _u("sub"), _u("neg")


def _c(b, x, v):
    return b.constant(v, x.type.dtype)


def nothing_from_zero(b, ct, v):
    """``v`` (a product of the cotangent ``ct`` and a local derivative), but zero where
    ``ct`` is zero. Identity: the adjoint of a value the loss does not depend on is zero,
    whatever the local derivative there; ``0 * inf`` and ``0 * nan`` would make it NaN. A
    branch not taken gets a zero cotangent once ``if`` became ``select`` (``sqrt(y)`` on the
    ``y > 0`` path at y = -1: sqrt'(-1) is NaN), as does a pair a triangular loop skips once
    raised with a mask (``1 / (p[i] - p[j])`` at i == j: inf); the unoptimized program never
    differentiated them, and the optimized program's gradient must equal its gradient.
    ``ct`` times a finite constant (``0.5 * (u - v)``'s rule) needs no guard."""
    if _times_finite_constant(v, ct):
        return v
    zero = b.constant(0, v.type.dtype)
    return b.one("tensor.select", b.one("tensor.eq", ct, b.constant(0, ct.type.dtype)), zero, v)


def _times_finite_constant(v, ct) -> bool:
    """``v`` is ``ct * c``, ``c * ct`` or ``ct / c`` (c a finite constant, nonzero to divide),
    possibly negated."""
    op = defining(v)
    if op is not None and op.name == "tensor.neg":
        op = defining(op.operands[0])
    if op is None or op.name not in ("tensor.mul", "tensor.div"):
        return False
    x, y = op.operands
    if op.name == "tensor.mul" and y is ct:
        x, y = y, x
    c = constant_value(y)
    if x is not ct or c is None:
        return False
    return cmath.isfinite(c) and (op.name == "tensor.mul" or c != 0)


def _unary(dydx):
    """Rule from ``dydx(b, x, y) -> dy/dx`` (emitted)."""
    def rule(b, op, xs, ys, cts):
        (x,), (y,), (ct,) = xs, ys, cts
        return [nothing_from_zero(b, ct, mul(b, ct, dydx(b, x, y)))]
    return rule


UNARY_DERIVATIVES = {
    "neg": None,  # special: -ct
    "exp": lambda b, x, y: y,
    "exp2": lambda b, x, y: mul(b, y, _c(b, x, math.log(2.0))),
    "expm1": lambda b, x, y: add(b, y, _c(b, x, 1.0)),
    "log": lambda b, x, y: div(b, _c(b, x, 1.0), x),
    "log2": lambda b, x, y: div(b, _c(b, x, 1.0 / math.log(2.0)), x),
    "log10": lambda b, x, y: div(b, _c(b, x, 1.0 / math.log(10.0)), x),
    "log1p": lambda b, x, y: div(b, _c(b, x, 1.0), add(b, x, _c(b, x, 1.0))),
    "sin": lambda b, x, y: b.one("tensor.cos", x),
    "cos": lambda b, x, y: neg(b, b.one("tensor.sin", x)),
    "tan": lambda b, x, y: add(b, _c(b, x, 1.0), mul(b, y, y)),
    "arcsin": lambda b, x, y: div(b, _c(b, x, 1.0),
                                  b.one("tensor.sqrt", sub(b, _c(b, x, 1.0), mul(b, x, x)))),
    "arccos": lambda b, x, y: div(b, _c(b, x, -1.0),
                                  b.one("tensor.sqrt", sub(b, _c(b, x, 1.0), mul(b, x, x)))),
    "arctan": lambda b, x, y: div(b, _c(b, x, 1.0), add(b, _c(b, x, 1.0), mul(b, x, x))),
    "sinh": lambda b, x, y: b.one("tensor.cosh", x),
    "cosh": lambda b, x, y: b.one("tensor.sinh", x),
    "tanh": lambda b, x, y: sub(b, _c(b, x, 1.0), mul(b, y, y)),
    "arcsinh": lambda b, x, y: div(b, _c(b, x, 1.0),
                                   b.one("tensor.sqrt", add(b, mul(b, x, x), _c(b, x, 1.0)))),
    "arccosh": lambda b, x, y: div(b, _c(b, x, 1.0),
                                   b.one("tensor.sqrt", sub(b, mul(b, x, x), _c(b, x, 1.0)))),
    "arctanh": lambda b, x, y: div(b, _c(b, x, 1.0), sub(b, _c(b, x, 1.0), mul(b, x, x))),
    "sqrt": lambda b, x, y: div(b, _c(b, x, 0.5), y),
    "cbrt": lambda b, x, y: div(b, _c(b, x, 1.0), mul(b, _c(b, x, 3.0), mul(b, y, y))),
    "square": lambda b, x, y: mul(b, _c(b, x, 2.0), x),
    "reciprocal": lambda b, x, y: neg(b, mul(b, y, y)),
    "erf": lambda b, x, y: mul(b, _c(b, x, 2.0 / math.sqrt(math.pi)),
                               b.one("tensor.exp", neg(b, mul(b, x, x)))),
    "erfc": lambda b, x, y: mul(b, _c(b, x, -2.0 / math.sqrt(math.pi)),
                                b.one("tensor.exp", neg(b, mul(b, x, x)))),
}
PIECEWISE_CONSTANT = ("floor", "ceil", "trunc", "rint", "sign")

for _name, _d in UNARY_DERIVATIVES.items():
    if _d is not None:
        register_vjp(f"tensor.{_name}", _unary(_d))
register_vjp("tensor.neg", lambda b, op, xs, ys, cts: [neg(b, cts[0])])
for _name in PIECEWISE_CONSTANT:
    register_vjp(f"tensor.{_name}", lambda b, op, xs, ys, cts: [None])


def _binary(da, db, linear=False):
    """Rule from the partial derivatives ``da(b, x, y, out, ct)`` (already times ct);
    ``linear``: they are ``ct`` or ``-ct`` (add, sub), else each is ``nothing_from_zero``."""
    def rule(b, op, xs, ys, cts):
        (x, y), (out,), (ct,) = xs, ys, cts
        full = [da(b, x, y, out, ct), db(b, x, y, out, ct)]
        if not linear:
            full = [nothing_from_zero(b, ct, v) for v in full]
        return [E.unbroadcast(b, v, s.type.shape) for v, s in zip(full, (x, y))]
    return rule


def _pow_dy(b, x, y, out, ct):
    # d/dy x**y = x**y log x; where x == 0 the limit is 0 (for y > 0)
    zero = b.constant(0, x.type.dtype)
    safe = b.one("tensor.select", b.one("tensor.eq", x, zero), _c(b, x, 1.0), x)
    return mul(b, ct, mul(b, out, b.one("tensor.log", safe)))


def _scalar_constant(v):
    """The value of a scalar compile-time constant (``A ** 2``'s exponent, a converted
    integer constant), or None."""
    o = v.owner
    if getattr(o, "name", None) == "tensor.convert" and not v.type.shape:
        o = getattr(o.operands[0], "owner", None)
    if getattr(o, "name", None) == "tensor.constant" and not v.type.shape:
        return o.attrs["value"]
    return None


def _pow_dx(b, x, y, out, ct):
    # y * x ** (y - 1); with y == 1 or 2 at compile time the power is x ** 0 == 1 or
    # x ** 1 == x exactly, so no pow is emitted (row_col_norms' (A ** 2).sum: a pow per
    # element of A in the gradient, which the primal's A ** 2 does not need either)
    c = _scalar_constant(y)
    if c == 1:
        return mul(b, ct, y)
    if c == 2:
        return mul(b, ct, mul(b, y, x))
    return mul(b, ct, mul(b, y, b.one("tensor.pow", x, sub(b, y, _c(b, y, 1.0)))))


BINARY_PARTIALS = {
    "add": (lambda b, x, y, o, ct: ct, lambda b, x, y, o, ct: ct),
    "sub": (lambda b, x, y, o, ct: ct, lambda b, x, y, o, ct: neg(b, ct)),
    "mul": (lambda b, x, y, o, ct: mul(b, ct, _cj(b, y)),
            lambda b, x, y, o, ct: mul(b, ct, _cj(b, x))),
    "div": (lambda b, x, y, o, ct: div(b, ct, _cj(b, y)),
            lambda b, x, y, o, ct: neg(b, mul(b, ct, _cj(b, div(b, o, y))))),
    "pow": (_pow_dx, _pow_dy),
    "atan2": (lambda b, x, y, o, ct: div(b, mul(b, ct, y), add(b, mul(b, x, x), mul(b, y, y))),
              lambda b, x, y, o, ct: neg(b, div(b, mul(b, ct, x),
                                                add(b, mul(b, x, x), mul(b, y, y))))),
    "hypot": (lambda b, x, y, o, ct: div(b, mul(b, ct, x), o),
              lambda b, x, y, o, ct: div(b, mul(b, ct, y), o)),
}
for _name, (_da, _db) in BINARY_PARTIALS.items():
    register_vjp(f"tensor.{_name}", _binary(_da, _db, linear=_name in ("add", "sub")))


def _minmax(cmp):
    """max/min: the cotangent goes to the operand that was chosen (the first on ties, as
    NumPy's maximum returns it)."""
    def rule(b, op, xs, ys, cts):
        (x, y), (out,), (ct,) = xs, ys, cts
        pick_x = b.one(f"tensor.{cmp}", x, y)
        full = ct.type
        if pick_x.type.shape != full.shape:
            pick_x = b.one("tensor.broadcast_to", pick_x, shape=list(full.shape))
        cx = E.where(b, pick_x, ct, None, full)
        cy = E.where(b, pick_x, None, ct, full)
        return [E.unbroadcast(b, cx, x.type.shape), E.unbroadcast(b, cy, y.type.shape)]
    return rule


register_vjp("tensor.max", _minmax("ge"))
register_vjp("tensor.min", _minmax("le"))


def _select(b, op, xs, ys, cts):
    (c, x, y), (ct,) = xs, cts
    mask = c if c.type.shape == ct.type.shape else \
        b.one("tensor.broadcast_to", c, shape=list(ct.type.shape))
    return [None, E.unbroadcast(b, E.where(b, mask, ct, None, ct.type), x.type.shape),
            E.unbroadcast(b, E.where(b, mask, None, ct, ct.type), y.type.shape)]


register_vjp("tensor.select", _select)


def _abs(b, op, xs, ys, cts):
    (x,), (ct,) = xs, cts
    if x.type.dtype[0] != "c":
        return [nothing_from_zero(b, ct, mul(b, ct, b.one("tensor.sign", x)))]
    return [nothing_from_zero(b, ct, mul(b, b.one("tensor.convert", ct, dtype=x.type.dtype),
                                         b.one("tensor.sign", x)))]


register_vjp("tensor.abs", _abs)


def _convert(b, op, xs, ys, cts):
    (x,), (ct,) = xs, cts
    if x.type.dtype[0] not in "fc":
        return [None]  # from an integer or boolean: inactive
    return [b.one("tensor.convert", ct, dtype=x.type.dtype) if ct.type.dtype != x.type.dtype
            else ct]


register_vjp("tensor.convert", _convert)


register_vjp("tensor.fmax", _minmax("ge"))  # float fmax/fmin: as max/min away from NaN
register_vjp("tensor.fmin", _minmax("le"))


def _floor(b, x, y):
    return b.one("tensor.floor", div(b, x, y))


MORE_PARTIALS = {
    # floordiv is piecewise constant; mod(x, y) = x - floor(x / y) * y
    "floordiv": (lambda b, x, y, o, ct: None, lambda b, x, y, o, ct: None),
    "mod": (lambda b, x, y, o, ct: ct,
            lambda b, x, y, o, ct: neg(b, mul(b, ct, _floor(b, x, y)))),
    # fmod(x, y) = x - trunc(x / y) * y (C's remainder)
    "fmod": (lambda b, x, y, o, ct: ct,
             lambda b, x, y, o, ct: neg(b, mul(b, ct, b.one("tensor.trunc", div(b, x, y))))),
    # copysign(x, y) = |x| * sign(y): d/dx = copysign(1, x) * copysign(1, y)
    "copysign": (lambda b, x, y, o, ct: mul(b, ct, mul(
        b, b.one("tensor.copysign", _c(b, x, 1.0), x), b.one("tensor.copysign", _c(b, x, 1.0), y))),
        lambda b, x, y, o, ct: None),
}


def _binary_opt(da, db):
    def rule(b, op, xs, ys, cts):
        (x, y), (out,), (ct,) = xs, ys, cts
        full = [da(b, x, y, out, ct), db(b, x, y, out, ct)]
        return [E.unbroadcast(b, v if v is ct else nothing_from_zero(b, ct, v), s.type.shape)
                if v is not None else None for v, s in zip(full, (x, y))]
    return rule


for _name, (_da, _db) in MORE_PARTIALS.items():
    register_vjp(f"tensor.{_name}", _binary_opt(_da, _db))
