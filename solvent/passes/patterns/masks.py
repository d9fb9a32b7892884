"""Boolean-mask stores of masked values: ``c[m] = f(x[m], y[m], s)`` becomes
``where(m, f(x, y, s), c)``, so the run-time lengths of ``x[m]`` and of ``nonzero(m)``
disappear (the XLA backend then takes the function, and no backend compacts and scatters).

The frontend lowers ``c[m] = v`` (v an array) to ``scatter(c.ravel(), v, flatnonzero(m))``
with a check that ``len(v)`` equals the count of ``m`` (dynamic_shapes.store_through_mask);
``x[m]`` is ``mask_select(x, m)``, in C order.

Identities:
- ``masked-store-select``: for a mask ``m`` of ``c``'s shape, arrays ``x_i`` of ``m``'s shape
  and an elementwise ``f`` (scalars as they are), the k-th true slot of ``m`` (C order)
  receives the k-th selected element of each ``x_i``, which is ``x_i`` at that slot: so
  ``c[m] = f(x_1[m], .., s)`` writes ``f(x_1, .., s)`` at every true slot and keeps ``c``
  elsewhere, exactly ``where(m, f(x_1, .., s), c)``. ``f`` now also runs on the unselected
  elements, whose results are dropped (elementwise ops are total and raise nothing; a
  check the user's code makes stays where it is).
- ``count-of-masked`` / ``count-of-nonzero``: ``len(f(x[m], y[m], s))`` (f elementwise,
  one mask) and ``len(flatnonzero(m))`` are the number of true entries of ``m``, ``sum(m)``;
  only where the run-time shaped value is read for nothing but its length (after the
  rewrite above, the frontend's length checks), so no count is added beside a compaction
  that stays.
"""
from __future__ import annotations

from ...ir.core import Operation, Value
from ...ir.registry import get
from ...ir.rewrite import Pattern, defining
from ...ir.types import DYN
from ._samples import unary_chain

# the frontend's flatnonzero(m): row 0 of nonzero(m) over a run-time number of entries
_ROW0 = [["c", 0], ["r", -1, -1, 1]]


def _flat_mask(idx: Value):
    """The 1-D mask M of ``idx = flatnonzero(M)`` as the frontend writes it, else None."""
    s = defining(idx, "tensor.slice")
    if s is None or len(s.operands) != 1 or s.attrs.get("spec") != _ROW0:
        return None
    nz = defining(s.operands[0], "tensor.nonzero")
    if nz is None or nz.operands[0].type.rank != 1:
        return None
    return nz.operands[0]


def _same_mask(m0: Value, flat: Value) -> bool:
    """``flat`` is ``m0`` or ``m0`` raveled in C order."""
    if m0 is flat:
        return True
    r = defining(flat, "tensor.reshape")
    return r is not None and r.operands[0] is m0


def _unmask(v: Value, flat: Value, n: int, rw, made: dict):
    """``v`` (a value of masked elements) as the same elementwise function of whole arrays
    raveled to length ``n``; None when some leaf is not ``x[m]`` with ``m`` the store's mask
    or a scalar. Builds nothing until the whole tree matched (``rw`` None: only match)."""
    if v.type.rank == 0:
        return v
    if v in made:
        return made[v]
    op = defining(v)
    if op is None or v.type.shape != (DYN,):
        return None
    if op.name == "tensor.mask_select":
        x, m0 = op.operands
        if x.type.shape != m0.type.shape or not _same_mask(m0, flat):
            return None
        if rw is None:
            return x
        out = x if x.type.rank == 1 else rw.one("tensor.reshape", x, shape=[n])
    else:
        d = get(op.name)
        if not d.elementwise or op.regions or len(op.results) != 1:
            return None
        parts = [_unmask(o, flat, n, rw, made) for o in op.operands]
        if any(p is None for p in parts):
            return None
        if rw is None:
            return v
        out = rw.create(op.name, parts, **op.attrs).result
    made[v] = out
    return out


def _masked_store_select(op, rw):
    if list(op.attrs.get("axes", ())) != [0] or len(op.operands) != 3:
        return False
    c, v, idx = op.operands
    flat = _flat_mask(idx)
    if flat is None or c.type.rank != 1 or DYN in c.type.shape or \
            flat.type.shape != c.type.shape:
        return False
    if _unmask(v, flat, c.type.shape[0], None, {}) is None:
        return False
    whole = _unmask(v, flat, c.type.shape[0], rw, {})
    rw.replace_op(op, [rw.one("tensor.select", flat, whole, c)])
    return True


def _count(rw, m: Value) -> Value:
    ones = rw.one("tensor.convert", m, dtype="i64")
    return rw.one("tensor.reduce_sum", ones, axes=list(range(m.type.rank)), keepdims=False)


def _tree_mask(v: Value, depth: int = 16):
    """The mask ``m`` when ``v`` is an elementwise function of ``x_i[m]`` (one ``m``) and
    scalars: then ``len(v) == sum(m)``, whatever the ``x_i``. Else None."""
    op = defining(v)
    if op is None or depth == 0 or v.type.rank == 0:
        return None
    if op.name == "tensor.mask_select":
        return op.operands[1]
    d = get(op.name)
    if not d.elementwise or op.regions or len(op.results) != 1:
        return None
    masks = {id(m): m for o in op.operands if o.type.rank
             for m in [_tree_mask(o, depth - 1)]}
    if len(masks) != 1 or None in masks.values():
        return None
    return next(iter(masks.values()))


def _only_lengths_read(v: Value, depth: int = 16) -> bool:
    """Every use of ``v`` reads its length, directly or through elementwise ops."""
    for u, _ in v.live_uses():
        if u.name == "tensor.dim":
            continue
        if depth == 0 or not get(u.name).elementwise or u.regions or len(u.results) != 1 \
                or not _only_lengths_read(u.result, depth - 1):
            return False
    return True


def _count_of_masked(op, rw):
    m = _tree_mask(op.operands[0])
    if m is None or op.attrs["axis"] != 0 or not _only_lengths_read(op.operands[0]):
        return False
    rw.replace_op(op, [_count(rw, m)])
    return True


def _count_of_nonzero(op, rw):
    if op.attrs["axis"] != 0:
        return False
    flat = _flat_mask(op.operands[0])
    if flat is None or not _only_lengths_read(op.operands[0]) or \
            len(defining(op.operands[0]).operands[0].live_uses()) != 1:
        return False
    rw.replace_op(op, [_count(rw, flat)])
    return True


# --- samples: x > 0 as the mask, the store as the frontend emits it ------------------------
def _mask_of(b, x):
    return b.one("tensor.gt", x, b.constant(0.0, x.type.dtype))


def _store(b, c, v, flat):
    nz = b.one("tensor.nonzero", flat)
    idx = b.one("tensor.slice", nz, spec=_ROW0)
    return b.one("tensor.scatter", c, v, idx, axes=[0])


def _masked_copy(b, x):
    m = _mask_of(b, x)
    v = b.one("tensor.add", b.one("tensor.mul", b.one("tensor.mask_select", x, m),
                                  b.constant(2.0, "f64")), b.one("tensor.mask_select",
                                                                 b.one("tensor.exp", x), m))
    return _store(b, b.one("tensor.neg", x), v, m)


def _masked_copy_2d(b, x):
    m = _mask_of(b, x)
    n = x.type.size
    flat = b.one("tensor.reshape", m, shape=[n])
    v = b.one("tensor.convert", b.one("tensor.mask_select", x, m), dtype="f32")
    c = b.one("tensor.reshape", b.one("tensor.convert", b.one("tensor.neg", x), dtype="f32"),
              shape=[n])
    return _store(b, c, v, flat)


def _masked_length(b, x):
    m = _mask_of(b, x)
    v = b.one("tensor.sub", b.one("tensor.mask_select", x, m), b.one(
        "tensor.mask_select", b.one("tensor.abs", x), m))
    return b.one("tensor.add", b.one("tensor.dim", v, axis=0),
                 b.one("tensor.dim", b.one("tensor.sqrt", v), axis=0))


def _nonzero_length(b, x):
    m = _mask_of(b, x)
    return b.one("tensor.dim", b.one("tensor.slice", b.one("tensor.nonzero", m), spec=_ROW0),
                 axis=0)


MASKS = [
    Pattern("masked-store-select", "tensor.scatter", _masked_store_select,
            "c[m] = f(x[m], .., s) -> where(m, f(x, .., s), c) for a mask m of c's shape, "
            "x of m's shape and an elementwise f: the k-th true slot receives the k-th "
            "selected element, x at that slot",
            sample=unary_chain(_masked_copy, "f64", rank=1)),
    Pattern("masked-store-select-2d", "tensor.scatter", _masked_store_select,
            "c.ravel()[flatnonzero(m.ravel())] = f(x[m]) -> where(m.ravel(), f(x.ravel()), "
            "c.ravel()): C order on both sides",
            sample=unary_chain(_masked_copy_2d, "f64", rank=2)),
    Pattern("count-of-masked", "tensor.dim", _count_of_masked,
            "len(f(x[m], y[m], s)) -> sum(m) for elementwise f, where the masked values are "
            "read only for their lengths",
            sample=unary_chain(_masked_length, "f64", rank=2)),
    Pattern("count-of-nonzero", "tensor.dim", _count_of_nonzero,
            "len(flatnonzero(m)) -> sum(m) where the indices are read only for their length",
            sample=unary_chain(_nonzero_length, "f32", rank=1)),
]
