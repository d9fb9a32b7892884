"""The pass pipeline, in order, in one place."""
from __future__ import annotations

from ..ir.core import Function
from ..ir.verifier import verify
from .cse import cse
from .dce import dce
from .functionalize import functionalize
from .if_to_select import if_to_select
from .licm import licm

# (name, pass, the IR is tensor-only after it)
PIPELINE = [
    ("functionalize", functionalize, True),
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
