"""Multiply-and-sum into ``dot_general`` (the last step of raising a contraction nest).

A raised ``for i: for j: for k: s += A[i, k] * B[k, j]`` is ``reduce_sum(mul(A', B'),
axes)`` where ``A'`` and ``B'`` are ``A`` and ``B`` placed in the product's index space by
reshapes that insert unit dims, transposes and broadcasts. Reading each operand back to its
base array with the product axis of every base axis gives an einsum: an axis summed over
and present in both operands contracts, one present in both and kept is a batch axis, one
in a single operand is free. That is a ``dot_general`` (matrix-vector, matrix-matrix,
batched, transposed operands alike), transposed into the order the reduction kept.

Identity: ``sum_k a[.., k] * b[k, ..] == dot_general(a, b)`` up to the order of the sum, so
floating results may differ in the last bits (the reduction was already reordered by
raising; NumPy's own matmul sums in blocks). Refused: an axis summed over that is in one
operand only, a kept axis in neither, a base axis used twice (a diagonal), bool operands,
and full sums to a scalar (``sum(x * y)``: XLA fuses the reduction as well, and a scalar
dot's reverse-mode rule would need rank-0 contractions). Also refused: products whose every
kept axis is in both operands and whose last axis is kept (batched inner products across
rows, ``sum((x - mu) ** 2, axis=0)`` of np.std): a batched dot over the contiguous axis ran
6x slower on native than the one fused pass of multiply and sum (24 against 3.9 ms for
NumPy's np.std of 1505x1500 along axis 0). Inner products along the rows (the last axis
summed: layernorm's variance, row norms) stay dot_generals, which ran 1.5x faster there.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...ir.core import Function
from ...ir.rewrite import Pattern, apply_patterns, constant_value, defining
from ...ir.types import TensorType
from ..base import Pass
from ..patterns._samples import _function


def _placed(v, rank: int):
    """(base, [product axis of each base axis]) for ``v`` broadcast into a product of
    ``rank`` dims, or None."""
    dims = list(range(v.type.rank))
    shift = rank - v.type.rank
    dims = [d + shift for d in dims]
    for _ in range(32):
        op = defining(v)
        if op is None:
            break
        if op.name == "tensor.convert" and op.operands[0].type.shape == v.type.shape:
            v = op.operands[0]  # converts commute with the moves: convert the base instead
            continue
        if op.name == "tensor.transpose":
            perm = op.attrs["perm"]
            x = op.operands[0]
            # result axis j is x axis perm[j]: x axis a lands where result axis perm.index(a)
            dims = [dims[perm.index(a)] for a in range(x.type.rank)]
            v = x
        elif op.name in ("tensor.reshape", "tensor.broadcast_to"):
            x = op.operands[0]
            if op.name == "tensor.reshape":
                src = [a for a, n in enumerate(x.type.shape) if n != 1]
                dst = [a for a, n in enumerate(v.type.shape) if n != 1]
                if [x.type.shape[a] for a in src] != [v.type.shape[a] for a in dst]:
                    break
                new = [None] * x.type.rank
                for a, b in zip(src, dst):
                    new[a] = dims[b]
            else:
                off = v.type.rank - x.type.rank
                new = [dims[a + off] if x.type.shape[a] == v.type.shape[a + off] else None
                       for a in range(x.type.rank)]
            dims = new
            v = x
        else:
            break
        if any(d is None and v.type.shape[a] != 1 for a, d in enumerate(dims)):
            return None
    return v, dims


def _squeeze(rw, base, dims):
    """Drop the unit base axes that map to no product axis (or to a broadcast one)."""
    keep = [a for a, d in enumerate(dims) if d is not None]
    if len(keep) == base.type.rank:
        return base, dims
    base = rw.one("tensor.reshape", base, shape=[base.type.shape[a] for a in keep])
    return base, [dims[a] for a in keep]


def _sum_of_products(op, rw) -> bool:
    prod = defining(op.operands[0], "tensor.mul")
    if prod is None or op.result.type.dtype == "i1" or op.result.type.rank == 0 or \
            _absorbed(op):
        return False  # a full sum of products stays a fused reduction
    shape = prod.result.type.shape
    rank = len(shape)
    axes = set(op.attrs["axes"])
    sides = [_placed(x, rank) for x in prod.operands]
    if any(s is None for s in sides):
        return False
    for base, dims in sides:
        real = [d for a, d in enumerate(dims) if d is not None and base.type.shape[a] != 1]
        if len(set(real)) != len(real):
            return False  # a diagonal
    # unit axes of the bases are broadcasts: they carry no index
    sides = [(b, [d if d is not None and (b.type.shape[a] != 1 or shape[d] == 1) else None
                  for a, d in enumerate(ds)]) for b, ds in sides]
    (a, da), (b, db) = sides
    sa, sb = set(x for x in da if x is not None), set(x for x in db if x is not None)
    if any(x not in sa or x not in sb for x in axes):
        return False
    kept = [x for x in range(rank) if x not in axes]
    if any(x not in sa and x not in sb for x in kept if shape[x] != 1):
        return False
    if any(shape[x] == 1 and x not in sa and x not in sb for x in kept):
        return False
    if all(x in sa and x in sb for x in kept if shape[x] != 1) and rank - 1 not in axes:
        return False  # batched inner products across the rows: the fused pass is faster
    a, da = _squeeze(rw, a, da)
    b, db = _squeeze(rw, b, db)
    dtype = prod.result.type.dtype
    a, b = (x if x.type.dtype == dtype else rw.one("tensor.convert", x, dtype=dtype)
            for x in (a, b))
    contract = sorted(axes)
    batch = [x for x in kept if x in sa and x in sb]
    attrs = dict(lhs_batch=[da.index(x) for x in batch], rhs_batch=[db.index(x) for x in batch],
                 lhs_contract=[da.index(x) for x in contract],
                 rhs_contract=[db.index(x) for x in contract])
    r = rw.one("tensor.dot_general", a, b, **attrs)
    order = batch + [x for x in sorted(da, key=da.index) if x in kept and x not in batch] + \
        [x for x in sorted(db, key=db.index) if x in kept and x not in batch]
    perm = [order.index(x) for x in kept]
    if perm != list(range(len(perm))):
        r = rw.one("tensor.transpose", r, perm=perm)
    if r.type != op.result.type:
        r = rw.one("tensor.reshape", r, shape=list(op.result.type.shape))
    rw.replace_op(op, [r])
    return True


def _absorbed(op) -> bool:
    """Is ``op`` (a reduce_sum) the only input of another reduce_sum, which sum-of-sums
    merges it into first (so the product contracts over both sets of axes at once)?"""
    uses = op.result.live_uses()
    return len(uses) == 1 and uses[0][0].name == "tensor.reduce_sum" and \
        not uses[0][0].attrs["keepdims"] and not op.attrs["keepdims"]


def _sum_of_sums(op, rw) -> bool:
    inner = defining(op.operands[0], "tensor.reduce_sum")
    if inner is None or op.attrs["keepdims"] or inner.attrs["keepdims"] or \
            len(inner.result.live_uses()) != 1:
        return False
    a = sorted(inner.attrs["axes"])
    left = [d for d in range(inner.operands[0].type.rank) if d not in a]
    axes = sorted(a + [left[d] for d in op.attrs["axes"]])
    rw.replace_op(op, [rw.one("tensor.reduce_sum", inner.operands[0], axes=axes,
                              keepdims=False)])
    return True


def _masked_sum(op, rw) -> bool:
    sel = defining(op.operands[0], "tensor.select")
    t = op.result.type
    if sel is None or _absorbed(op) or t.dtype[0] not in "fc" or not getattr(t, "static", True):
        return False
    m, x, z = sel.operands
    zero = constant_value(z)
    if zero is None or zero != 0 or z.type.rank > t.rank:
        return False
    shape = sel.result.type.shape
    if x.type.shape != shape or defining(x, "tensor.mul") is None:
        return False  # only worth it when the sum of products becomes a dot_general
    axes = sorted(op.attrs["axes"])
    lead = len(shape) - m.type.rank
    if any(a >= lead and m.type.shape[a - lead] != 1 for a in axes):
        return False  # the mask moves along a summed axis
    kept = [a for a in range(lead, len(shape)) if a not in axes]
    keepdims = op.attrs["keepdims"]
    m_shape = [1 if a in axes else m.type.shape[a - lead] for a in range(lead, len(shape))] \
        if keepdims else [m.type.shape[a - lead] for a in kept]
    if list(m.type.shape) != m_shape:
        m = rw.one("tensor.reshape", m, shape=m_shape)
    total = rw.one("tensor.reduce_sum", x, axes=axes, keepdims=keepdims)
    rw.replace_op(op, [rw.one("tensor.select", m, total, rw.constant_like(total, 0.0))])
    return True


def _two_d(shape):
    a, b = (tuple(shape) + (3, 3))[:2]
    return a, b


def _masked_sum_sample(shape):
    """sum_j select(m[i], x[i, j] * y[i, j], -0.0) over x, y (a, b) and m (a, 1)."""
    a, n = _two_d(shape)

    def body(b, x, y, m):
        z = b.one("tensor.broadcast_to", b.constant(-0.0, "f64"), shape=[n])
        sel = b.one("tensor.select", m, b.one("tensor.mul", x, y), z)
        return b.one("tensor.reduce_sum", sel, axes=[1], keepdims=False)
    return _function("sample", [TensorType((a, n), "f64"), TensorType((a, n), "f64"),
                                TensorType((a, 1), "i1")], body)


def _sum_of_products_sample(shape):
    """sum_k A[i, k] * B[k, j] as reduce_sum(reshape(A) * reshape(transpose(B))); a unit
    dim reads as a broadcast (the pattern leaves it alone), so the sample avoids them."""
    a, n = _two_d(shape)
    a, n = (2 if a == 1 else a), n + 1

    def body(b, x, y):
        xa = b.one("tensor.reshape", x, shape=[a, n, 1])
        yb = b.one("tensor.reshape", b.one("tensor.transpose", y, perm=[1, 0]),
                   shape=[1, n, a + 2])
        return b.one("tensor.reduce_sum", b.one("tensor.mul", xa, yb), axes=[1],
                     keepdims=False)
    return _function("sample", [TensorType((a, n), "f64"), TensorType((a + 2, n), "f64")],
                     body)


def _sum_of_sums_sample(shape):
    """sum over axis 0 of (sum over axis 1 of x), x of rank 3."""
    a, n = _two_d(shape)

    def body(b, x):
        inner = b.one("tensor.reduce_sum", x, axes=[1], keepdims=False)
        return b.one("tensor.reduce_sum", inner, axes=[0], keepdims=False)
    return _function("sample", [TensorType((a, n, 2), "f64")], body)


CONTRACTIONS = [
    Pattern("sum-of-sums", "tensor.reduce_sum", _sum_of_sums,
            "sum_B(sum_A x) -> sum_{A+B} x (one reduction: a contraction over both sets of "
            "axes; the order of the sum changes)", _sum_of_sums_sample),
    Pattern("masked-sum", "tensor.reduce_sum", _masked_sum,
            "sum_K select(m, x, 0) -> select(m, sum_K x, +0.0) when the mask m does not move "
            "along the summed axes K (exact: the same terms are summed where m holds, and "
            "NumPy's and XLA's sums of zeros of either sign are +0.0)", _masked_sum_sample),
    Pattern("sum-of-products", "tensor.reduce_sum", _sum_of_products,
            "reduce_sum(a' * b', K) -> dot_general(a, b) contracting K (a', b': a, b with "
            "unit dims, transposes, broadcasts); the order of the sum changes",
            _sum_of_products_sample),
]


class RaiseContractions(Pass):
    """Sums of products (raised multiply-accumulate nests) become dot_general."""

    name = "raise_contractions"

    @dataclass(frozen=True)
    class Options:
        enabled: bool = True

    def run(self, fn: Function) -> Function:
        if self.options.enabled:
            before = sum(1 for op in fn.walk() if op.name == "tensor.dot_general")
            apply_patterns(fn, CONTRACTIONS)
            made = sum(1 for op in fn.walk() if op.name == "tensor.dot_general") - before
            if made > 0:
                fn.raised.append(f"{made} multiply-and-sum{'s' if made > 1 else ''} became "
                                 "dot_general")
        return fn
