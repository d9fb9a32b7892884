"""Loop-invariant code motion: pure, region-free ops in a loop body whose operands are all
defined outside the loop move in front of the loop.

Identity: an op that depends on nothing the loop changes computes the same value in every
iteration, so computing it once before the loop is equivalent. Ops are total (dynamic
indices clamp, division by zero gives inf/0 as in NumPy), so running one for a loop that
makes zero trips changes no result. An element access with a run-time index hoisted out
of a loop is marked ``unchecked`` (as if-conversion marks the accesses it speculates): a
backend that raises IndexError must not raise for an access the program might not have
made, or would have made only after another check had failed (``B[i] + A[row, 0]`` with
``B`` empty: NumPy reports ``B``). The program's own checks, values by now, report the
failure that comes first.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation
from ..ir.registry import get
from ..ops.indexspec import speculated_attrs
from .base import Pass


def _defined_inside(op: Operation) -> set:
    inside = set()
    for region in op.regions:
        inside.update(region.block.args)
        for inner in region.block.walk():
            inside.update(inner.results)
    return inside


def _runs_at_least_once(loop: Operation, region_index: int) -> bool:
    """A while loop's condition always runs; a for loop's body runs when its constant
    bounds give a trip."""
    if loop.name == "loop.while":
        return region_index == 0
    consts = []
    for v in loop.operands[:3]:
        o = v.owner
        if not (isinstance(o, Operation) and o.name == "tensor.constant"):
            return False
        consts.append(int(o.attrs["value"]))
    lb, ub, step = consts
    return step != 0 and len(range(lb, ub, step)) > 0


def _hoist_from(loop: Operation, parent: Block) -> None:
    inside = _defined_inside(loop)
    for k, region in enumerate(loop.regions):
        block = region.block
        for op in list(block.ops):
            if op.regions or not get(op.name).pure or not op.results:
                continue
            if any(o in inside for o in op.operands):
                continue
            op.attrs = speculated_attrs(op.name, op.attrs)
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
