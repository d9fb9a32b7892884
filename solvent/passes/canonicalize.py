"""Canonicalize: the rewrite patterns (passes/patterns/) to a fixpoint, by the greedy driver
of the IR core (ir/rewrite.py). Each pattern's identity is in its row; all are validated by
translation validation in tests/passes/test_patterns.py."""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Function
from ..ir.rewrite import apply_patterns
from .base import Pass
from .patterns import ALL


@dataclass(frozen=True)
class CanonicalizeOptions:
    max_rewrites: int = 10000


class Canonicalize(Pass):
    name = "canonicalize"
    Options = CanonicalizeOptions

    def __init__(self, patterns=None, **options):
        super().__init__(**options)
        self.patterns = list(ALL if patterns is None else patterns)

    def run(self, fn: Function) -> Function:
        apply_patterns(fn, self.patterns, self.options.max_rewrites)
        return fn
