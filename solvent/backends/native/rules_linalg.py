"""Lowering rule of ``tensor.dot_general``: BLAS gemm (gemv for a matrix-vector product,
syrk for a matrix times its own transpose) for float32/float64 and (``complex_products``)
complex64/complex128, a loop nest otherwise.

Identity: with the operands viewed as batched matrices ``a[B, M, K]`` (dims lhs_batch,
lhs_free, lhs_contract) and ``b[B, K, N]`` (rhs_batch, rhs_contract, rhs_free), the result is
``c[B, M, N] = a @ b`` per batch, in C order. A row-major ``c = a @ b`` is the column-major
``c^T = b^T a^T``, which is what is passed to Fortran gemm. An operand already in that order
(or its transpose) is passed as it is; any other layout is first copied into that order.

BLAS is the library NumPy's own matmul calls (``blas_library``: NumPy's bundled
scipy-openblas64, 64-bit integers), else SciPy's ``cython_blas``, bound to LLVM symbols once;
without either every dtype takes the loop nest.

Which product runs how (issue 9), measured with ``benchmarks/products.py --clock cpu --stat
min`` (every side on one thread) and the dot-dominated corpus kernels:

- the same product computed twice, once spelled transposed (``A.T @ B + B.T @ A``): once,
  and its transpose (``passes/patterns/products.py``, every backend);
- float32/float64 with a static shape, on the native backend: ``M*N*K < 512`` an inline loop
  nest; a matrix times its own transpose: syrk (half the multiply-adds, as NumPy's matmul);
  one free dim of size 1: gemv, or with a later product of the same matrix of at least
  2^18 elements one pass over it for both (``matvec_pairs.py``); otherwise gemm, one call per
  batch. An operand that is a window of an array (``x[:, k:k + n]``, a column, a strided
  vector: ``blas_window``) is read in place with its row stride as leading dim, and a product
  added into a buffer it may overwrite (``out += A @ B``) is one gemm with beta = 1
  (``accumulate_products.py``; conv1d 0.9x -> 2.4-2.6x NumPy), ``C *= beta; C += A @ B``
  one gemm with that beta; an operand ``s * X`` computed where the product reads it is read
  as ``X`` with ``s`` BLAS's alpha (``_scale_into_alpha``). A function dominated by such
  products goes native (``choice.dot_work``; float32
  products of 2^26 multiply-adds and more used to stay on XLA, no longer faster there:
  ``choice.XLA_FASTER``);
- complex products (issue 8) are BLAS calls on the native backend whatever their size
  (``complex_products.py``: zgemm/cgemm, zgemv/cgemv, zsyrk/csyrk, a conjugated operand as
  the 'C' flag). XLA:CPU ran them at 0.02-0.7x NumPy (its complex matrix-vector products
  0.02-0.3x, its 1024^3 product 0.5-0.6x, and every call below about 64^3 pays its ~20-30 us
  dispatch); natively 0.6-1.1x at 256 and 1024, 0.3-0.8x at 16 (the call's few us).
  Integer products stay on XLA;
- below about 64^2 (matrix-vector) or 64^3 (matrix-matrix) any backend is 0.3-0.8x: NumPy's
  call costs 1-2 us, a compiled call 3-5 us natively (argument checks, the cache look-up),
  whatever the product.
"""
from __future__ import annotations

from llvmlite import ir

from ...ir.core import Operation
from .complex_products import complex_dot
from .context import BufRef, Lazy
from .matvec_pairs import lower_pair
from .types import I8, I64, const, is_complex, reg_type
from . import blas_library, scalar_math

_BLAS: dict | None = None


def blas_symbols() -> dict:
    """{'f64': 'solvent_d', 'f32': 'solvent_s', 'c128': 'solvent_z', 'c64': 'solvent_c'}:
    prefixes of the bound gemm/gemv/syrk symbols (``blas_library``: NumPy's own BLAS, else
    SciPy's); empty without a BLAS."""
    global _BLAS
    if _BLAS is None:
        _BLAS = {}
        for dt, prefix in (("f64", "d"), ("f32", "s"), ("c128", "z"), ("c64", "c")):
            for kind in ("gemm", "gemv", "syrk"):
                if not blas_library.bind(f"solvent_{prefix}{kind}", prefix + kind):
                    return _BLAS
            _BLAS[dt] = f"solvent_{prefix}"
    return _BLAS


def blas_int(ctx, v):
    """``v`` (an int, or an integer register) as the bound library's integer
    (``blas_library.int_type``: i64 for NumPy's scipy-openblas64, i32 for SciPy's)."""
    t = blas_library.int_type()
    if isinstance(v, int):
        return ir.Constant(t, v)
    if v.type.width > t.width:
        return ctx.b.trunc(v, t)
    return ctx.b.sext(v, t) if v.type.width < t.width else v


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _free(rank, *used):
    taken = {a for group in used for a in group}
    return [a for a in range(rank) if a not in taken]


def blas_window(op) -> bool:
    """Whether ``op`` is a slice that a BLAS product may read in place, where it lies (the
    bufferization then fuses it into the product instead of copying it out): a real float
    window of one array with positive steps and no new axis, a vector (any stride) or a
    matrix whose rows keep unit stride (the source's last dim kept with step 1), as
    ``x[:, k:k + n]``. Whether it is read in place is decided where the product is lowered
    (``_in_place``); otherwise it is copied there, as it would have been before."""
    if op.name != "tensor.slice" or op.results[0].type.dtype not in ("f32", "f64"):
        return False
    spec, rank = op.attrs["spec"], op.results[0].type.rank
    if len(spec) != op.operands[0].type.rank or any(
            it[0] == "n" or it[0] in "sr" and it[3] <= 0 for it in spec):
        return False
    last = spec[-1]
    return rank == 1 or rank == 2 and (last[0] == "d" or last[0] in "sr" and last[3] == 1)


def blas_scaled(op) -> bool:
    """Whether ``op`` is ``s * x`` (or ``x * s``) that a BLAS product may read as ``x`` with
    ``s`` its alpha (``_scale_into_alpha``): a real float tensor.mul of a scalar of the
    result's dtype and an array of the result's type. Fused into the product (the
    bufferization), it is never written out; a product that does not call BLAS copies it
    where it is read, as it would have been written before."""
    if op.name != "tensor.mul" or op.results[0].type.dtype not in ("f32", "f64"):
        return False
    (p, q), t = op.operands, op.results[0].type
    return any(sc.type.rank == 0 and sc.type.dtype == t.dtype and x.type == t
               for sc, x in ((p, q), (q, p)))


def _unit(s) -> bool:
    return s == 1 if isinstance(s, int) else (isinstance(s, ir.Constant) and s.constant == 1)


def _in_place(x: Lazy, vector_ok: bool):
    """A buffer reference to a fused window ``x`` that BLAS reads in place (its row stride
    the leading dim, a vector's stride the increment), or None."""
    if x.view is None:
        return None
    ptr, strides = x.view
    if len(strides) == 2 and _unit(strides[1]) or len(strides) == 1 and (
            vector_ok or _unit(strides[0])):
        return BufRef(ptr, tuple(x.shape), x.dtype, tuple(strides))
    return None


def _row_stride(ctx, ref, default):
    """The leading dim BLAS is given for a stored matrix: its row stride for a window read in
    place (a ``blas_int``), ``default`` for a C-ordered buffer."""
    if ref.run_strides is None or len(ref.shape) != 2:
        return blas_int(ctx, max(1, default))
    s = ref.run_strides[0]
    if isinstance(s, int):
        return blas_int(ctx, max(1, s))
    # a window's row stride is at least its row length, but a one-row window may have
    # any: BLAS wants at least 1
    s = ctx.b.select(ctx.b.icmp_signed("<", s, ir.Constant(I64, 1)), ir.Constant(I64, 1), s)
    return blas_int(ctx, s)


def _arranged(ctx, op, v, order, alt, views=False):
    """(buffer, transposed) with ``v``'s dims in ``order`` (or in ``alt``, transposed).
    ``views``: a fused window may be returned as it lies (``_in_place``; "vector": a vector
    of any stride); a fused value otherwise is copied in ``order``."""
    from .rules_structural import Transposed
    ref = ctx.get(v)
    rank = len(v.type.shape)
    if rank == 0:   # a scalar operand (a product with nothing contracted) is a register
        tmp = ctx.scratch(op, (1,), v.type.dtype)
        ctx.store(tmp, [0], ref)
        return tmp, False
    if isinstance(ref, Lazy):
        view = _in_place(ref, views == "vector") if views else None
        if view is None:
            return copy_in_order(ctx, op, ref, order, tuple(ref.shape[d] for d in order),
                                 v.type.dtype), False
        ref = view
    if isinstance(ref, Transposed):    # read the source: value dim d is source dim perm[d]
        order = [ref.perm[d] for d in order]
        alt = [ref.perm[d] for d in alt]
        ref = ref.src
    if order == list(range(rank)):
        return ref, False
    if alt == list(range(rank)):
        return ref, True
    return copy_in_order(ctx, op, ref, order, tuple(ref.shape[d] for d in order),
                         v.type.dtype), False


def copy_in_order(ctx, op, ref, order, shape, dtype):
    """A scratch buffer of ``shape`` holding array ``ref`` (a buffer or a fused value) with
    its dims in ``order``."""
    tmp = ctx.scratch(op, shape, dtype)

    def body(idx):
        src = [None] * len(order)
        for k, d in enumerate(order):
            src[d] = idx[k]
        ctx.store(tmp, idx, ctx.element(ref, src))
    ctx.loop_nest(shape, body)
    return tmp


def _runtime_dot(op, ctx):
    """A product with run-time lengths (vector @ vector, matrix @ vector, vector @ matrix,
    matrix @ matrix; no batch dims): for each result element one inline loop over the
    contracted dim (reassociable float sums, which LLVM vectorizes), reading both operands
    element by element (a fused slice is never copied). The loop runs to the shorter of the
    two contracted lengths: the frontend checks that they agree, and where that check failed
    (its error is raised, this result never seen) no read leaves either operand."""
    a, b = op.operands
    x, y = ctx.get(a), ctx.get(b)
    (ca,), (cb,) = op.attrs["lhs_contract"], op.attrs["rhs_contract"]
    fa, fb = _free(a.type.rank, [ca]), _free(b.type.rank, [cb])
    da, db = ctx.dims(a), ctx.dims(b)
    k_len = ctx.as_value(ctx.smin(da[ca], db[cb]))
    dt = a.type.dtype
    acc = ctx.slot(dt)

    def one(idx):
        ctx.b.store(const(dt, 0), acc)
        ia, ib = idx[:len(fa)], idx[len(fa):]

        def step(k):
            sa, sb = [None] * a.type.rank, [None] * b.type.rank
            for d, i in zip(fa, ia):
                sa[d] = i
            for d, i in zip(fb, ib):
                sb[d] = i
            sa[ca], sb[cb] = k, k
            prod = scalar_math.mul(ctx, dt, ctx.element(x, sa), ctx.element(y, sb))
            s = scalar_math.add(ctx, dt, ctx.b.load(acc), prod)
            if dt[0] == "f":
                prod.flags.extend(["reassoc", "contract"])
                s.flags.extend(["reassoc", "contract"])
            ctx.b.store(s, acc)
        ctx.counted_loop(k_len, step)
        return ctx.b.load(acc)
    if op.results[0].type.rank == 0:
        return [one([])]
    shape = tuple(da[d] for d in fa) + tuple(db[d] for d in fb)
    out = ctx.out(op, shape=shape)
    if _runtime_gemv(ctx, op, x, y, da, db, k_len, out):
        return [out]
    if a.type.rank == 1 and b.type.rank == 2 and cb == 0:
        _vector_matrix(ctx, dt, x, y, k_len, shape[0], out)
        return [out]
    ctx.loop_nest(shape, lambda idx: ctx.store(out, idx, one(list(idx))))
    return [out]


def _strided(ctx, v):
    """(pointer, strides) of a lowered array read in place: a buffer, or a fused slice of one
    (``Lazy.view``); None for anything computed element by element."""
    if isinstance(v, BufRef):
        return v.ptr, list(v.strides)
    if isinstance(v, Lazy) and v.view is not None:
        return v.view
    return None


def _runtime_gemv(ctx, op, x, y, da, db, k_len, out) -> bool:
    """A matrix-vector or vector-matrix product with run-time lengths whose operands are
    windows of buffers (``A[i + 1:, :i] @ A[:i, i]``, ``A[i, :i] @ A[:i, i:]``) is one BLAS
    gemv call on them in place, with the run-time lengths, leading dim and increments (NumPy
    calls the same routine on the same strided views). The matrix needs unit stride along
    its rows; the vector any positive stride. A zero contracted length gives zeros (gemv
    returns without touching the result then). False where the operands do not fit."""
    a, b = op.operands
    dt = a.type.dtype
    sym = blas_symbols().get(dt)
    if sym is None or sorted((a.type.rank, b.type.rank)) != [1, 2]:
        return False
    mat, vec, dm, c_mat = (y, x, db, op.attrs["rhs_contract"][0]) if b.type.rank == 2 \
        else (x, y, da, op.attrs["lhs_contract"][0])
    mv, vv = _strided(ctx, mat), _strided(ctx, vec)
    # slices with positive steps of C-ordered buffers: positive strides, run-time or not
    if mv is None or vv is None or mv[1][1] != 1:
        return False
    free, ld = dm[1 - c_mat], mv[1][0]
    bld = ctx.b
    bi = lambda v: blas_int(ctx, ctx.as_value(v))   # noqa: E731
    cell = _cells(ctx)
    t = reg_type(dt)
    # row-major (R x C, row stride s) is column-major (C x R, ld s): a contraction over the
    # rows (c_mat == 0) is 'N' on it, over the columns 'T'
    m, n = (free, k_len) if c_mat == 0 else (k_len, free)
    ld = ctx.as_value(ld)
    ld = bld.select(bld.icmp_signed("<", ld, ir.Constant(I64, 1)), ir.Constant(I64, 1), ld)
    fn = _declare(ctx, sym + "gemv", dt, "ciippipippi")
    with bld.if_else(bld.icmp_signed("==", k_len, ir.Constant(I64, 0))) as (empty, full):
        with empty:
            ctx.counted_loop(ctx.as_value(free), lambda j: ctx.store(out, [j], const(dt, 0)))
        with full:
            bld.call(fn, [cell(I8, ir.Constant(I8, ord("N" if c_mat == 0 else "T"))),
                          cell(None, bi(m)), cell(None, bi(n)), cell(t, const(dt, 1.0)),
                          mv[0], cell(None, bi(ld)), vv[0], cell(None, bi(vv[1][0])),
                          cell(t, const(dt, 0.0)), out.ptr, cell(None, bi(1))])
    return True


def _vector_matrix(ctx, dt, x, y, k_len, n, out):
    """``out[j] = sum_k x[k] * y[k, j]`` row by row (``out += x[k] * y[k, :]``), so the
    inner loop runs along the contiguous rows of ``y`` (LLVM vectorizes it)."""
    ctx.loop_nest((n,), lambda j: ctx.store(out, j, const(dt, 0)))

    def row(k):
        xk = ctx.element(x, [k])

        def col(j):
            s = scalar_math.add(ctx, dt, ctx.load(out, [j]),
                                scalar_math.mul(ctx, dt, xk, ctx.element(y, [k, j])))
            ctx.store(out, [j], s)
        ctx.counted_loop(ctx.as_value(n), col)
    ctx.counted_loop(k_len, row)


def runtime_dot_ok(op) -> bool:
    """The products with run-time lengths the native backend runs: one contracted dim, no
    batch dims, operands of rank 1 or 2."""
    return (not op.attrs["lhs_batch"] and len(op.attrs["lhs_contract"]) == 1
            and all(1 <= v.type.rank <= 2 for v in op.operands))


# a static real product of fewer multiply-adds is an inline loop nest (gemm's call and
# packing cost more than the product); one that adds itself into a buffer
# (accumulate_products.py: a tiled matmul's ``acc += sA @ sB`` per tile) up to
# ACCUMULATED_INLINE multiply-adds too. Measured on solvent.kernel's matmul_tiled at 512
# lowered on the IR (16^3 tiles, one thread, CPU ms, loaded host): gemm per tile 22.4-26.5,
# inline 19.9-23.0 (the AST lowering, which keeps the loops, 17.3-19.6 in the same runs).
# A product alone at 16^3-20^3 was slower inline
# (benchmarks/products.py --sizes 16,20 --kinds mm --backends native: 0.67-0.72x NumPy ->
# 0.40-0.55x), so the threshold stays there for those
INLINE_BELOW = 512
ACCUMULATED_INLINE = 4096


def _dot(op, ctx):
    if op in ctx.paired:          # computed in one pass with an earlier product
        return [ctx.paired.pop(op)]
    if lower_pair(op, ctx):
        return [ctx.out(op)]
    a, b = op.operands
    if not (a.type.static and b.type.static):
        return _runtime_dot(op, ctx)
    lb, rb, lc, rc = (list(op.attrs[k]) for k in ("lhs_batch", "rhs_batch", "lhs_contract",
                                                   "rhs_contract"))
    lf, rf = _free(a.type.rank, lb, lc), _free(b.type.rank, rb, rc)
    dt = a.type.dtype
    B = _prod(a.type.shape[d] for d in lb)
    M = _prod(a.type.shape[d] for d in lf)
    K = _prod(a.type.shape[d] for d in lc)
    N = _prod(b.type.shape[d] for d in rf)
    res = op.results[0]
    scalar_out = res.type.rank == 0
    out = ctx.scratch(op, (1,), dt) if scalar_out else ctx.out(op)
    sym = blas_symbols().get(dt)
    orders = ((lb + lf + lc, lb + lc + lf), (rb + rc + rf, rb + rf + rc))
    if is_complex(dt):
        complex_dot(ctx, op, sym, dt, B, M, N, K, orders, out)
        return [ctx.load(out, [0])] if scalar_out else [out]
    if row_dots(op):   # read each operand where it lies (a fused gather: computed here)
        _row_dots(ctx, dt, a.type.shape[:-1], K, ctx.get(a), ctx.get(b), out)
        return [out]
    small = M * N * K <= ACCUMULATED_INLINE if op in ctx.plan.accumulate \
        else M * N * K < INLINE_BELOW
    blas = sym is not None and not small and not (M == 1 and N == 1)
    # BLAS reads a fused window (``x[:, k:k + n]``) where it lies, a gemv's vector with its
    # stride; anything else fused is copied in the order the call needs
    gemv = blas and (M == 1 or N == 1)
    views = blas and B == 1 and ("vector" if gemv else True)
    alpha = None
    if blas:   # ``alpha * A @ B``: A read as it is, alpha BLAS's own
        a, b, alpha = _scale_into_alpha(ctx, op, a, b)
    A, ta = _arranged(ctx, op, a, *orders[0], views=views)
    Bm, tb = _arranged(ctx, op, b, *orders[1], views=views)
    if M == 1 and N == 1:
        _dots(ctx, dt, B, K, A, Bm, out)
    elif gemv:
        _gemv(ctx, sym + "gemv", dt, B, M, N, K, A, ta, Bm, tb, out, alpha=alpha)
    elif blas and B == 1 and A.ptr is Bm.ptr and ta != tb and op not in ctx.plan.accumulate:
        _syrk(ctx, sym + "syrk", dt, M, K, A, ta, out, alpha=alpha)
    elif blas:   # out already holds the sum's other term: C += A B (accumulate_products.py)
        if op in ctx.plan.accumulate:
            where = f" at {op.loc}" if op.loc is not None else ""
            ctx.notes.append(f"a {M}x{K} @ {K}x{N} product adds itself into the sum's buffer"
                             f"{where} (gemm, beta = "
                             f"{'its scalar' if op in ctx.plan.accumulate_beta else 1}): "
                             "no temporary")
        beta = ctx.plan.accumulate_beta.get(op)
        _gemm(ctx, sym + "gemm", dt, B, M, N, K, A, ta, Bm, tb, out,
              beta=ctx.get(beta) if beta is not None else
              1.0 if op in ctx.plan.accumulate else 0.0, alpha=alpha)
    else:   # out may hold the sum's other term: C += A B inline (accumulate_products.py)
        beta = ctx.plan.accumulate_beta.get(op)
        _loops(ctx, dt, B, M, N, K, A, ta, Bm, tb, out,
               beta=ctx.get(beta) if beta is not None else
               1.0 if op in ctx.plan.accumulate else 0.0)
    if scalar_out:
        return [ctx.load(out, [0])]
    return [out]


def _scale_into_alpha(ctx, op, a, b):
    """(a', b', alpha): an operand ``s * x`` (or ``x * s``) computed where the product reads
    it (a fused tensor.mul of a scalar of the product's dtype and an array of the operand's
    type) is read as ``x``, and ``s`` becomes BLAS's alpha (the product of both sides'
    scalars); alpha None where neither is scaled. ``alpha * A @ B`` then skips a pass that
    writes the scaled copy of A (gemm corpus kernel, 1000x1005 float64: 60.5 -> 55 ms, NumPy
    61; /tmp script). The same products, scaled after the sum instead of before: equal to
    the other order up to rounding (an ulp or so of the result, as BLAS's own blocking)."""
    alpha = None
    ops = [a, b]
    for side, v in enumerate(ops):
        m = v.owner
        if not (isinstance(m, Operation) and m in ctx.plan.fused and blas_scaled(m)):
            continue
        p, q = m.operands
        for sc, x in ((p, q), (q, p)):
            if sc.type.rank == 0 and sc.type.dtype == v.type.dtype and x.type == v.type:
                ops[side] = x
                s = ctx.get(sc)
                alpha = s if alpha is None else scalar_math.mul(ctx, v.type.dtype, alpha, s)
                where = f" at {op.loc}" if op.loc is not None else ""
                ctx.notes.append(f"a product's scaled operand{where} is read unscaled, its "
                                 "scalar passed as BLAS's alpha: no scaled copy")
                break
    return ops[0], ops[1], alpha


def _cells(ctx):
    """cell(type, value): a stack slot holding ``value`` (Fortran BLAS takes every argument
    by pointer); type None: ``value``'s own."""
    def cell(ty, value):
        s = ctx.alloca_builder.alloca(ty or value.type)
        ctx.b.store(value, s)
        return s
    return cell


def _declare(ctx, sym, dt, sig):
    """The BLAS routine ``sym`` of ``dt``, its Fortran arguments spelled by ``sig``: c a
    character, i an int, p a ``dt`` array or scalar (all by pointer)."""
    ptr = ir.PointerType(reg_type(dt))
    kinds = {"c": ir.PointerType(I8), "i": ir.PointerType(blas_library.int_type()), "p": ptr}
    fty = ir.FunctionType(ir.VoidType(), [kinds[c] for c in sig])
    blas_library.note(ctx)
    return ctx.module.globals.get(sym) or ir.Function(ctx.module, fty, name=sym)


def _gemm(ctx, sym, dt, B, M, N, K, A, ta, Bm, tb, out, ca=False, cb=False, beta=0.0,
          alpha=None):
    """``ca``/``cb``: the transposed operand is conjugated too (BLAS 'C', complex only);
    ``beta``: 1.0 adds the product to what ``out`` holds; ``alpha``: a register scaling the
    product (None: 1)."""
    b = ctx.b
    t = reg_type(dt)
    fn = _declare(ctx, sym, dt, "cciiippipippi")
    cell = _cells(ctx)
    opb = cell(I8, ir.Constant(I8, ord("C" if cb else "T" if tb else "N")))
    opa = cell(I8, ir.Constant(I8, ord("C" if ca else "T" if ta else "N")))
    m, n, k = (cell(None, blas_int(ctx, x)) for x in (N, M, K))
    ldb = cell(None, _row_stride(ctx, Bm, K if tb else N))
    lda = cell(None, _row_stride(ctx, A, M if ta else K))
    ldc = cell(None, blas_int(ctx, max(1, N)))
    alpha = cell(t, const(dt, 1.0) if alpha is None else alpha)
    beta = cell(t, const(dt, beta) if isinstance(beta, float) else beta)
    def per_batch(q):  # one call per batch, in a loop (thousands of batches stay one call)
        pa = b.gep(A.ptr, [b.mul(q, ir.Constant(I64, M * K))])
        pb = b.gep(Bm.ptr, [b.mul(q, ir.Constant(I64, K * N))])
        pc = b.gep(out.ptr, [b.mul(q, ir.Constant(I64, M * N))])
        b.call(fn, [opb, opa, m, n, k, alpha, pb, ldb, pa, lda, beta, pc, ldc])
    ctx.counted_loop(B, per_batch)


def _syrk(ctx, sym, dt, M, K, X, tx, out, alpha=None):
    """``X^T X`` or ``X X^T`` of one buffer (a Gram matrix): syrk computes one triangle (half
    the multiply-adds of gemm, as NumPy's own matmul does for these operands), then the other
    triangle is copied across. Row-major ``c = X^T X`` with ``X`` stored (K, M) is the
    column-major ``Xc Xc^T`` with ``Xc`` (M x K, ld M): trans 'N'; ``c = X X^T`` with ``X``
    stored (M, K) is ``Xc^T Xc`` with ``Xc`` (K x M, ld K): trans 'T'. Column-major 'L' is the
    row-major upper triangle, copied to the lower one. 'L' as NumPy's own call (row-major
    upper): OpenBLAS 0.3.30's 'U' with trans 'N' (``X.T @ X`` of a C-ordered X) ran 1.1-2x
    slower (``--clock cpu``, one thread, float32 3000x500: U 20.8 / L 11.0 ms, NumPy 9.7;
    float64: 32.4 / 23.9, NumPy 24.3); with trans 'T' 'L' is as fast or faster."""
    b = ctx.b
    t = reg_type(dt)
    fn = _declare(ctx, sym, dt, "cciippippi")
    cell = _cells(ctx)
    uplo = cell(I8, ir.Constant(I8, ord("L")))
    trans = cell(I8, ir.Constant(I8, ord("N" if tx else "T")))
    n, k = cell(None, blas_int(ctx, M)), cell(None, blas_int(ctx, K))
    lda = cell(None, _row_stride(ctx, X, M if tx else K))
    ldc = cell(None, blas_int(ctx, max(1, M)))
    b.call(fn, [uplo, trans, n, k, cell(t, const(dt, 1.0) if alpha is None else alpha), X.ptr,
                lda,
                cell(t, const(dt, 0.0)), out.ptr, ldc])
    c2 = BufRef(out.ptr, (M, M), dt)

    def row(i):   # c[i, j] = c[j, i] for j < i
        ctx.counted_loop(i, lambda j: ctx.store(c2, [i, j], ctx.load(c2, [j, i])))
    ctx.counted_loop(M, row)


def row_dots(op) -> bool:
    """``c[q..] = sum_k a[q.., k] * b[q.., k]``: two real static arrays of rank >= 2, batched
    on every dim but the last and contracted on the last (raising's ``s += vals[i, k] *
    x[cols[i, k]]``; a layer norm's ``v += d * d`` over the rows of [b, i, j])."""
    a, b = op.operands
    r = a.type.rank
    lead = list(range(r - 1))
    return r >= 2 and all(v.type.rank == r and v.type.static and v.type.dtype[0] == "f"
                          for v in (a, b)) and \
        [list(op.attrs[k]) for k in ("lhs_batch", "lhs_contract", "rhs_batch",
                                     "rhs_contract")] == [lead, [r - 1], lead, [r - 1]]


def _row_dots(ctx, dt, batch, K, x, y, out):
    """``out[q..] = sum_k x[q.., k] * y[q.., k]`` over the batch index ``q..`` of shape
    ``batch``, inline, reading each operand element by element (a buffer or a fused value:
    spmv_ell_loops' gathered ``x[cols]``, a layer norm's ``x - mean`` are never written out).
    Float sums may be reassociated (as BLAS ddot does), which lets LLVM vectorize the loop."""
    b = ctx.b
    c1 = BufRef(out.ptr, tuple(batch), dt)
    acc = ctx.slot(dt)

    def per_batch(q):
        b.store(const(dt, 0), acc)

        def step(k):
            prod = scalar_math.mul(ctx, dt, ctx.element(x, q + [k]), ctx.element(y, q + [k]))
            s = scalar_math.add(ctx, dt, b.load(acc), prod)
            if dt[0] == "f":
                prod.flags.extend(["reassoc", "contract"])
                s.flags.extend(["reassoc", "contract"])
            b.store(s, acc)
        ctx.counted_loop(K, step)
        ctx.store(c1, q, b.load(acc))
    ctx.loop_nest(list(batch), per_batch)


def _dots(ctx, dt, B, K, A, Bm, out):
    """Vector dot products inline, of buffers arranged as (B, K)."""
    _row_dots(ctx, dt, (B,), K, BufRef(A.ptr, (B, K), dt), BufRef(Bm.ptr, (B, K), dt), out)


def _gemv(ctx, sym, dt, B, M, N, K, A, ta, Bm, tb, out, conj=False, alpha=None):
    """A product with one free dim of size 1 is a matrix-vector product: gemv (gemm would
    pack the whole matrix first). ``conj``: the matrix is conjugated too, where gemv takes
    it transposed ('C', complex only)."""
    b = ctx.b
    t = reg_type(dt)
    fn = _declare(ctx, sym, dt, "ciippipippi")
    cell = _cells(ctx)
    if N == 1:   # c[M] = A[M, K] @ v[K]
        mat, vec, stored_t, rows, cols, mat_size = A, Bm, ta, M, K, M * K
        vec_size = K
    else:        # c[N] = v[K] @ B[K, N] = B^T v
        mat, vec, stored_t, rows, cols, mat_size = Bm, A, not tb, N, K, N * K
        vec_size = K
    # column-major view: a row-major (rows x cols) matrix is (cols x rows) with ld = cols
    if stored_t and conj:
        raise ValueError("native: gemv conjugates only a matrix it reads transposed")
    if stored_t:   # matrix stored as (cols x rows) row-major: column-major (rows x cols)
        trans, m, n, ld = "N", rows, cols, rows
    else:
        trans, m, n, ld = "C" if conj else "T", cols, rows, cols
    # a window read in place: its row stride, a vector's stride (``_arranged``'s views)
    inc = blas_int(ctx, 1)
    if vec.run_strides is not None and len(vec.shape) == 1:
        inc = vec.run_strides[0]
        inc = blas_int(ctx, inc)
    args = [cell(I8, ir.Constant(I8, ord(trans))), cell(None, blas_int(ctx, m)),
            cell(None, blas_int(ctx, n)), cell(t, const(dt, 1.0) if alpha is None else alpha),
            None,
            cell(None, _row_stride(ctx, mat, ld)), None, cell(None, inc),
            cell(t, const(dt, 0.0)), None, cell(None, blas_int(ctx, 1))]
    def per_batch(q):
        args[4] = b.gep(mat.ptr, [b.mul(q, ir.Constant(I64, mat_size))])
        args[6] = b.gep(vec.ptr, [b.mul(q, ir.Constant(I64, vec_size))])
        args[9] = b.gep(out.ptr, [b.mul(q, ir.Constant(I64, rows))])
        b.call(fn, list(args))
    ctx.counted_loop(B, per_batch)


def _loops(ctx, dt, B, M, N, K, A, ta, Bm, tb, out, beta=0.0):
    """c[q, i, j] = sum_k a[q, i, k] b[q, k, j] + beta c[q, i, j], the k loop outside j so
    the inner loop runs along contiguous rows of b and c (``beta``: 0.0, 1.0 or a scalar
    register, as gemm's)."""
    b = ctx.b
    a3 = BufRef(A.ptr, (B, K, M) if ta else (B, M, K), dt)
    b3 = BufRef(Bm.ptr, (B, N, K) if tb else (B, K, N), dt)
    c3 = BufRef(out.ptr, (B, M, N), dt)
    if isinstance(beta, float) and beta == 0.0:
        ctx.loop_nest((B, M, N), lambda idx: ctx.store(c3, idx, const(dt, 0)))
    elif not isinstance(beta, float):
        ctx.loop_nest((B, M, N), lambda idx: ctx.store(
            c3, idx, scalar_math.mul(ctx, dt, ctx.load(c3, idx), beta)))

    def body(idx):
        q, i, kk = idx
        av = ctx.load(a3, [q, kk, i] if ta else [q, i, kk])

        def inner(j):
            bv = ctx.load(b3, [q, j, kk] if tb else [q, kk, j])
            cur = ctx.load(c3, [q, i, j])
            ctx.store(c3, [q, i, j], scalar_math.add(ctx, dt, cur, scalar_math.mul(ctx, dt, av, bv)))
        ctx.counted_loop(N, inner)
    ctx.loop_nest((B, M, K), body)


RULES = {"tensor.dot_general": _dot}
