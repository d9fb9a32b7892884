"""Sample functions where a pattern fires, for translation validation: each builder takes a
shape and returns a Function; the tests run it on random inputs of that shape (size 0, 1 and
non-square included) before and after the pattern."""
from __future__ import annotations

from ...ir.builder import Builder
from ...ir.core import Block, Function
from ...ir.types import TensorType


def _function(name, types, body):
    blk = Block()
    args = [blk.add_arg(t, f"x{k}") for k, t in enumerate(types)]
    b = Builder(blk)
    out = body(b, *args)
    b.create("func.return", [out])
    return Function(name, blk, [f"x{k}" for k in range(len(types))])


def unary_chain(body, dtype: str, rank: int = 1):
    """sample(shape) -> a function of one argument of ``dtype`` returning body(b, x)."""
    def sample(shape):
        shape = tuple(shape)[:rank] if len(shape) >= rank else tuple(shape) + (3,) * (
            rank - len(shape))
        return _function("sample", [TensorType(shape, dtype)], body)
    sample.rank = rank
    return sample


def binary_with_constant(op: str, value, dtype: str, const_second: bool = False):
    """sample(shape) -> op(c, x) (or op(x, c)) with c a constant ``value``."""
    def body(b, x):
        c = b.constant(value, dtype)
        return b.one(op, x, c) if const_second else b.one(op, c, x)
    return unary_chain(body, dtype)
