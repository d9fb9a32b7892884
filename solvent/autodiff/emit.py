"""Small IR-emitting helpers shared by the VJP rules and the transformation.

Every helper emits tensor-level ops through a ``Builder``; none computes anything itself.
"""
from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import Value
from ..ir.types import TensorType


def const(b: Builder, value, dtype: str) -> Value:
    return b.constant(value, dtype)


def zeros(b: Builder, t: TensorType) -> Value:
    z = b.constant(0, t.dtype)
    return z if t.shape == () else b.one("tensor.broadcast_to", z, shape=list(t.shape))


def fill_like(b: Builder, t: TensorType, value) -> Value:
    v = b.constant(value, t.dtype)
    return v if t.shape == () else b.one("tensor.broadcast_to", v, shape=list(t.shape))


def unbroadcast(b: Builder, ct: Value, shape: tuple) -> Value:
    """The cotangent of a value of ``shape`` that NumPy broadcasting stretched to ``ct``'s
    shape: the sum of ``ct`` over the stretched axes (the adjoint of broadcasting)."""
    cs = ct.type.shape
    shape = tuple(shape)
    if cs == shape:
        return ct
    lead = len(cs) - len(shape)
    axes = list(range(lead)) + [i + lead for i, d in enumerate(shape)
                                if d == 1 and cs[i + lead] != 1]
    r = ct
    if axes:
        r = b.one("tensor.reduce_sum", r, axes=axes, keepdims=False)
    if r.type.shape != shape:
        r = b.one("tensor.reshape", r, shape=list(shape))
    return r


def expand_reduced(b: Builder, v: Value, in_shape: tuple, axes, keepdims: bool) -> Value:
    """Broadcast a reduction's result (or its cotangent) back to the operand's shape."""
    if not keepdims:
        kshape = [1 if a in axes else d for a, d in enumerate(in_shape)]
        v = b.one("tensor.reshape", v, shape=kshape) if v.type.shape != tuple(kshape) else v
    if v.type.shape != tuple(in_shape):
        v = b.one("tensor.broadcast_to", v, shape=list(in_shape))
    return v


def add(b: Builder, x: Value | None, y: Value | None) -> Value | None:
    """``x + y`` where ``None`` stands for a zero cotangent."""
    if x is None:
        return y
    if y is None:
        return x
    return b.one("tensor.add", x, y)


def where(b: Builder, mask: Value, on_true: Value | None, on_false: Value | None,
          t: TensorType) -> Value:
    zt = TensorType(mask.type.shape, t.dtype)
    a = on_true if on_true is not None else zeros(b, zt)
    c = on_false if on_false is not None else zeros(b, zt)
    return b.one("tensor.select", mask, a, c)
