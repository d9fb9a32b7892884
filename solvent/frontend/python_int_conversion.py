"""Python's errors where a value becomes an integer through a Python int: ``int(x)`` and
``math.floor(x)`` of a float, and NumPy's scalar store ``a[i] = x`` of a float (or of a
``np.uint64``) into a signed integer array, or of a Python float into an unsigned one, which
NumPy performs as ``int(x)`` and then a range check. Silently, C's conversion gives int64's
minimum for NaN and wraps large values.

- NaN: ``ValueError('cannot convert float NaN to integer')``;
- an infinity: ``OverflowError('cannot convert float infinity to integer')``;
- a finite value beyond int64: OverflowError (``beyond``: the caller's message; a Python int
  would hold it, solvent's integers cannot, and NumPy's store says it does not fit a C long);
- a store: ``OverflowError('Python integer 300 out of bounds for int8')``.

Each check holds where the value fits (``fits`` is false for NaN and the infinities): the
same conditions, written so that the one test a backend needs on the common path is ``not
fits``. The native backend branches on the disjunction of the failed conditions
(error_exit.failed_condition), ``(not fits and isnan) or ... or not fits``, which LLVM
reduces to ``not fits``; NaN and infinity are told apart only where it failed.
passes/speculate_checks.py recognizes the ``fits`` test by its shape."""
from __future__ import annotations

import numpy as np

from ..ir.types import np_dtype
from ..ops.elementwise import INT64_END
from .values import Const, Tensor

INT_BEYOND_2_63 = "int() of a float beyond 2**63: solvent's integers are 64-bit"
STORE_BEYOND_2_63 = "Python int too large to convert to C long"


def check_fits_int64(fe, t: Tensor, beyond: str = INT_BEYOND_2_63) -> None:
    """Checks that ``t`` (a float, already truncated) converts to an int64."""
    fits = fe.ufunc(np.logical_and, fe.ufunc(np.greater_equal, t, Const(-INT64_END)),
                    fe.ufunc(np.less, t, Const(INT64_END)))
    fe.check(fe.ufunc(np.logical_or, fits, fe.ufunc(np.logical_not, fe.ufunc(np.isnan, t))),
             "ValueError", "cannot convert float NaN to integer")
    fe.check(fe.ufunc(np.logical_or, fits, fe.ufunc(np.logical_not, fe.ufunc(np.isinf, t))),
             "OverflowError", "cannot convert float infinity to integer")
    fe.check(fits, "OverflowError", beyond)


def stores_through_python_int(v: Tensor, dtype: str) -> bool:
    """Whether NumPy stores the scalar ``v`` into a ``dtype`` array as ``int(v)`` and a
    range check: a float into a signed integer array; a Python float into an unsigned one
    (a NumPy float scalar into an unsigned array is cast, wrapping)."""
    return v.type.rank == 0 and v.dtype[0] == "f" and dtype[0] in "iu" and dtype != "i1" \
        and (dtype[0] == "i" or v.weak)


def checked_float_store(fe, v: Tensor, dtype: str) -> Tensor:
    """``v`` (a float scalar) as NumPy stores it into a ``dtype`` array: truncated, with
    Python's errors where it is not finite or does not fit."""
    t = fe.ufunc(np.trunc, v)
    check_fits_int64(fe, t, STORE_BEYOND_2_63)
    n = Tensor(fe.b.one("tensor.convert", t.v, dtype="i64", fits_checked=True),
               weak=True, deps=t.deps)
    if dtype != "i64":
        fe.check_fits(n, dtype)
    return fe.convert(n, dtype)


def checked_u64_store(fe, v: Tensor, dtype: str) -> Tensor:
    """``v`` (a ``np.uint64`` scalar) as NumPy stores it into a signed ``dtype`` array:
    OverflowError where it does not fit."""
    fe.check(fe.ufunc(np.less_equal, v, Const(np.iinfo(np.int64).max)), "OverflowError",
             STORE_BEYOND_2_63)
    n = fe.convert(v, "i64")
    if dtype != "i64":
        fe.check_fits(n, dtype)
    return fe.convert(n, dtype)
