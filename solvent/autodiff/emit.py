"""Small IR-emitting helpers shared by the VJP rules and the transformation.

Every helper emits tensor-level ops through a ``Builder``; none computes anything itself.
"""
from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import Value
from ..ir.rewrite import index_attrs, is_zeros  # noqa: F401 (E.index_attrs, E.is_zeros)
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


def slice_(b: Builder, x: Value, dyn: list, spec: list, attrs: dict | None = None) -> Value:
    """``x[spec]`` (with the slice's ``attrs`` when given: a copied read keeps its
    ``unchecked`` mark); reading back the slot an ``update_slice`` just wrote (same spec, same
    index values) gives the value written, without a read of the new array (which would keep
    both arrays alive and make XLA copy the array to update it in place)."""
    op = x.owner
    if getattr(op, "name", None) == "tensor.update_slice" and op.attrs["spec"] == spec \
            and list(op.operands[2:]) == list(dyn) and all(it[0] != "n" for it in spec):
        return op.operands[1]
    return b.create("tensor.slice", [x] + list(dyn), dict(attrs or {"spec": spec})).result


def _sparse(v: Value):
    """The (value, indices, update op) of ``v = update_slice(zeros, value, *indices)``, or
    None."""
    op = v.owner
    if getattr(op, "name", None) == "tensor.update_slice" and is_zeros(op.operands[0]):
        return op.operands[1], op.operands[2:], op
    return None


def _mask_key(m: Value):
    """A select's condition up to a broadcast (each rule broadcasts its own)."""
    op = m.owner
    if getattr(op, "name", None) == "tensor.broadcast_to":
        return op.operands[0], m.type.shape
    return m, m.type.shape


def _half_select(v: Value):
    """``(mask key, value, side)`` of ``v = select(m, value, 0)`` (side 1) or ``select(m, 0,
    value)`` (side 2), or None."""
    op = v.owner
    if getattr(op, "name", None) != "tensor.select":
        return None
    for side in (1, 2):
        if is_zeros(op.operands[3 - side]):
            return _mask_key(op.operands[0]), op.operands[side], side, op.operands[0]
    return None


def add(b: Builder, x: Value | None, y: Value | None) -> Value | None:
    """``x + y`` where ``None`` stands for a zero cotangent. Adding a cotangent that is zero
    but for one slice (a slice's cotangent, ``update_slice(zeros, v)``) adds ``v`` into that
    slice of the other (``x[s] += v``: one pass over the slice, not over the whole array);
    one that is a ``scatter_add`` into zeros (a gather's) scatters into the other instead."""
    if x is None:
        return y
    if y is None:
        return x
    for acc, other in ((x, y), (y, x)):
        sc = other.owner
        if getattr(sc, "name", None) == "tensor.scatter_add" and is_zeros(sc.operands[0]) \
                and acc.type == other.type:   # a gather's cotangent: added where it lands
            return b.create("tensor.scatter_add", [acc] + list(sc.operands[1:]),
                            dict(sc.attrs)).result
        sp = _sparse(other)
        if sp is not None and _sparse(acc) is None:
            v, idx, u = sp
            at = index_attrs(u)
            part = b.one("tensor.add", slice_(b, acc, list(idx), at["spec"], at), v)
            return b.create("tensor.update_slice", [acc, part] + list(idx), at).result
    hx, hy = _half_select(x), _half_select(y)
    if hx and hy and hx[0] == hy[0] and hx[2] != hy[2] and x.type == y.type:
        # where(m, a, 0) + where(m, 0, c) is where(m, a, c): the two cotangents of a select
        # whose branches read one value (np.where(mask, f(x), x)) meet again as one
        on_true, on_false = (hx[1], hy[1]) if hx[2] == 1 else (hy[1], hx[1])
        if on_true is on_false:
            return on_true
        return b.one("tensor.select", hx[3], on_true, on_false)
    return b.one("tensor.add", x, y)


def where(b: Builder, mask: Value, on_true: Value | None, on_false: Value | None,
          t: TensorType) -> Value:
    zt = TensorType(mask.type.shape, t.dtype)
    a = on_true if on_true is not None else zeros(b, zt)
    c = on_false if on_false is not None else zeros(b, zt)
    return b.one("tensor.select", mask, a, c)
