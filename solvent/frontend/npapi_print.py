"""``print(...)`` inside a compiled function: one ``io.print`` op (ops/io.py) per call, its
values taken at that point of the program, its text formatted by Python at run time."""
from __future__ import annotations

import builtins

from .npapi_creation import implements
from .values import ArrayRef, Const, Formatted, Tensor, TupleVal


def _static_str(fe, v, what: str, default: str) -> str:
    if v is None or (isinstance(v, Const) and v.value is None):
        return default
    if isinstance(v, Const) and isinstance(v.value, str):
        return v.value
    raise fe.unsupported(f"print's {what}= must be a string known at compile time")


@implements(builtins.print)
def _print(fe, *args, sep=None, end=None, file=None, flush=None):
    fe.refuse_list_arithmetic(*args, what="print")   # a list prints as [a, b], not [a b]
    """Prints to standard output in program order on every backend, nothing after a failed
    check; file= other than None is refused."""
    if not (file is None or (isinstance(file, Const) and file.value is None)):
        raise fe.unsupported("print(..., file=...) inside a compiled function",
                             "print to standard output, or return the values")
    if fe.shared.get("check_guards"):
        raise fe.unsupported("print inside a conditional expression (after and/or, or in "
                             "x if c else y)", "use an if statement")
    operands, printed = [], []

    def field(value, conv="", spec=""):
        if isinstance(value, ArrayRef):
            value = fe.read(value)
        if isinstance(value, (TupleVal, Formatted)) or not isinstance(value, Tensor):
            raise fe.unsupported(f"printing a {type(value).__name__} value inside a compiled "
                                 "function", "print numbers and arrays (one per field)")
        operands.append(value.v)
        return ["v", len(operands) - 1, conv, spec, "py" if value.weak else "np"]

    for a in args:
        if isinstance(a, Const) and not hasattr(a.value, "shape"):
            printed.append([["s", str(a.value)]])
        elif isinstance(a, Formatted):
            printed.append([["s", p] if isinstance(p, str) else field(*p) for p in a.parts])
        else:
            printed.append([field(a)])
    fe.b.create("io.print", operands, {"args": printed, "sep": _static_str(fe, sep, "sep", " "),
                                       "end": _static_str(fe, end, "end", "\n")})
    return Const(None)
