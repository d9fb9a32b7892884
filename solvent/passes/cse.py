"""Common subexpression elimination of pure, region-free ops (scoped: an op can reuse an
equal op of its own block or of an enclosing block that precedes it).

Identity: two pure ops with the same name, operands, attributes and result types compute
the same values, so the later one's uses can read the earlier one's results."""
from __future__ import annotations

from ..ir.core import Block, Function
from ..ir.printer import format_attr
from ..ir.registry import get
from .base import Pass


def _key(op):
    return (op.name, tuple(id(o) for o in op.operands),
            tuple((k, format_attr(v)) for k, v in sorted(op.attrs.items())),
            tuple(str(r.type) for r in op.results))


def _cse_block(block: Block, seen: dict) -> None:
    seen = dict(seen)
    for op in list(block.ops):
        for r in op.regions:
            _cse_block(r.block, seen)
        if op.regions or not get(op.name).pure or not op.results:
            continue
        k = _key(op)
        if k in seen:
            op.replace_with(seen[k].results)
        else:
            seen[k] = op


def cse(fn: Function) -> Function:
    _cse_block(fn.body, {})
    return fn


class CSE(Pass):
    name = "cse"

    def run(self, fn: Function) -> Function:
        return cse(fn)
