"""Functionalization: array refs -> SSA tensors.

Each ref gets a "current value". ``array.read`` becomes a ``tensor.slice`` of it,
``array.write`` a ``tensor.update_slice`` that produces the next value, ``array.alloc`` just
names its initial value. Loops and ifs carry (as block arguments / yields / results) exactly
the refs written inside them that were defined outside. Ref arguments become tensor
arguments; the final values of written ones become extra results, marked in
``Function.writeback`` with the argument they belong to, for the runtime to copy back.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation, Region
from ..ir.registry import get
from ..ir.types import RefType
from ..ops.indexspec import is_full
from .base import Pass


def _written_refs(block: Block, memo: dict) -> list:
    """The refs ``array.write`` writes in ``block`` and the blocks nested in it, in the order
    of a walk; each block's list is computed once (``memo``, by block identity): a walk per
    region op was quadratic in the nesting depth (150 elifs: 4.3 s)."""
    key = id(block)
    if key not in memo:
        out: dict = {}
        for op in block.ops:
            if op.name == "array.write":
                out[op.operands[1]] = None
            for r in op.regions:
                out.update(dict.fromkeys(_written_refs(r.block, memo)))
        memo[key] = list(out)
    return memo[key]


class _Functionalizer:
    def __init__(self):
        self.vmap: dict = {}
        self.written: dict = {}   # block identity -> _written_refs

    def v(self, old):
        return self.vmap[old]

    def run_block(self, old: Block, new: Block, cur: dict) -> None:
        for op in old.ops:
            self.run_op(op, new, cur)

    def emit(self, new: Block, name, operands, attrs, result_types, loc, regions=None):
        op = Operation(name, operands, result_types, attrs, regions, loc)
        new.append(op)
        return op

    def run_op(self, op: Operation, new: Block, cur: dict) -> None:
        name = op.name
        if name == "array.alloc":
            cur[op.result] = self.v(op.operands[0])
            return
        if name == "array.read":
            ref, dyn = op.operands[0], [self.v(d) for d in op.operands[1:]]
            base = cur[ref]
            if not dyn and is_full(ref.type.shape, op.attrs["spec"]):
                self.vmap[op.result] = base
            else:
                r = self.emit(new, "tensor.slice", [base] + dyn, dict(op.attrs),
                              [op.result.type], op.loc)
                self.vmap[op.result] = r.result
            return
        if name == "array.write":
            val, ref = self.v(op.operands[0]), op.operands[1]
            dyn = [self.v(d) for d in op.operands[2:]]
            if not dyn and is_full(ref.type.shape, op.attrs["spec"]):
                cur[ref] = val
            else:
                r = self.emit(new, "tensor.update_slice", [cur[ref], val] + dyn,
                              dict(op.attrs), [ref.type.tensor()], op.loc)
                cur[ref] = r.result
            return
        if op.regions:
            self.run_region_op(op, new, cur)
            return
        r = self.emit(new, name, [self.v(o) for o in op.operands], dict(op.attrs),
                      [res.type for res in op.results], op.loc)
        for a, b in zip(op.results, r.results):
            self.vmap[a] = b

    def run_region_op(self, op: Operation, new: Block, cur: dict) -> None:
        carried = [r for region in op.regions for r in _written_refs(region.block, self.written)
                   if r in cur]
        carried = list(dict.fromkeys(carried))
        ctypes = [r.type.tensor() for r in carried]
        new_regions = []
        for k, region in enumerate(op.regions):
            old_blk = region.block
            blk = Block()
            for a in old_blk.args:
                self.vmap[a] = blk.add_arg(a.type)
            inner = dict(cur)
            if get(op.name).loop_like:
                for r, t in zip(carried, ctypes):
                    inner[r] = blk.add_arg(t)
            for inner_op in old_blk.ops[:-1]:
                self.run_op(inner_op, blk, inner)
            term = old_blk.ops[-1]
            extra = [] if term.name == "loop.condition" else [inner[r] for r in carried]
            self.emit(blk, term.name, [self.v(o) for o in term.operands] + extra,
                      dict(term.attrs), [], term.loc)
            new_regions.append(Region(blk))
        operands = [self.v(o) for o in op.operands]
        if get(op.name).loop_like:
            operands += [cur[r] for r in carried]
        types = [r.type for r in op.results] + ctypes
        nop = self.emit(new, op.name, operands, dict(op.attrs), types, op.loc, new_regions)
        n = len(op.results)
        for a, b in zip(op.results, nop.results[:n]):
            self.vmap[a] = b
        for r, res in zip(carried, nop.results[n:]):
            cur[r] = res


def functionalize(fn: Function) -> Function:
    f = _Functionalizer()
    body = Block()
    cur: dict = {}
    ref_args = []
    for i, a in enumerate(fn.args):
        if isinstance(a.type, RefType):
            cur[a] = body.add_arg(a.type.tensor(), a.hint)
            ref_args.append((i, a))
        else:
            f.vmap[a] = body.add_arg(a.type, a.hint)
    for op in fn.body.ops[:-1]:
        f.run_op(op, body, cur)
    ret = fn.body.ops[-1]
    written = set(_written_refs(fn.body, f.written))
    outs = [f.v(o) for o in ret.operands]
    writeback = list(fn.writeback) or [None] * len(outs)
    for i, a in ref_args:
        if a in written:
            outs.append(cur[a])
            writeback.append(i)
    body.append(Operation("func.return", outs, [], {}, None, ret.loc))
    return Function(fn.name, body, list(fn.arg_names), writeback, shardings=fn.shardings)


class Functionalize(Pass):
    name = "functionalize"

    def run(self, fn: Function) -> Function:
        return functionalize(fn)
