"""Merge window chains (gradient programs): the updates a reverse stencil makes into shifted
windows of one cotangent become one update of the windows' intersection computing all of
them, plus thin slabs at the edges (``patterns/window_chains.py``, ``merge-window-chain``;
bitwise the same result). jacobi_1d's reverse step made three in-place passes over each
cotangent per time step, heat_3d's six."""
from __future__ import annotations

from .base import RulesPass
from .patterns.window_chains import WINDOW_CHAINS


class MergeWindows(RulesPass):
    name = "merge_windows"
    rules = WINDOW_CHAINS
