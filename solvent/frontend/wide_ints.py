"""Python int constants beyond int64 (``2**64 - 1``, ``2**63``, ``-2**70``) meeting run-time
values. A Python int is otherwise compiled as a weak int64 scalar; NumPy 2 (NEP 50) types
one beyond int64 by the other operand instead, and so does ``wide_operands``:

- with a uint64 operand, a value in ``[0, 2**64)`` is a uint64: ``u == 2**64 - 1``,
  ``u + (2**64 - 1)`` (wrapping, as NumPy's uint64 arithmetic), ``u > 2**63``;
- with a float or complex operand it is the float ``float(v)``, weak (``x32 * 2**70`` is
  float32); beyond float64 NumPy's OverflowError;
- compared with an integer operand whose dtype cannot hold it, the answer is known:
  every value is below a positive one and above a negative one (``a < 2**64`` is all
  True, ``a == 2**63`` all False, as NumPy 2 answers);
- in arithmetic with any other integer (int64, a narrower type, a run-time Python int)
  NumPy raises OverflowError (Python's own int would grow): so does solvent, at compile
  time where the line certainly runs, else by a run-time check that fails where reached.

Elsewhere (a store ``u[0] = 2**64 - 1``, ``np.full(n, 2**64 - 1, np.uint64)``) a value in
``[2**63, 2**64)`` is a weak uint64 constant (``Emitter.constant``), which a store or a
conversion checks as it checks every Python int (``check_fits``); one beyond that range is
refused with a clear message. The frontend emits no ``tensor.constant`` holding a value
its dtype cannot (the verifier does not check that yet).
"""
from __future__ import annotations

import numpy as np

from ..ir.types import is_static, np_dtype
from .values import Const, Tensor

MIN, MAX, U64_END = -(1 << 63), (1 << 63) - 1, 1 << 64
_COMPARISONS = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)


def is_wide(a) -> bool:
    """A Python int Const (not bool) outside int64."""
    return isinstance(a, Const) and type(a.value) is int and not MIN <= a.value <= MAX


def is_wide_tensor(v: Tensor) -> bool:
    """A wide Python int made a tensor (``wide_constant``): a weak uint64 scalar."""
    return v.weak and v.dtype == "u64" and v.type.rank == 0


def wide_operands(em, uf, args):
    """``args`` with each wide Python int replaced by what NumPy makes of it next to the
    other operands, or a Tensor: the answer of a comparison known at compile time. Called
    with at least one operand known only at run time."""
    wide = [k for k, a in enumerate(args) if is_wide(a)]
    if not wide:
        return args
    out = [a if k in wide else em.tensor(a) for k, a in enumerate(args)]  # read once
    others = [t for k, t in enumerate(out) if k not in wide]
    dtypes = {t.dtype for t in others}
    for k in wide:
        v = args[k].value
        if any(d[0] in "fc" for d in dtypes):
            try:
                out[k] = Const(float(v))
            except OverflowError:
                raise OverflowError(f"{em.b.loc}: int too large to convert to float") from None
        elif dtypes == {"u64"} and 0 <= v < U64_END:
            out[k] = Tensor(em.b.constant(v, "u64"), weak=False)
        elif uf in _COMPARISONS and len(args) == 2 and all(d[0] in "iu" and d != "i1"
                                                           for d in dtypes):
            # the other operand's dtype holds no value as large: one of sign(v) decides
            stand_in = [(1 if v > 0 else -1) if j == k else 0 for j in range(2)]
            answer = bool(uf(*stand_in))
            shape = others[0].shape
            if not is_static(shape):
                raise em.unsupported(f"comparing an array of run-time shape with the Python "
                                     f"int {v}, beyond 64 bits")
            weak = all(t.weak for t in others) and not shape
            return Tensor(em.filled(answer, "i1", shape), weak=weak)
        else:
            d = next(iter(dtypes)) if len(dtypes) == 1 else "i64"
            msg = f"Python integer {v} out of bounds for {np_dtype(d)}"
            if em.raise_now():
                raise OverflowError(f"{em.b.loc}: {msg}")
            em.check(Const(False), "OverflowError", msg)
            out[k] = Const(0)
    return out


def wide_constant(em, value: int) -> Tensor:
    """The tensor of a wide Python int used on its own (stored, converted, returned): a
    weak uint64 in ``[2**63, 2**64)``, refused beyond."""
    if MAX < value < U64_END:
        return Tensor(em.b.constant(value, "u64"), weak=True)
    raise em.unsupported(f"the Python int {value} does not fit in 64 bits (solvent computes "
                         "Python ints as int64, or uint64 next to uint64 values)",
                         "use a float (2.0 ** 70) or keep the value in the int64 range")
