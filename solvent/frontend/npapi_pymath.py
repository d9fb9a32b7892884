"""Python's ``math`` module on numbers: each argument converted to a C double, a Python float
back, and Python's errors where NumPy's ufunc would give a NaN or an infinity."""
from __future__ import annotations

import math

import numpy as np

from .expressions import MATH_UFUNC
from .npapi_creation import implements
from .npapi_math import _py_ctor
from .values import Const, Tensor

# CPython's rule (mathmodule.c, math_1): a NaN from arguments that are not NaN is a domain
# error; an infinity from finite arguments is a range error where the function can overflow,
# else a domain error (the pole of log at 0). Functions missing here never raise.
_DOMAIN = {math.sqrt, math.log, math.log10, math.log2, math.log1p, math.sin, math.cos, math.tan,
           math.asin, math.acos, math.acosh, math.atanh, math.fmod}
_INFINITE = {math.exp: "OverflowError", math.expm1: "OverflowError", math.sinh: "OverflowError",
             math.cosh: "OverflowError", math.log: "ValueError", math.log10: "ValueError",
             math.log2: "ValueError", math.log1p: "ValueError", math.exp2: "OverflowError",
             math.atanh: "ValueError"}
_MESSAGE = {"ValueError": "math domain error", "OverflowError": "math range error"}


def _as_double(fe, x):
    """A math.* argument as Python passes it: converted to a C double, so that math.sqrt of
    a float32 or an integer is computed in float64 (a complex one is left for the ufunc)."""
    if isinstance(x, Const):
        v = x.value
        return Const(float(v)) if isinstance(v, (int, float, np.integer, np.floating, np.bool_)) else x
    t = fe.tensor(x)
    return t if t.dtype.startswith("c") else fe.convert(t, "f64")


def _weak(fe, r):
    """math.* functions return Python floats (weak under NEP 50)."""
    if isinstance(r, Tensor) and r.type.rank == 0:
        return Tensor(fe.convert(r, "f64").v, weak=True, deps=r.deps)
    if isinstance(r, Const) and isinstance(r.value, np.generic):
        return Const(float(r.value))
    return r


def _fold(fe, combine, pred, xs, start):
    out = Const(start)
    for x in xs:
        out = fe.ufunc(combine, out, fe.ufunc(pred, x))
    return out


def _isinf(fe, x):
    return fe.ufunc(np.isinf, x)


def _below(c):
    return lambda fe, x: fe.ufunc(np.less, x, Const(c))


def _beyond_one(fe, x):
    return fe.ufunc(np.greater, fe.ufunc(np.absolute, x), Const(1.0))


def _equal(c):
    return lambda fe, x: fe.ufunc(np.equal, x, Const(c))


# The same rule decided from the argument alone (C99 Annex F: for x not NaN, sin(x) is NaN
# exactly when x is infinite, sqrt(x) and log(x) exactly when x < 0, asin(x) when |x| > 1,
# ...; log(x) is -inf exactly at x = 0): the check then does not wait for the result, so the
# result has one use and fuses into its consumer (arc_distance_loops' seven math calls)
_NAN_WHEN = {math.sin: _isinf, math.cos: _isinf, math.tan: _isinf, math.sqrt: _below(0.0),
             math.log: _below(0.0), math.log10: _below(0.0), math.log2: _below(0.0),
             math.log1p: _below(-1.0), math.asin: _beyond_one, math.acos: _beyond_one,
             math.acosh: _below(1.0), math.atanh: _beyond_one}
# exp(x) and expm1(x) of a finite double overflow exactly when x > log(DBL_MAX), the double
# 709.782712893384 (its exp is DBL_MAX rounded down; the next double's rounds to inf); an
# infinite x gives inf without an error
_EXP_MAX = math.log(float(np.finfo(np.float64).max))


def _overflows(fe, x):
    return fe.ufunc(np.logical_and, fe.ufunc(np.greater, x, Const(_EXP_MAX)),
                    fe.ufunc(np.less, x, Const(math.inf)))


_INF_WHEN = {math.log: _equal(0.0), math.log10: _equal(0.0), math.log2: _equal(0.0),
             math.log1p: _equal(-1.0),
             math.atanh: lambda fe, x: fe.ufunc(np.equal, fe.ufunc(np.absolute, x), Const(1.0)),
             math.exp: _overflows, math.expm1: _overflows}


def _check_errors(fe, mf, r, args):
    """Run-time checks of Python's ValueError/OverflowError for ``r = mf(*args)``."""
    if mf in _NAN_WHEN and len(args) == 1:
        fe.check(fe.ufunc(np.logical_not, _NAN_WHEN[mf](fe, args[0])), "ValueError",
                 _MESSAGE["ValueError"])
    elif mf in _DOMAIN:
        nan_made = fe.ufunc(np.logical_and, fe.ufunc(np.isnan, r),
                            fe.ufunc(np.logical_not, _fold(fe, np.logical_or, np.isnan, args, False)))
        fe.check(fe.ufunc(np.logical_not, nan_made), "ValueError", _MESSAGE["ValueError"])
    if mf in _INF_WHEN and len(args) == 1:
        fe.check(fe.ufunc(np.logical_not, _INF_WHEN[mf](fe, args[0])), _INFINITE[mf],
                 _MESSAGE[_INFINITE[mf]])
    elif mf in _INFINITE:
        kind = _INFINITE[mf]
        finite_in = _fold(fe, np.logical_and, np.isfinite, args, True)
        inf_made = fe.ufunc(np.logical_and, fe.ufunc(np.isinf, r), finite_in)
        fe.check(fe.ufunc(np.logical_not, inf_made), kind, _MESSAGE[kind])


def _math_function(mf, uf):
    def handler(fe, *a):
        args = [_as_double(fe, x) for x in a]
        if all(isinstance(x, Const) and isinstance(x.value, float) for x in args):
            try:
                return Const(mf(*(x.value for x in args)))
            except (ValueError, OverflowError) as e:  # Python raises it: so does solvent
                if not fe.raise_now():
                    fe.check(Const(False), type(e).__name__, str(e))  # only where it runs
                    return Const(0.0)
                raise type(e)(f"{fe.b.loc}: {e}") from None
        r = fe.ufunc(uf, *args)
        if isinstance(r, Tensor) and not r.dtype.startswith("c"):
            _check_errors(fe, mf, r, [fe.tensor(x) for x in args])
        return _weak(fe, r)
    return handler


for _mf, _uf in MATH_UFUNC.items():
    if _mf is not math.log:                # its own handler below takes a base too
        implements(_mf)(_math_function(_mf, _uf))

_log_e = _math_function(math.log, np.log)


@implements(math.log)
def _log(fe, x, base=None):
    """math.log(x) and math.log(x, base): CPython's log(x) / log(base), each with its domain
    error, and ZeroDivisionError('float division by zero') for base 1."""
    if base is None:
        return _log_e(fe, x)
    num, den = _log_e(fe, x), _log_e(fe, base)
    if not (isinstance(num, Const) and isinstance(den, Const)):   # (constants: Python's /)
        fe.check(fe.ufunc(np.not_equal, den, Const(0.0)), "ZeroDivisionError",
                 "float division by zero")
    return _weak(fe, fe.ufunc(np.true_divide, num, den))

def _rounded_int(np_fn, py_fn):
    """math.floor/ceil/trunc: an int (of a Python int, the int itself; of a float or a NumPy
    integer, which NumPy rounds through float64 as Python's math.floor(np.int64(k)) shows, the
    rounded float, with Python's errors for NaN and infinities)."""
    def handler(fe, x):
        if isinstance(x, Const):
            return Const(py_fn(x.value))
        t = fe.tensor(x)
        if t.dtype[0] in "iub" and t.weak:
            return _py_ctor("i64")(fe, x)
        if t.dtype[0] in "iub":
            x = fe.convert(t, "f64")
        return _py_ctor("i64")(fe, fe.ufunc(np_fn, x))
    return handler


implements(math.floor)(_rounded_int(np.floor, math.floor))
implements(math.ceil)(_rounded_int(np.ceil, math.ceil))
implements(math.trunc)(_rounded_int(np.trunc, math.trunc))


def _math_predicate(mf, uf):
    def handler(fe, x):
        """math.isnan/isinf/isfinite: a Python bool of the number as a C double."""
        x = _as_double(fe, x)
        if isinstance(x, Const):
            return Const(mf(x.value))
        return Tensor(fe.tensor(fe.ufunc(uf, x)).v, weak=True)
    return handler


for _mf, _uf in ((math.isnan, np.isnan), (math.isinf, np.isinf), (math.isfinite, np.isfinite)):
    implements(_mf)(_math_predicate(_mf, _uf))


def _scaled(mf, factor):
    def handler(fe, x):
        """math.degrees/radians: CPython multiplies the double by 180/pi (pi/180)."""
        x = _as_double(fe, x)
        if isinstance(x, Const):
            return Const(mf(x.value))
        return _weak(fe, fe.ufunc(np.multiply, x, Const(factor)))
    return handler


implements(math.degrees)(_scaled(math.degrees, 180.0 / math.pi))
implements(math.radians)(_scaled(math.radians, math.pi / 180.0))


# --- functions NumPy lacks: math.erf / math.erfc and scipy.special's ---------------------------
def _math_special(name, mf):
    """math.erf / math.erfc: a double in, a Python float out (never an error)."""
    def handler(fe, x):
        a = _as_double(fe, x)
        if isinstance(a, Const):
            return Const(mf(a.value))
        if a.dtype.startswith("c"):
            raise fe.unsupported(f"math.{name} of a complex number")
        return _weak(fe, Tensor(fe.b.one(f"tensor.{name}", a.v), deps=a.deps))
    return handler


def _scipy_special(name):
    """scipy.special.erf / erfc of arrays or numbers: float32 stays float32, integers and
    booleans compute in float64, a NumPy scalar for a number (SciPy's ufuncs)."""
    def handler(fe, x, out=None):
        if out is not None and not (isinstance(out, Const) and out.value is None):
            raise fe.unsupported(f"scipy.special.{name} with out=")
        t = fe.tensor(x)
        if t.dtype[0] == "c":
            raise fe.unsupported(f"scipy.special.{name} of complex values")
        if t.dtype not in ("f32", "f64"):
            t = fe.convert(t, "f64")
        return Tensor(fe.b.one(f"tensor.{name}", t.v), deps=t.deps)
    return handler


for _name in ("erf", "erfc"):
    implements(getattr(math, _name))(_math_special(_name, getattr(math, _name)))
try:
    import scipy.special as _sp
except ImportError:  # pragma: no cover - SciPy is optional
    _sp = None
if _sp is not None:
    for _name in ("erf", "erfc"):
        implements(getattr(_sp, _name))(_scipy_special(_name))
