"""Two matrix-vector products of one matrix in one pass over it (``s = r @ A; q = A @ p``,
PolyBench's bicg and mvt; ``A @ x`` and ``A @ y``).

A matrix-vector product of a large matrix is memory-bound: BLAS gemv streams the matrix once,
so two products stream it twice. When a product is lowered and a later product of the same
block reads the same matrix (through transposes or not) with a vector already computed, both
are computed here in one loop over the matrix rows: a row product (``A @ v``, contracted over
the stored matrix's columns) is a dot per row, a column product (``v @ A``, ``A.T @ v``) adds
``v[i] * A[i, :]`` into its result; the later product's rule then finds its result made.

Identity: every result element is the same sum of the same products as gemv's, summed in
another order (float sums reassociated, as BLAS does). Safe to compute early: the later
product's vector is defined before the earlier product, its result is a buffer of its own
(the bufferizer gives every product a new one), and the matrix is an SSA value, so no op in
between writes it.

Measured (CPU time, least of 7, OPENBLAS_NUM_THREADS=1, the 2-core host under load): bicg
at 3504 x 3500 float64, NumPy's two dgemv 10.2 ms, two native dgemv 9.2 ms, this pass with
one row at a time 8.5 ms (vectorized, but each column result loaded and stored per matrix
element), with ``ROWS`` = 4 rows at a time 5.4 ms; mvt 14.1 -> 4.7 ms; 1000 x 1000 (in
cache) 0.26 -> 0.18 ms. Only for matrices of at least ``MIN_ELEMENTS``. The pass runs on
one thread, where OpenBLAS's gemv may use several.
"""
from __future__ import annotations

from ...ir.core import Operation
from ...passes.patterns.products import matrix_base
from . import scalar_math
from llvmlite import ir

from .context import BufRef
from .types import I64, const

MIN_ELEMENTS = 1 << 18


def _matvec(op: Operation):
    """(base matrix value, 'row' | 'col', vector value) of a static float matrix-vector
    product without batch dims, else None."""
    if op.name != "tensor.dot_general" or op.attrs["lhs_batch"] or \
            len(op.attrs["lhs_contract"]) != 1:
        return None
    a, b = op.operands
    if not (a.type.static and b.type.static) or a.type.dtype not in ("f32", "f64"):
        return None
    if a.type.rank == 2 and b.type.rank == 1:
        m, v, (c,) = a, b, op.attrs["lhs_contract"]
    elif a.type.rank == 1 and b.type.rank == 2:
        m, v, (c,) = b, a, op.attrs["rhs_contract"]
    else:
        return None
    base, flipped = matrix_base(m)
    stored = 1 - c if flipped else c      # the contracted dim of the stored matrix
    return base, ("row" if stored == 1 else "col"), v


def _available(v, op: Operation) -> bool:
    """``v`` is computed before ``op`` (an argument, an outer value or an earlier op)."""
    d = v.owner if isinstance(v.owner, Operation) else None
    if d is None or d.parent is not op.parent:
        return True
    ops = op.parent.ops
    return ops.index(d) < ops.index(op)


def _partner(op: Operation, mine):
    base, _, _ = mine
    ops = op.parent.ops
    for later in ops[ops.index(op) + 1:]:
        other = _matvec(later)
        if other is not None and other[0] is base and \
                later.operands[0].type.dtype == op.operands[0].type.dtype and \
                _available(other[2], op):
            return later, other
    return None


def lower_pair(op: Operation, ctx) -> bool:
    """Lower ``op`` together with a later product of the same matrix; False if there is
    none (or the operands are not plain buffers here)."""
    mine = _matvec(op)
    if mine is None or ctx.tid is not None:
        return False
    base = mine[0]
    if base.type.shape[0] * base.type.shape[1] < MIN_ELEMENTS:
        return False
    found = _partner(op, mine)
    if found is None:
        return False
    later, theirs = found
    S = ctx.get(base)
    vecs = [ctx.get(mine[2]), ctx.get(theirs[2])]
    if not isinstance(S, BufRef) or S.run_strides is not None or \
            not all(isinstance(v, BufRef) for v in vecs):
        return False
    outs = [ctx.out(op), ctx.out(later)]
    _one_pass(ctx, S, [(mine[1], vecs[0], outs[0]), (theirs[1], vecs[1], outs[1])])
    ctx.paired[later] = outs[1]
    return True


def _one_pass(ctx, S, products):
    """Row products ``y[i] = S[i, :] . v`` and column products ``y += v[i] * S[i, :]``,
    ``ROWS`` rows of ``S`` at a time in one inner loop along them (each element of a vector
    loaded once for the rows, each column result read and written once), then the rows left
    over one at a time."""
    R, C = S.shape
    dt = S.dtype
    for kind, _, y in products:
        if kind == "col":
            ctx.counted_loop(C, lambda j, y=y: ctx.store(y, [j], const(dt, 0)))
    full = R - R % ROWS
    b = ctx.b
    if full:
        ctx.counted_loop(full // ROWS, lambda q: _rows(ctx, S, products, b.mul(
            q, ir.Constant(I64, ROWS)), ROWS))
    if R - full:
        ctx.counted_loop(R - full, lambda q: _rows(ctx, S, products, b.add(
            q, ir.Constant(I64, full)), 1))


ROWS = 4


def _rows(ctx, S, products, i0, n):
    b, dt = ctx.b, S.dtype
    C = S.shape[1]
    rows = [i0 if u == 0 else b.add(i0, ir.Constant(I64, u)) for u in range(n)]
    accs, scale = {}, {}
    for k, (kind, v, _) in enumerate(products):
        if kind == "row":
            accs[k] = [ctx.slot(dt) for _ in rows]
            for a in accs[k]:
                b.store(const(dt, 0), a)
        else:
            scale[k] = [ctx.load(v, [i]) for i in rows]

    def fma(x, y, acc, flags):
        p = scalar_math.mul(ctx, dt, x, y)
        t = scalar_math.add(ctx, dt, acc, p)
        p.flags.extend(flags)
        t.flags.extend(flags)
        return t

    def col(j):
        elems = [ctx.load(S, [i, j]) for i in rows]
        for k, (kind, v, y) in enumerate(products):
            if kind == "row":
                vj = ctx.load(v, [j])
                for a, e in zip(accs[k], elems):
                    b.store(fma(e, vj, b.load(a), ["reassoc", "contract"]), a)
            else:
                t = ctx.load(y, [j])
                for c, e in zip(scale[k], elems):
                    t = fma(c, e, t, ["contract"])
                ctx.store(y, [j], t)
    ctx.counted_loop(C, col)
    for k, (kind, _, y) in enumerate(products):
        if kind == "row":
            for i, a in zip(rows, accs[k]):
                ctx.store(y, [i], b.load(a))
