"""Array-level ops: mutable buffers (refs), read and written through basic-index specs.

The frontend emits these for NumPy's in-place semantics; ``passes/functionalize.py``
replaces every one of them by tensor ops, so they have no XLA rule. The interpreter runs
them on real NumPy buffers, which is how functionalization itself is validated.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import RefType, TensorType, dims_agree, is_static
from . import indexspec
from ..ir.registry import OpDef, expect, register


def _alloc_infer(types, attrs):
    expect(len(types) == 1 and isinstance(types[0], TensorType), "array.alloc takes a tensor")
    return [RefType(types[0].shape, types[0].dtype)]


register(OpDef(
    name="array.alloc",
    doc="a new buffer holding a copy of the tensor",
    infer=_alloc_infer, level="array", pure=False,
), interp=lambda op, args, ctx: [np.array(args[0], copy=True)])


def _read_infer(types, attrs):
    expect(len(types) >= 1 and isinstance(types[0], RefType), "array.read takes a ref")
    indexspec.check_spec_operands(attrs["spec"], types[1:])
    shape = indexspec.result_shape(types[0].shape, attrs["spec"], len(types) - 1)
    return [TensorType(shape, types[0].dtype)]


def _read_interp(op, args, ctx):
    buf, dyn = args[0], args[1:]
    grown = indexspec.int_index_on_empty_axis(op.attrs["spec"], buf.shape)
    if grown is not None:
        buf = np.zeros(grown, buf.dtype)
    r = buf[indexspec.numpy_index(op.attrs["spec"], dyn, buf.shape)]
    return [np.array(r, copy=True) if isinstance(r, np.ndarray) and r.ndim else
            np.asarray(r)[()]]


register(OpDef(
    name="array.read",
    doc="the current value of ref[spec] (a copy)",
    infer=_read_infer, level="array", pure=False,
), interp=_read_interp)


def _write_infer(types, attrs):
    expect(len(types) >= 2 and isinstance(types[1], RefType), "array.write takes (value, ref)")
    v, ref = types[0], types[1]
    spec = attrs["spec"]
    expect(all(it[0] != "n" for it in spec), "array.write spec has no newaxis")
    indexspec.check_spec_operands(spec, types[2:])
    shape = indexspec.result_shape(ref.shape, spec, len(types) - 2)
    # a run-time slice may be filled with a scalar (its length is known only there)
    fills = v.rank == 0 and not is_static(shape)
    expect((fills or dims_agree(v.shape, shape)) and v.dtype == ref.dtype,
           f"array.write value {v} does not match {TensorType(shape, ref.dtype)}")
    return []


def _write_interp(op, args, ctx):
    v, buf, dyn = args[0], args[1], args[2:]
    if indexspec.int_index_on_empty_axis(op.attrs["spec"], buf.shape) is not None:
        return []
    buf[indexspec.numpy_index(op.attrs["spec"], dyn, buf.shape)] = v
    return []


register(OpDef(
    name="array.write",
    doc="ref[spec] = value (value has exactly the slice's shape and dtype)",
    infer=_write_infer, level="array", pure=False,
), interp=_write_interp)
