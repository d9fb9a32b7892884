"""VJP rules of the data-movement ops (``solvent.ops.structural``).

Identities: broadcasting sums the cotangent over the stretched axes; reshape, transpose,
reverse are undone by their inverse; a slice scatters its cotangent into zeros at the same
place (``update_slice``); ``update_slice`` gives the overwritten slot a zero cotangent and the
inserted value the cotangent's slice; a gather's cotangent is a ``scatter_add`` into zeros
(duplicate indices add up); concatenate splits the cotangent; repeat sums the copies; sort
sends each sorted slot's cotangent back to where its element came from (``ct[argsort(perm)]``
along the axis, ``perm`` the stable argsort: ties keep their order); ``scatter`` (last write
wins) gives the overwritten slots of ``x`` zero cotangent and each written value the slot's
cotangent if its write is the one that won (found by scattering the writes' ids the same
way), zero otherwise; ``linspace`` is linear in its start and stop.
"""
from __future__ import annotations

import numpy as np

from ..ir.registry import register_vjp
from . import emit as E


def _bcast(b, op, xs, ys, cts):
    return [E.unbroadcast(b, cts[0], xs[0].type.shape)]


def _reshape(b, op, xs, ys, cts):
    return [b.one("tensor.reshape", cts[0], shape=list(xs[0].type.shape))]


def _transpose(b, op, xs, ys, cts):
    perm = list(op.attrs["perm"])
    inv = [perm.index(i) for i in range(len(perm))]
    return [b.one("tensor.transpose", cts[0], perm=inv)]


def _drop_newaxis(b, ct, spec):
    """(spec without newaxis items, ct reshaped to the slice shape without those dims)."""
    if all(it[0] != "n" for it in spec):
        return spec, ct
    shape, out, d = list(ct.type.shape), [], 0
    kept = []
    for it in spec:
        if it[0] == "n":
            d += 1
            continue
        kept.append(it)
        if it[0] in ("s", "d"):
            out.append(shape[d])
            d += 1
    return kept, b.one("tensor.reshape", ct, shape=out)


def _slice(b, op, xs, ys, cts):
    x, dyn = xs[0], xs[1:]
    spec, ct = _drop_newaxis(b, cts[0], op.attrs["spec"])
    z = E.zeros(b, x.type)
    return [b.create("tensor.update_slice", [z, ct] + dyn, E.index_attrs(op, spec)).result] + \
        [None] * len(dyn)


def _update(b, op, xs, ys, cts):
    x, v, dyn = xs[0], xs[1], xs[2:]
    ct = cts[0]
    spec = op.attrs["spec"]
    at = E.index_attrs(op)
    ct_v = E.slice_(b, ct, dyn, spec, at)  # read before the update: XLA updates ct in place
    base = ct
    u = ct.owner
    while getattr(u, "name", None) == "tensor.update_slice" and u.attrs["spec"] == spec \
            and list(u.operands[2:]) == list(dyn) and all(it[0] != "n" for it in spec):
        base = u.operands[0]  # that slot is zeroed next: its earlier write is dead
        u = base.owner
    ct_x = b.create("tensor.update_slice", [base, E.zeros(b, v.type)] + dyn, at).result
    return [ct_x, ct_v] + [None] * len(dyn)


def _gather(b, op, xs, ys, cts):
    x, idx = xs[0], xs[1:]
    axes, front = list(op.attrs["axes"]), op.attrs["front"]
    ct = cts[0]
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    if front and adjacent and axes[0] != 0:  # front moved the index dims first: move back
        bnd = len(np.broadcast_shapes(*[i.type.shape for i in idx]))
        rank = ct.type.rank
        src = list(range(bnd, bnd + axes[0]))
        order = src + list(range(bnd)) + [d for d in range(bnd + axes[0], rank)]
        ct = b.one("tensor.transpose", ct, perm=order)
    z = E.zeros(b, x.type)
    return [b.create("tensor.scatter_add", [z, ct] + idx, {"axes": axes}).result] + \
        [None] * len(idx)


def _concat(b, op, xs, ys, cts):
    axis, start, out = op.attrs["axis"], 0, []
    ct = cts[0]
    for x in xs:
        n = x.type.shape[axis]
        spec = [["s", 0, d, 1] for d in ct.type.shape]
        spec[axis] = ["s", start, start + n, 1]
        out.append(b.create("tensor.slice", [ct], {"spec": spec}).result)
        start += n
    return out


def _reverse(b, op, xs, ys, cts):
    return [b.one("tensor.reverse", cts[0], axes=list(op.attrs["axes"]))]


def _pad(b, op, xs, ys, cts):
    """The cotangent of the padded region is the slice where x sits."""
    spec = [["s", lo, lo + n, 1] for lo, n in zip(op.attrs["low"], xs[0].type.shape)]
    return [b.create("tensor.slice", [cts[0]], {"spec": spec}).result]


def _repeat(b, op, xs, ys, cts):
    x, ct = xs[0], cts[0]
    axis, reps = op.attrs["axis"], op.attrs["repeats"]
    shape = list(x.type.shape)
    split = shape[:axis + 1] + [reps] + shape[axis + 1:]
    r = b.one("tensor.reshape", ct, shape=split)
    return [b.one("tensor.reduce_sum", r, axes=[axis + 1], keepdims=False)]


def _triangle(b, op, xs, ys, cts):
    return [b.one("tensor.triangle", cts[0], part=op.attrs["part"], k=op.attrs["k"])]


def _scatter_add(b, op, xs, ys, cts):
    x, v, idx = xs[0], xs[1], xs[2:]
    ct = cts[0]
    g = b.create("tensor.gather", [ct] + idx, {"axes": list(op.attrs["axes"]),
                                                "front": False}).result
    return [ct, g] + [None] * len(idx)


def _along_axis(b, x, idx, axis):
    """``numpy.take_along_axis(x, idx, axis)`` as a gather on every axis."""
    shape = list(idx.type.shape)
    ind = [idx if d == axis else b.one("tensor.iota", shape=shape, dim=d, dtype="i64")
           for d in range(len(shape))]
    return b.create("tensor.gather", [x] + ind, {"axes": list(range(len(shape))),
                                                 "front": False}).result


def _sort(b, op, xs, ys, cts):
    axis = op.attrs["axis"]
    perm = b.one("tensor.argsort", xs[0], axis=axis)
    return [_along_axis(b, cts[0], b.one("tensor.argsort", perm, axis=axis), axis)]


def _scatter(b, op, xs, ys, cts):
    x, v, idx = xs[0], xs[1], xs[2:]
    ct = cts[0]
    axes = list(op.attrs["axes"])
    ct_x = b.create("tensor.scatter", [ct, E.zeros(b, v.type)] + idx, {"axes": axes}).result
    if v.type.size == 0:
        return [ct_x, None] + [None] * len(idx)
    ids = b.one("tensor.iota", shape=[v.type.size], dim=0, dtype="i64")
    if list(v.type.shape) != [v.type.size]:
        ids = b.one("tensor.reshape", ids, shape=list(v.type.shape))
    holder = b.one("tensor.broadcast_to", b.constant(-1, "i64"), shape=list(x.type.shape))
    won = b.create("tensor.scatter", [holder, ids] + idx, {"axes": axes}).result
    won = b.create("tensor.gather", [won] + idx, {"axes": axes, "front": False}).result
    read = b.create("tensor.gather", [ct] + idx, {"axes": axes, "front": False}).result
    ct_v = E.where(b, b.one("tensor.eq", won, ids), read, None, v.type)
    return [ct_x, ct_v] + [None] * len(idx)


def _linspace(b, op, xs, ys, cts):
    """``y_i = start + (stop - start) t_i`` with ``t = linspace(0, 1, num, endpoint)``:
    ``d stop = sum(ct t)``, ``d start = sum(ct) - d stop``."""
    ct, dt = cts[0], op.attrs["dtype"]
    total = b.one("tensor.reduce_sum", ct, axes=[0], keepdims=False)
    if op.attrs["num"] <= 1:  # [start] (or nothing): t = [0]
        return [total, E.zeros(b, total.type)]
    t = b.one("tensor.linspace", b.constant(0.0, dt), b.constant(1.0, dt), num=op.attrs["num"],
              endpoint=op.attrs["endpoint"], dtype=dt)
    ct_stop = b.one("tensor.reduce_sum", b.one("tensor.mul", ct, t), axes=[0], keepdims=False)
    return [b.one("tensor.sub", total, ct_stop), ct_stop]


for _name, _rule in (("linspace", _linspace), ("sort", _sort), ("scatter", _scatter), ("broadcast_to", _bcast), ("reshape", _reshape),
                     ("transpose", _transpose), ("slice", _slice), ("update_slice", _update),
                     ("gather", _gather), ("concatenate", _concat), ("reverse", _reverse),
                     ("pad", _pad), ("repeat", _repeat), ("triangle", _triangle),
                     ("scatter_add", _scatter_add)):
    register_vjp(f"tensor.{_name}", _rule)
