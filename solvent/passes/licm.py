"""Loop-invariant code motion: pure, region-free ops in a loop body whose operands are all
defined outside the loop move in front of the loop.

Identity: an op that depends on nothing the loop changes computes the same value in every
iteration, so computing it once before the loop is equivalent. Ops are total (dynamic
indices clamp, division by zero gives inf/0 as in NumPy), so running one for a loop that
makes zero trips changes no result.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation
from ..ir.registry import get
from .base import Pass


def _defined_inside(op: Operation) -> set:
    inside = set()
    for region in op.regions:
        inside.update(region.block.args)
        for inner in region.block.walk():
            inside.update(inner.results)
    return inside


def _hoist_from(loop: Operation, parent: Block) -> None:
    inside = _defined_inside(loop)
    for region in loop.regions:
        block = region.block
        for op in list(block.ops):
            if op.regions or not get(op.name).pure or not op.results:
                continue
            if any(o in inside for o in op.operands):
                continue
            op.move_before(loop)
            inside.difference_update(op.results)


def _run(block: Block) -> None:
    for op in list(block.ops):
        for region in op.regions:
            _run(region.block)  # innermost loops first: their hoisted ops may move again
        if get(op.name).loop_like:
            _hoist_from(op, block)


def licm(fn: Function) -> Function:
    _run(fn.body)
    return fn


class LICM(Pass):
    name = "licm"

    def run(self, fn: Function) -> Function:
        return licm(fn)
