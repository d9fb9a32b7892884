"""The NumPy reference interpreter of the IR: the oracle of every test.

Runs any level of the IR with the ``interp`` rule table (each op's reference semantics,
registered beside its record): array-level refs are real NumPy buffers (mutated in place),
tensors are NumPy arrays (0-d for scalars). Every result is checked against the op's
declared type, so a frontend that mispredicts a NumPy dtype or shape is caught here.
"""
from __future__ import annotations

import numpy as np

from ..ir.core import Function
from ..ir.types import np_dtype
from .base import Backend
from .evaluator import BlockEvaluator


class _Ctx(BlockEvaluator):
    backend = "interp"

    def as_array(self, value):
        return np.asarray(value)

    def scalar(self, value, dtype: str):
        return np.asarray(value, dtype=np_dtype(dtype))


def run(fn: Function, args: list) -> list:
    """Run ``fn``; ref arguments must be NumPy arrays and are updated in place; a Python
    number for a scalar argument becomes a 0-d array of the argument's dtype, as every
    tensor value here is (np.sum(x) of a float argument met a Python float)."""
    args = [np.asarray(a, dtype=np_dtype(p.type.dtype))
            if isinstance(a, (bool, int, float, complex)) and hasattr(p.type, "dtype") else a
            for a, p in zip(args, fn.body.args)]
    with np.errstate(all="ignore"):
        return _Ctx().run_block(fn.body, args)


class InterpExecutable:
    def __init__(self, fn: Function):
        self.fn = fn

    def __call__(self, *args) -> list:
        return run(self.fn, list(args))


class InterpBackend(Backend):
    name = "interp"
    levels = frozenset({"tensor", "array", "control"})
    automatic = False

    def compile(self, fn: Function) -> InterpExecutable:
        return InterpExecutable(fn)

    def describe(self) -> str:
        return ("interp: the NumPy reference interpreter (one NumPy call per op, loops run in "
                "Python; the oracle of the tests, not a fast path)")
