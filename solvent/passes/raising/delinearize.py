"""Delinearizing flat offsets into ravelled arrays (a step before raising).

C-style code reads a 2-D array through its flat storage: ``a = A.ravel()`` then
``a[i * ncols + k]``. Batched over ``i`` and ``k`` that offset is neither a slice nor a
window of one dimension, so raising would build a gather of ``N x W`` indices (three_mm_loops:
25x slower than its vectorized twin). When the offset is affine, ``c*u + v`` with ``c`` the
row length of ``A``, every term of ``u`` a multiple of ``c`` and ``v`` provably inside
``0 .. c-1`` over the loop nest (and ``u`` inside ``0 .. r-1``), the read is ``A[u, v]``:
two subscripts that raising turns into slices.

Identity: ``reshape(A, (r*c,))[c*u + v] == A[u, v]`` for ``0 <= u < r``, ``0 <= v < c``
(row-major order, the only order the IR's reshape has). Reads that if-conversion made
unconditional (``unchecked``) are left alone: their index may be out of range where the guard
was false, and the clamped element would differ.
"""
from __future__ import annotations

from ...analysis.affine import Affine, LoopInfo
from ...ir.builder import Builder
from ...ir.core import Function, Operation


def _split(form: Affine, c: int):
    """(u, v) with ``form == c*u + v``: the terms whose coefficient ``c`` divides go to u,
    the others stay in v; the constant splits as ``c*q + rem``."""
    u = Affine(form.const // c, {a: k // c for a, k in form.terms.items() if k % c == 0})
    v = Affine(form.const % c, {a: k for a, k in form.terms.items() if k % c != 0})
    return u, v


def _emit(b: Builder, form: Affine, dtype: str):
    total = b.constant(form.const, dtype) if form.const or not form.terms else None
    for atom, k in form.terms.items():
        if atom.type.dtype != dtype:
            return None
        v = atom if k == 1 else b.one("tensor.mul", atom, b.constant(k, dtype))
        total = v if total is None else b.one("tensor.add", total, v)
    return total


def _delinearize(info: LoopInfo, op: Operation) -> bool:
    flat = op.operands[0]
    src = flat.owner
    if not isinstance(src, Operation) or src.name != "tensor.reshape" or \
            flat.type.rank != 1 or op.attrs.get("unchecked") or \
            op.attrs["spec"] != [["i", 0]]:
        return False
    A = src.operands[0]
    if A.type.rank != 2 or 0 in A.type.shape:
        return False
    r, c = A.type.shape
    index = op.operands[1]
    form = info.affine(index)
    if any(a in info.reasons for a in form.terms):
        return False  # an opaque atom (a value read from an array, a product, ...)
    u, v = _split(form, c)
    (ulo, uhi), (vlo, vhi) = info.bounds(u), info.bounds(v)
    if None in (ulo, uhi, vlo, vhi) or not (0 <= ulo and uhi < r and 0 <= vlo and vhi < c):
        return False
    b = Builder(op.parent)
    b.index = op.parent.ops.index(op)
    b.loc = op.loc
    dtype = index.type.dtype
    uv, vv = _emit(b, u, dtype), _emit(b, v, dtype)
    if uv is None or vv is None:
        return False
    read = b.create("tensor.slice", [A, uv, vv], {"spec": [["i", 0], ["i", 1]]})
    op.replace_with([read.result])
    return True


def delinearize(fn: Function) -> int:
    """Rewrite every flat element read of a ravelled 2-D array that splits; returns how
    many did."""
    info = LoopInfo(fn)
    reads = [op for op in fn.walk() if op.name == "tensor.slice" and len(op.operands) == 2]
    count = sum(_delinearize(info, op) for op in reads)
    if count:
        fn.raised.append(f"{count} flat offset{'s' if count > 1 else ''} into ravelled arrays "
                         "became 2-D subscripts")
    return count
