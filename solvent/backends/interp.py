"""The NumPy reference interpreter of the IR: the oracle of every test.

Runs any level of the IR: array-level refs are real NumPy buffers (mutated in place), tensors
are NumPy arrays (0-d for scalars). Every result is checked against the op's declared type,
so a frontend that mispredicts a NumPy dtype or shape is caught here.
"""
from __future__ import annotations

import numpy as np

from ..ir.core import Block, Function
from ..ir.types import RefType, np_dtype
from ..ir.registry import IRError, get


class _Ctx:
    def __init__(self):
        self.env: dict = {}

    def scalar(self, value, dtype: str):
        return np.asarray(value, dtype=np_dtype(dtype))

    def run_block(self, block: Block, args: list) -> list:
        env = self.env
        for a, v in zip(block.args, args):
            env[a] = v
        for op in block.ops:
            operands = [env[o] for o in op.operands]
            if op.name in ("loop.yield", "loop.condition", "func.return"):
                return operands
            opdef = get(op.name)
            with np.errstate(all="ignore"):
                results = opdef.interp(op, operands, self)
            if len(results) != len(op.results):
                raise IRError(f"{op.name}: interpreter gave {len(results)} results")
            for r, v in zip(op.results, results):
                env[r] = _checked(op, r.type, v)
        raise IRError("block without terminator")


def _checked(op, t, v):
    if isinstance(t, RefType):
        return v  # a live buffer: keep identity
    arr = np.asarray(v)
    if arr.shape != t.shape or arr.dtype != np_dtype(t.dtype):
        raise IRError(f"{op.name}{' at ' + str(op.loc) if op.loc else ''}: interpreter produced "
                      f"{arr.dtype}{list(arr.shape)}, the op declares {t}")
    return arr


def run(fn: Function, args: list) -> list:
    """Run ``fn``; ref arguments must be NumPy arrays and are updated in place."""
    ctx = _Ctx()
    return ctx.run_block(fn.body, list(args))
