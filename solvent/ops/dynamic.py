"""Ops whose result shapes follow run-time data (a ``?`` dim; see ``ir/types.py``).

- ``tensor.dim %x {axis}``: the run-time length of one dim of ``x``, an i64 scalar.
- ``tensor.mask_select %x, %mask``: ``x[mask]`` with a boolean ``mask`` of the shape of
  ``x``'s leading dims (either may have run-time lengths; the frontend checks they agree): the selected entries (or sub-arrays), ``(?,) + x.shape[mask.ndim:]``,
  in C order as NumPy gives them.
- ``tensor.fill %v, %n``: a 1-D tensor of ``n`` copies of the scalar ``v`` (``np.full(n,
  v)`` with ``n`` computed from data; a negative ``n`` gives an empty tensor, the frontend
  having checked it first).
- ``tensor.nonzero %x``: ``np.array(np.nonzero(x))``, i64 of shape ``(x.ndim, ?)`` (for a
  0-d x, NumPy 2 refuses: the frontend raises first). ``np.argwhere`` is its transpose,
  ``np.flatnonzero`` row 0 of it on the raveled x.

XLA needs static shapes: the XLA backend refuses a function with a ``?`` dim anywhere
(``XlaBackend.accepts`` names the construct and its line), so the XLA rules of mask_select
and nonzero are never reached; they raise if they are.
"""
from __future__ import annotations

import numpy as np

from ..ir.registry import IRError, OpDef, expect, register
from ..ir.types import DYN, TensorType, dims_agree, np_dtype


def _no_xla(op, args, ctx):
    raise IRError(f"{op.name} has a run-time shape: XlaBackend.accepts must refuse it")


def _dim_infer(types, attrs):
    expect(len(types) == 1 and isinstance(types[0], TensorType), "tensor.dim takes a tensor")
    expect(0 <= attrs["axis"] < types[0].rank, f"tensor.dim: no axis {attrs['axis']}")
    return [TensorType((), "i64")]


register(OpDef(
    name="tensor.dim",
    doc="x.shape[axis] at run time, as an i64",
    infer=_dim_infer,
), interp=lambda op, args, ctx: [np.int64(np.shape(args[0])[op.attrs["axis"]])],
   xla=lambda op, args, ctx: [np.int64(args[0].shape[op.attrs["axis"]])])


def _mask_infer(types, attrs):
    expect(len(types) == 2, "tensor.mask_select takes (x, mask)")
    x, m = types
    expect(m.dtype == "i1" and 1 <= m.rank <= x.rank and dims_agree(m.shape, x.shape[:m.rank]),
           f"tensor.mask_select: mask {m} must be bool with the leading dims of {x}")
    return [TensorType((DYN,) + x.shape[m.rank:], x.dtype)]


def _mask_select(x, m):
    """x[m], total as IR ops are: where a run-time length of ``m`` and ``x`` differ (the
    frontend's check has failed, its error will be raised) the common leading part."""
    common = tuple(slice(0, min(a, b)) for a, b in zip(m.shape, x.shape))
    return x[common][m[common]]


register(OpDef(
    name="tensor.mask_select",
    doc="x[mask] for a boolean mask over x's leading dims (a ? leading dim)",
    infer=_mask_infer, cost="expensive",
), interp=lambda op, args, ctx: [_mask_select(np.asarray(args[0]), np.asarray(args[1]))],
   xla=_no_xla)


def _nonzero_infer(types, attrs):
    expect(len(types) == 1 and types[0].rank >= 1, "tensor.nonzero takes an array")
    return [TensorType((types[0].rank, DYN), "i64")]


register(OpDef(
    name="tensor.nonzero",
    doc="np.array(np.nonzero(x)): the indices of the nonzero entries, one row per axis",
    infer=_nonzero_infer, cost="expensive",
), interp=lambda op, args, ctx: [np.array(np.nonzero(args[0]), dtype=np.int64).reshape(
    np.ndim(args[0]), -1)], xla=_no_xla)


def _fill_infer(types, attrs):
    expect(len(types) == 2 and types[0].rank == 0 and types[1].rank == 0
           and types[1].dtype == "i64", "tensor.fill takes (a scalar value, an i64 length)")
    return [TensorType((DYN,), types[0].dtype)]


register(OpDef(
    name="tensor.fill",
    doc="np.full(n, v): n copies of the scalar v, n known only at run time",
    infer=_fill_infer,
), interp=lambda op, args, ctx: [np.full(max(int(args[1]), 0), args[0],
                                         dtype=np_dtype(op.results[0].type.dtype))],
   xla=_no_xla)
