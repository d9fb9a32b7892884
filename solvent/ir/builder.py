"""Builder: creates ops at an insertion point, with result types from the op registry."""
from __future__ import annotations

from contextlib import contextmanager

from .core import Block, Operation, Region, SourceLoc, Value
from .types import Type
from .registry import get


class Builder:
    """Creates ops at an insertion point: the end of ``block`` (``index`` None) or before
    position ``index`` in it (``before(op)``, ``after(op)``, ``at_start(block)``)."""

    def __init__(self, block: Block):
        self.block = block
        self.index: int | None = None
        self.loc: SourceLoc | None = None

    def create(self, name: str, operands: list[Value], attrs: dict | None = None,
               regions: list[Region] | None = None,
               result_types: list[Type] | None = None) -> Operation:
        opdef = get(name)
        attrs = dict(attrs or {})
        types = [o.type for o in operands]
        if result_types is None:
            result_types = (opdef.infer(types, attrs, regions) if opdef.num_regions
                            else opdef.infer(types, attrs))
        op = Operation(name, operands, result_types, attrs, regions, self.loc)
        if self.index is None:
            return self.block.append(op)
        self.block.insert(self.index, op)
        self.index += 1
        return op

    def one(self, name: str, *operands: Value, **attrs) -> Value:
        return self.create(name, list(operands), attrs).result

    def constant(self, value, dtype: str) -> Value:
        if isinstance(value, bool) or dtype == "i1":
            value = bool(value)
        elif dtype[0] in "iu":
            value = int(value)
        elif dtype[0] == "f":
            value = float(value)
        else:
            value = complex(value)
        return self.one("tensor.constant", value=value, dtype=dtype)

    @contextmanager
    def at(self, block: Block, index: int | None = None):
        """Insert at the end of ``block`` (or before position ``index``) inside the block."""
        saved = self.block, self.index
        self.block, self.index = block, index
        try:
            yield self
        finally:
            self.block, self.index = saved

    def at_start(self, block: Block):
        return self.at(block, 0)

    def before(self, op: Operation):
        """Insert right before ``op`` (in its block)."""
        return self.at(op.parent, op.parent.ops.index(op))

    def after(self, op: Operation):
        return self.at(op.parent, op.parent.ops.index(op) + 1)
