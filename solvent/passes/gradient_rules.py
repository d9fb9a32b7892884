"""Gradient rules: the rule sets a gradient program gets right after differentiation
(``pipeline.GRADIENT_ORDER``), each to a fixpoint, in this order (``STAGES``); the primal
pipeline applies none of them as a set of its own.

* ``transpose_dots``: a transpose of a product is the product of the swapped operands, and a
  product of a transpose reads the operand with its dims swapped (``shapes.py``:
  ``transpose-dot``, ``dot-of-transpose``): the dots' rules emit transposed outer products,
  and a transpose the primal's product and its rule both read.
* ``gradient_algebra``: ``algebra.GRADIENT_ONLY`` (an outer product as an elementwise
  product, which fuses into the cotangent sum it is added to); after ``transpose_dots``,
  whose results it reads.
* ``whole_values``: a cotangent accumulated into a zero array over all of it, the whole of
  an array read or written, and reshapes of reshapes (a row sum's ``(n, 1)`` view taken back
  to ``(n,)``): the value itself, so a backend's fused loops are not closed by copies of it
  (gemver: the four sums over its 500x500 cotangent run in one pass).
* ``window_updates``: a cotangent accumulated into a window of a window
  (``nested_updates.py``): one update of the array (a stencil's reverse step; XLA:CPU
  miscompiles the nested form).
"""
from __future__ import annotations

from ..ir.core import Function
from ..ir.rewrite import apply_patterns
from .base import Pass
from .patterns.algebra import GRADIENT_ONLY
from .patterns.nested_updates import NESTED_UPDATES
from .patterns.shapes import DOT_OF_TRANSPOSE, SHAPES, TRANSPOSE_DOT


STAGES = [
    ("transpose_dots", [TRANSPOSE_DOT, DOT_OF_TRANSPOSE]),
    ("gradient_algebra", GRADIENT_ONLY),
    ("whole_values", [p for p in SHAPES if p.name in ("update-full", "slice-full",
                                                      "reshape-reshape", "reshape-same")]),
    ("window_updates", NESTED_UPDATES),
]


class GradientRules(Pass):
    name = "gradient_rules"

    def run(self, fn: Function) -> Function:
        for _, rules in STAGES:
            apply_patterns(fn, rules)
        return fn
