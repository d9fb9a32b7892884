"""``explain_loops``: one line per loop with its classification and the evidence."""
from __future__ import annotations

from ..ir.core import Function
from .dependence import analyze


def tensor_ir(pyfn, *args) -> Function:
    """The IR the compiler really produces for ``pyfn(*args)`` (after the whole pipeline)."""
    from ..runtime.jit import JitFunction
    return JitFunction(pyfn).compile(tuple(args)).fn


def explain_loops(fn, *args) -> str:
    """``fn`` is a tensor-level IR ``Function``, or a Python function with the call's
    arguments (solvent specializes on them). Returns one line per loop, for example
    ``line 5: loop i: carried — A[i-1,j] (line 6) reads the element written as A[i,j] by
    the previous iteration (distance 1)``."""
    if not isinstance(fn, Function):
        fn = tensor_ir(fn, *args)
    reports = analyze(fn)
    if not reports:
        return "no loops"
    return "\n".join(r.line_text() for r in reports)
