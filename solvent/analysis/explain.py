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
    the previous iteration (distance 1)``. The loops the raising passes turned into tensor
    ops come first (``line 9: loop k: raised (reduction) into reduce_sum, slice``); a loop
    they left says why (``not raised — <the dependence>``)."""
    if not isinstance(fn, Function):
        fn = tensor_ir(fn, *args)
    reports = analyze(fn)
    lines = list(getattr(fn, "raised", []))
    not_raised = getattr(fn, "not_raised", {})
    for r in reports:
        why = not_raised.get(r.loop)
        if why is None:
            lines.append(r.line_text())
            continue
        where = f"line {r.line}" if r.line is not None else "line ?"
        note = "" if why == r.reason else f" (analysis: {r.kind} — {r.reason})"
        lines.append(f"{where}: loop {r.var}: not raised — {why}{note}")
    return "\n".join(lines) if lines else "no loops"
