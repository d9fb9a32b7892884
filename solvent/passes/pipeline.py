"""The pass pipeline, in order, in one place."""
from __future__ import annotations

from ..ir.core import Function
from ..ir.verifier import verify
from .checks_to_values import checks_to_values
from .cse import cse
from .dce import dce
from .functionalize import functionalize
from .if_to_select import if_to_select
from .licm import licm
from .prove_checks import prove_checks

# (name, pass, the IR is tensor-only after it)
PIPELINE = [
    ("functionalize", functionalize, True),
    ("prove_checks", prove_checks, True),
    ("checks_to_values", checks_to_values, True),
    ("cse", cse, True),
    ("if_to_select", if_to_select, True),
    ("licm", licm, True),
    ("cse", cse, True),
    ("dce", dce, True),
]


def run_pipeline(fn: Function, verify_each: bool = True, trace=None) -> Function:
    """Run every pass; ``trace(name, fn)`` sees the IR after each stage."""
    if verify_each:
        verify(fn)
    if trace:
        trace("frontend", fn)
    for name, p, tensor_only in PIPELINE:
        fn = p(fn)
        if verify_each:
            verify(fn, tensor_only=tensor_only)
        if trace:
            trace(name, fn)
    return fn
