"""VJP rules of the reductions, scans (``solvent.ops.reductions``) and contractions
(``solvent.ops.linalg``).

Identities: d sum = the cotangent broadcast back over the reduced axes; max/min send the
cotangent to the elements equal to the result, shared equally between ties (an equality
mask); prod: ``ct`` times the product of the other elements (``prod / x`` without zeros,
exact with them); cumsum's adjoint is the reversed cumsum of
the reversed cotangent; cumprod's (exact with zeros, no division): ``ct_x[j] = y[j-1] * s[j]``
with ``s[j] = ct[j] + x[j+1] s[j+1]``, a reverse loop over the axis; a running max/min
(cummax/cummin) sends each ``ct[i]`` to the element that y[i] is a copy of, the last
``j <= i`` with ``x[j] == y[j]`` (a record or a tie with it), found as the running max of
``where(x == y, j, -1)`` and summed there by a scatter-add; a contraction's cotangents are the contractions of the cotangent with
the other operand over its free dimensions, transposed back into the operand's layout.
"""
from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import Block, Region
from ..ir.registry import register_vjp
from ..ir.types import TensorType
from ..ops.linalg import _free
from . import emit as E


def _sum(b, op, xs, ys, cts):
    x = xs[0]
    return [E.expand_reduced(b, cts[0], x.type.shape, op.attrs["axes"], op.attrs["keepdims"])]


def _extreme(b, op, xs, ys, cts):
    x, y, ct = xs[0], ys[0], cts[0]
    axes, keep = op.attrs["axes"], op.attrs["keepdims"]
    yb = E.expand_reduced(b, y, x.type.shape, axes, keep)
    mask = b.one("tensor.eq", x, yb)
    ones = b.one("tensor.convert", mask, dtype=x.type.dtype)
    count = b.one("tensor.reduce_sum", ones, axes=list(axes), keepdims=True)
    share = b.one("tensor.div", E.expand_reduced(b, ct, x.type.shape, axes, keep),
                  b.one("tensor.broadcast_to", count, shape=list(x.type.shape))
                  if count.type.shape != x.type.shape else count)
    return [b.one("tensor.mul", share, ones)]


def _prod(b, op, xs, ys, cts):
    """``ct`` times the product of the other elements: ``prod / x`` where no element of the
    group is zero; where one is, the product of the nonzero ones at that element and 0
    elsewhere; where several are, 0 (``prod / x`` was 0 / 0 at a zero: NaN)."""
    x, ct = xs[0], cts[0]
    axes, keep = op.attrs["axes"], op.attrs["keepdims"]
    shape, dt = x.type.shape, x.type.dtype

    def back(v):   # a keepdims reduction's value at every element of its group
        return E.expand_reduced(b, v, shape, axes, True)
    zero, one = b.constant(0, dt), b.constant(1, dt)
    is_zero = b.one("tensor.eq", x, zero)
    nonzero = b.one("tensor.select", is_zero, one, x)
    p = back(b.one("tensor.reduce_prod", nonzero, axes=list(axes), keepdims=True))
    zeros = back(b.one("tensor.reduce_sum", b.one("tensor.convert", is_zero, dtype=dt),
                       axes=list(axes), keepdims=True))
    at_zero = b.one("tensor.select", b.one("tensor.eq", zeros, one), p, zero)
    elsewhere = b.one("tensor.select", b.one("tensor.eq", zeros, zero),
                      b.one("tensor.div", p, nonzero), zero)
    others = b.one("tensor.select", is_zero, at_zero, elsewhere)
    return [b.one("tensor.mul", E.expand_reduced(b, ct, shape, axes, keep), others)]


def _cumsum(b, op, xs, ys, cts):
    axis = op.attrs["axis"]
    r = b.one("tensor.reverse", cts[0], axes=[axis])
    r = b.one("tensor.cumsum", r, axis=axis)
    return [b.one("tensor.reverse", r, axes=[axis])]


def _cumprod(b, op, xs, ys, cts):
    x, y, ct = xs[0], ys[0], cts[0]
    axis, rank = op.attrs["axis"], x.type.rank
    n = x.type.shape[axis]
    if x.type.size == 0:
        return [E.zeros(b, x.type)]
    perm = [axis] + [d for d in range(rank) if d != axis]
    front = (lambda v: v) if axis == 0 else (lambda v: b.one("tensor.transpose", v, perm=perm))
    xt, yt, ctt = front(x), front(y), front(ct)
    rest = xt.type.shape[1:]
    row_t = TensorType((1,) + rest, x.type.dtype)
    full = [["s", 0, d, 1] for d in rest]

    def rows(v, lo, hi):
        return b.create("tensor.slice", [v], {"spec": [["s", lo, hi, 1]] + full}).result
    if n > 1:
        xnext = b.one("tensor.concatenate", rows(xt, 1, n), E.zeros(b, row_t), axis=0)
        excl = b.one("tensor.concatenate", E.fill_like(b, row_t, 1.0), rows(yt, 0, n - 1),
                     axis=0)
    else:
        xnext, excl = E.zeros(b, xt.type), E.fill_like(b, xt.type, 1.0)
    blk = Block()
    lb = Builder(blk)
    t = blk.add_arg(TensorType((), "i64"), "t")
    s_prev = blk.add_arg(TensorType(rest, x.type.dtype), "s")
    out = blk.add_arg(xt.type, "out")
    j = lb.one("tensor.sub", lb.constant(n - 1, "i64"), t)
    at = {"spec": [["i", 0]] + full}
    s_new = lb.one("tensor.add", lb.create("tensor.slice", [ctt, j], at).result,
                   lb.one("tensor.mul", lb.create("tensor.slice", [xnext, j], at).result, s_prev))
    lb.create("loop.yield", [s_new, lb.create("tensor.update_slice", [out, s_new, j], at).result])
    loop = b.create("loop.for", [b.constant(0, "i64"), b.constant(n, "i64"), b.constant(1, "i64"),
                                 E.zeros(b, s_prev.type), E.zeros(b, xt.type)], {},
                    [Region(blk)])
    g = b.one("tensor.mul", excl, loop.results[1])
    if axis != 0:
        g = b.one("tensor.transpose", g, perm=[perm.index(d) for d in range(rank)])
    return [g]


def _dot(b, op, xs, ys, cts):
    """Bilinear: each operand's cotangent contracts ``ct`` with the other operand, conjugated
    for complex values (``ct_a = ct b^H``, rules_complex's convention)."""
    from .rules_complex import conj_if_complex
    a, bb = [conj_if_complex(b, x) for x in xs]
    ct = cts[0]
    lb, rb, lc, rc = (list(op.attrs[k]) for k in ("lhs_batch", "rhs_batch", "lhs_contract",
                                                    "rhs_contract"))
    lf, rf = _free(a.type.rank, lb, lc), _free(bb.type.rank, rb, rc)
    nb = len(lb)
    ct_batch = list(range(nb))
    ct_lf = list(range(nb, nb + len(lf)))
    ct_rf = list(range(nb + len(lf), nb + len(lf) + len(rf)))
    # d a: contract ct's rhs-free dims with b's free dims; left: batch, lf, then b's
    # contracting dims in increasing order (a's lc in that order)
    ga = b.one("tensor.dot_general", ct, bb, lhs_batch=ct_batch, rhs_batch=rb,
               lhs_contract=ct_rf, rhs_contract=rf)
    order_a = lb + lf + [lc[j] for j in sorted(range(len(rc)), key=lambda j: rc[j])]
    ga = _to_layout(b, ga, order_a)
    gb = b.one("tensor.dot_general", ct, a, lhs_batch=ct_batch, rhs_batch=lb,
               lhs_contract=ct_lf, rhs_contract=lf)
    order_b = rb + rf + [rc[j] for j in sorted(range(len(lc)), key=lambda j: lc[j])]
    gb = _to_layout(b, gb, order_b)
    return [ga, gb]


def _to_layout(b, v, order):
    """``v``'s dim ``i`` is the operand's dim ``order[i]``: transpose into the operand's."""
    perm = [order.index(i) for i in range(len(order))]
    if perm == list(range(len(perm))):
        return v
    return b.one("tensor.transpose", v, perm=perm)


def _running_extreme(b, op, xs, ys, cts):
    x, y, ct = xs[0], ys[0], cts[0]
    axis, shape = op.attrs["axis"], list(x.type.shape)
    if x.type.size == 0:
        return [E.zeros(b, x.type)]
    pos = b.one("tensor.iota", shape=shape, dim=axis, dtype="i64")
    record = b.one("tensor.select", b.one("tensor.eq", x, y), pos,
                   b.one("tensor.broadcast_to", b.constant(-1, "i64"), shape=shape))
    source = b.one("tensor.cummax", record, axis=axis)
    idx = [source if d == axis else b.one("tensor.iota", shape=shape, dim=d, dtype="i64")
           for d in range(len(shape))]
    return [b.one("tensor.scatter_add", E.zeros(b, x.type), ct, *idx,
                  axes=list(range(len(shape))))]


for _name, _rule in (("cummax", _running_extreme), ("cummin", _running_extreme),
                     ("reduce_sum", _sum), ("reduce_max", _extreme),
                     ("reduce_min", _extreme), ("reduce_prod", _prod), ("cumsum", _cumsum),
                     ("cumprod", _cumprod),
                     ("dot_general", _dot)):
    register_vjp(f"tensor.{_name}", _rule)


def _matmul(b, x, y):
    """``x @ y`` over the last two dims with leading batch dims (``y`` may be a vector)."""
    r = x.type.rank
    batch = list(range(r - 2))
    if y.type.rank == r - 1:
        return b.one("tensor.dot_general", x, y, lhs_batch=batch, rhs_batch=batch,
                     lhs_contract=[r - 1], rhs_contract=[r - 2])
    return b.one("tensor.dot_general", x, y, lhs_batch=batch, rhs_batch=batch,
                 lhs_contract=[r - 1], rhs_contract=[r - 2])


def _mT(b, x):
    r = x.type.rank
    return b.one("tensor.transpose", x, perm=list(range(r - 2)) + [r - 1, r - 2])


def _inv(b, op, xs, ys, cts):
    # d inv(A) = -Y dA Y  =>  ct_A = -Y^T ct Y^T
    y, ct = _mT(b, ys[0]), cts[0]
    return [b.one("tensor.neg", _matmul(b, _matmul(b, y, ct), y))]


def _solve(b, op, xs, ys, cts):
    # x = A^-1 rhs  =>  ct_rhs = A^-T ct, ct_A = -ct_rhs x^T
    a, rhs = xs
    x, ct = ys[0], cts[0]
    ct_rhs = b.one("tensor.solve", _mT(b, a), ct)
    if x.type.rank == 1:
        outer = b.one("tensor.dot_general", ct_rhs, x, lhs_batch=[], rhs_batch=[],
                      lhs_contract=[], rhs_contract=[])
    else:
        outer = _matmul(b, ct_rhs, _mT(b, x))
    return [b.one("tensor.neg", outer), ct_rhs]


def _det(b, op, xs, ys, cts):
    # d det(A) = det(A) tr(A^-1 dA)  =>  ct_A = ct det(A) A^-T
    a, d, ct = xs[0], ys[0], cts[0]
    s = b.one("tensor.mul", ct, d)
    shape = list(a.type.shape)
    s = b.one("tensor.reshape", s, shape=shape[:-2] + [1, 1])
    s = b.one("tensor.broadcast_to", s, shape=shape)
    return [b.one("tensor.mul", s, _mT(b, b.one("tensor.inv", a)))]


def _slogdet(b, op, xs, ys, cts):
    # d log|det A| = tr(A^-1 dA)  =>  ct_A = ct_logdet A^-T; the sign is piecewise constant
    a, ct = xs[0], cts[1]
    if ct is None:
        return [None]
    shape = list(a.type.shape)
    s = b.one("tensor.reshape", ct, shape=shape[:-2] + [1, 1])
    s = b.one("tensor.broadcast_to", s, shape=shape)
    return [b.one("tensor.mul", s, _mT(b, b.one("tensor.inv", a)))]


for _name, _rule in (("inv", _inv), ("solve", _solve), ("det", _det), ("slogdet", _slogdet)):
    register_vjp(f"tensor.{_name}", _rule)
