"""Dead code elimination: drop ops whose results are unused and that have no effect.

After functionalization the only ops with an effect are ``io.print`` (and ``error.check``
before checks_to_values): unused loops and ifs go unless they hold one."""
from __future__ import annotations

from ..ir.core import Block, Function
from ..ir.registry import get
from .base import Pass


def _removable(op) -> bool:
    opdef = get(op.name)
    if opdef.terminator or opdef.level == "array":
        return False
    if opdef.pure:
        return True
    return opdef.level == "control" and not any(
        get(o.name).level == "array" or (get(o.name).level == "tensor" and not get(o.name).pure)
        for o in op.walk())


def _dce_block(block: Block, used: set) -> bool:
    changed = False
    for op in reversed(list(block.ops)):
        if _removable(op) and not any(r in used for r in op.results):
            block.ops.remove(op)
            changed = True
            continue
        for r in op.regions:
            changed |= _dce_block(r.block, used)
        used.update(op.operands)
        for r in op.regions:
            for inner in r.block.walk():
                used.update(inner.operands)
    return changed


def dce(fn: Function) -> Function:
    while _dce_block(fn.body, set()):
        pass
    return fn


class DCE(Pass):
    name = "dce"

    def run(self, fn: Function) -> Function:
        return dce(fn)
