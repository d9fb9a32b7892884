"""Late updates (gradient programs): an ``update_slice`` of an array that later ops of its
block still read moves to just before the first use of its result (when that comes after
the last of those reads), so the native bufferizer can write it in place instead of copying the
whole array (``backends.native.bufferize``: ``x``'s buffer is reused only when nothing reads
``x`` after the update).

Identity: the update is pure; moving it later in its block, still before every use of its
result, changes no value. A reverse stencil step zeroes the cotangent window it consumed
(``ct[1:-1] = 0``) before the next step's merged update reads that cotangent at shifted
windows (``merge-window-chain``): jacobi_1d's zeroing copied the 100,000-element array per
half step. Runs after ``MergeWindows`` in ``autodiff.api``.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation
from .base import Pass


def _reads(op: Operation, v) -> bool:
    return any(v is o for w in op.walk() for o in w.operands)


def _sink(block: Block) -> None:
    for op in list(block.ops):
        for r in op.regions:
            _sink(r.block)
    for op in [o for o in block.ops if o.name == "tensor.update_slice"]:
        x, r = op.operands[0], op.results[0]
        ops = block.ops
        p = ops.index(op)
        later = [k for k in range(p + 1, len(ops)) if _reads(ops[k], x)]
        first = next((k for k in range(p + 1, len(ops)) if _reads(ops[k], r)), len(ops))
        if later and later[-1] < first < len(ops):
            # just before its first user: after the reads of x and after whatever
            # computes them element by element where they are read (a fused slice's
            # consumer), so nothing between reads the array it writes
            op.move_before(ops[first])


class LateUpdates(Pass):
    name = "late_updates"

    def run(self, fn: Function) -> Function:
        _sink(fn.body)
        return fn
