"""``explain_loops``: one line per loop with its classification and the evidence."""
from __future__ import annotations

from ..ir.core import Function
from .dependence import analyze


def tensor_ir(pyfn, *args, raised: bool = False) -> Function:
    """The tensor IR the compiler produces for ``pyfn(*args)``: after the whole pipeline
    with ``raised``, else with the raising passes off, and the native backend's copies of
    loops without their checks (the loops as written, which is what the dependence
    analysis classifies)."""
    from ..runtime.jit import JitFunction
    off = None if raised else {"raise_loops": {"enabled": False},
                               "raise_contractions": {"enabled": False},
                               "version_checks": {"enabled": False},
                               "speculate_checks": {"enabled": False}}
    return JitFunction(pyfn, passes=off).compile(tuple(args)).fn


def explain_loops(fn, *args) -> str:
    """``fn`` is a tensor-level IR ``Function``, or a Python function with the call's
    arguments (solvent specializes on them). Returns one line per loop, for example
    ``line 5: loop i: carried — A[i-1,j] (line 6) reads the element written as A[i,j] by
    the previous iteration (distance 1)``. The loops the raising passes turned into tensor
    ops come first (``line 9: loop k: raised (reduction) into reduce_sum, slice``); a loop
    they left says why (``not raised — <the dependence>``)."""
    if not isinstance(fn, Function):
        fn = tensor_ir(fn, *args, raised=True)
    reports = analyze(fn)
    lines = list(getattr(fn, "raised", []))
    not_raised = getattr(fn, "not_raised", {})
    for r in reports:
        why = not_raised.get(r.loop)
        if why is None:
            lines.append(r.line_text())
            continue
        if why == r.reason:
            lines.append(f"{r.line_text()} — not raised")
        else:
            lines.append(f"{r.line_text()} — not raised: {why}")
    # a loop the pipeline copied (a versioned fast path and its fallback) reads the same
    return "\n".join(dict.fromkeys(lines)) if lines else "no loops"
