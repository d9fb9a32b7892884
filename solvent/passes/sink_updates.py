"""Sink updates (gradient programs): accumulations into a cotangent that was zeroed over a
region and is added back there later go into the cotangent itself (``patterns/updates.py``,
``sink-zeroed-update``). The zeroing write, the add-back and its full-region reads vanish,
so a reverse loop updates the slots it accumulates into instead of clearing and rewriting a
whole block per trip (lu_nopivot's reverse step: the 49x49 trailing block of the cotangent
was zeroed and added back each trip, around a row and a column of accumulations).

It re-associates sums of cotangent contributions, so it is in ``pipeline.GRADIENT_ORDER``
only, never run on a user's program."""
from __future__ import annotations

from .base import RulesPass
from .patterns.updates import SINK_UPDATES


class SinkUpdates(RulesPass):
    name = "sink_updates"
    rules = SINK_UPDATES
