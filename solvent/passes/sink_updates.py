"""Sink updates (gradient programs): accumulations into a cotangent that was zeroed over a
region and is added back there later go into the cotangent itself (``patterns/updates.py``,
``sink-zeroed-update``). The zeroing write, the add-back and its full-region reads vanish,
so a reverse loop updates the slots it accumulates into instead of clearing and rewriting a
whole block per trip (lu_nopivot's reverse step: the 49x49 trailing block of the cotangent
was zeroed and added back each trip, around a row and a column of accumulations).

It re-associates sums of cotangent contributions, so ``autodiff.api`` runs it on gradient
programs only, never on a user's program."""
from __future__ import annotations

from ..ir.core import Function
from ..ir.rewrite import apply_patterns
from .base import Pass
from .patterns.updates import SINK_UPDATES


class SinkUpdates(Pass):
    name = "sink_updates"

    def run(self, fn: Function) -> Function:
        apply_patterns(fn, SINK_UPDATES)
        return fn
