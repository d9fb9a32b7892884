"""Merge window chains (gradient programs): the updates a reverse stencil makes into shifted
windows of one cotangent become one update of the windows' intersection computing all of
them, plus thin slabs at the edges (``patterns/window_chains.py``, ``merge-window-chain``;
bitwise the same result). jacobi_1d's reverse step made three in-place passes over each
cotangent per time step, heat_3d's six."""
from __future__ import annotations

from ..ir.core import Function
from ..ir.rewrite import apply_patterns
from .base import Pass
from .patterns.window_chains import WINDOW_CHAINS


class MergeWindows(Pass):
    name = "merge_windows"

    def run(self, fn: Function) -> Function:
        apply_patterns(fn, WINDOW_CHAINS)
        return fn
