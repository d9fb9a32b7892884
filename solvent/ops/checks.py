"""Run-time checks: errors NumPy raises travel as values, never as silently wrong numbers.

``error.check %ok, [%payload] {kind, message}`` states that ``ok`` (an i1 scalar) must hold;
when it does not, the call raises ``kind(message)`` naming the op's source line. ``message``
may hold one ``{}``, filled with the i64 ``payload`` (the offending index, say), as NumPy's
own messages are.

The frontend emits checks; ``passes/checks_to_values.py`` turns them into an error code and a
payload threaded through loops and ifs and returned by the function, which the runtime
inspects before writing anything back. Backends never see ``error.check``: only the
interpreter runs it, on IR before that pass, by raising at once (the same error, with the
same line).
"""
from __future__ import annotations

import numpy as np

from ..errors import ClampedWindowError, DivergentBarrierError
from ..ir.registry import IRError, OpDef, expect, register
from ..ir.types import TensorType

# kind name -> exception class; the names are what the IR text holds
KINDS = {
    "IndexError": IndexError,
    "ClampedWindowError": ClampedWindowError,   # x[i:i + w] past the end: see runtime/jit.py
    "ValueError": ValueError,
    "ZeroDivisionError": ZeroDivisionError,
    "OverflowError": OverflowError,
    "LinAlgError": np.linalg.LinAlgError,
    "AxisError": np.exceptions.AxisError,   # an axis out of range (a ValueError, IndexError)
    "AssertionError": AssertionError,
    "UnboundLocalError": UnboundLocalError,  # a loop's name read after an empty range
    "DivergentBarrierError": DivergentBarrierError,  # solvent/simt: a barrier not all reach
    # what a ``raise`` statement in the user's code may raise (frontend stmt_Raise)
    "RuntimeError": RuntimeError,
    "TypeError": TypeError,
    # what NumPy raises for a ufunc without a loop for the dtypes or an in-place result it
    # may not cast (its subclasses are private); a TypeError
    "UFuncTypeError": np._core._exceptions.UFuncTypeError,
    "ArithmeticError": ArithmeticError,
    "FloatingPointError": FloatingPointError,
    "NotImplementedError": NotImplementedError,
    "KeyError": KeyError,
    "LookupError": LookupError,
    "Exception": Exception,
}


def _check_infer(types, attrs):
    expect(len(types) in (1, 2), "error.check takes (ok) or (ok, payload)")
    expect(types[0] == TensorType((), "i1"), f"error.check condition must be an i1 scalar, "
                                              f"got {types[0]}")
    if len(types) == 2:
        expect(types[1] == TensorType((), "i64"), "error.check payload must be an i64 scalar")
    expect(attrs.get("kind") in KINDS, f"error.check kind must be one of {sorted(KINDS)}")
    expect(isinstance(attrs.get("message"), str), "error.check needs a message")
    return []


def error_text(message: str, payload, loc) -> str:
    text = message.replace("{}", str(payload)) if payload is not None else message
    return f"{loc}: {text}" if loc else text


def _check_interp(op, args, ctx):
    if not bool(args[0]):
        payload = int(args[1]) if len(args) > 1 else None
        raise KINDS[op.attrs["kind"]](error_text(op.attrs["message"], payload, op.loc))
    return []


def _check_xla(op, args, ctx):
    raise IRError("error.check reached a backend: passes/checks_to_values.py must run first")


register(OpDef(
    name="error.check",
    doc="raise kind(message) at the op's source line unless ok holds",
    infer=_check_infer, level="tensor", pure=False,
), interp=_check_interp, xla=_check_xla)
