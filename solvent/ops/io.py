"""``io.print``: Python's ``print`` inside a compiled function, in program order.

``io.print %v0, %v1, ... [, %code] {args, sep, end, guarded}`` writes one line to
``sys.stdout`` as ``print(*args, sep=sep, end=end)`` would. ``args`` holds one entry per
printed argument, a list of parts joined into its text: ``["s", text]`` (a literal, or a
value known at compile time), ``["v", k, conversion, format_spec, kind]`` (operand ``k``
formatted as an f-string field, ``format(value, spec)`` after ``!s``/``!r``/``!a``; a lone
plain field prints as ``print(value)`` does). ``kind`` says what Python object the value
was in the source: ``py`` for a Python scalar (``float``/``int``/``bool``/``complex``,
printed as Python prints it), ``np`` for a NumPy scalar or array (printed as NumPy prints
it: ``str(np.float32(0.1))`` is ``0.1``, ``repr`` gives ``np.float64(...)``).

The op has side effects: no pass removes, merges, hoists, speculates or reorders it, a loop
holding it is neither raised nor run in parallel. With ``guarded`` (set by
``passes/checks_to_values.py``) its last operand is the function's error code so far, and
it prints nothing once a check has failed: Python would have stopped at the failure.

Every backend formats through ``emit`` below (the interpreter directly, XLA through an
ordered host callback, native code through a C callback), so the text is Python's own.
"""
from __future__ import annotations

import sys

import numpy as np

from ..ir.registry import OpDef, expect, register
from ..ir.types import TensorType

_PY = {"f": float, "i": int, "u": int, "b": bool, "c": complex}


def _infer(types, attrs):
    n = len(types) - (1 if attrs.get("guarded") else 0)
    for arg in attrs["args"]:
        for part in arg:
            expect(part[0] in ("s", "v"), f"io.print part {part!r}")
            if part[0] == "v":
                expect(0 <= part[1] < n and part[4] in ("py", "np"), f"io.print part {part!r}")
    if attrs.get("guarded"):
        expect(types[-1] == TensorType((), "i32"), "io.print guard must be an i32 scalar")
    return []


def _object(value, kind: str):
    """The Python object the source printed: a NumPy array, NumPy scalar or Python scalar."""
    a = np.asarray(value)
    if a.ndim:
        return a
    s = a[()]
    return _PY[a.dtype.kind](s) if kind == "py" else s


def _field(value, conv: str, spec: str) -> str:
    if conv == "r":
        value = repr(value)
    elif conv == "s":
        value = str(value)
    elif conv == "a":
        value = ascii(value)
    return format(value, spec)


def emit(attrs: dict, values) -> None:
    """Print as the source's ``print`` call does (``values``: the op's operands)."""
    if attrs.get("guarded") and int(np.asarray(values[-1])) != 0:
        return
    out = []
    for arg in attrs["args"]:
        if len(arg) == 1 and arg[0][0] == "v" and not arg[0][2] and not arg[0][3]:
            out.append(_object(values[arg[0][1]], arg[0][4]))
            continue
        text = []
        for part in arg:
            if part[0] == "s":
                text.append(part[1])
            else:
                text.append(_field(_object(values[part[1]], part[4]), part[2], part[3]))
        out.append("".join(text))
    print(*out, sep=attrs["sep"], end=attrs["end"], file=sys.stdout, flush=True)


def _interp(op, args, ctx):
    emit(op.attrs, args)
    return []


def _xla(op, args, ctx):
    import jax
    attrs = op.attrs
    jax.debug.callback(lambda *vals: emit(attrs, vals), *args, ordered=True)
    return []


register(OpDef(
    name="io.print",
    doc="print(*args, sep=sep, end=end) of Python, in program order (a side effect)",
    infer=_infer, pure=False,
), interp=_interp, xla=_xla)
