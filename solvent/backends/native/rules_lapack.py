"""Lowering rules of the dense solvers on the native backend: ``tensor.cholesky`` (potrf),
``tensor.solve`` (getrf/getrs), ``tensor.inv`` (gesv), ``tensor.det`` and ``tensor.slogdet``
(getrf), ``tensor.eigh`` (syevd), ``tensor.svd`` (gesdd), ``tensor.qr`` (geqrf/orgqr),
``tensor.triangular_solve`` (BLAS trsv/trsm), for float32 and float64 with static shapes.

LAPACK is the library NumPy's own ``numpy.linalg`` calls (``blas_library``: NumPy's bundled
scipy-openblas64, 64-bit integers, pivots and workspace integers included), else SciPy's
``cython_lapack``, bound to LLVM symbols once, as the BLAS of rules_linalg.py. NumPy copies
each matrix into Fortran order (a transposed copy) before calling LAPACK; these rules copy it
as it is (a contiguous, vectorized copy: the transposed one cost 1-2 ms on 700x700) and fold
the transpose into the routine's flags with the identities below, so results agree with
NumPy's to rounding (the differential tests compare them with allclose). Where NumPy raises
LinAlgError (``info > 0``: not positive definite, singular, no convergence) the result is NaN,
as the interpreter's and XLA's rules give; the frontend's error.check raises LinAlgError with
the source line.

Identities relied on: a row-major ``n x n`` array read as column-major is its transpose; the
lower triangle of ``a`` is the upper triangle of ``a^T``; ``inv(a^T)^T = inv(a)``; ``det(a^T) =
det(a) = sign * exp(sum(log|u_ii|))`` with ``sign`` the product of the signs of ``u_ii`` and
of the row swaps (NumPy's slogdet path); ``a X = b`` with row-major ``X, b`` is ``X^T a^T =
b^T`` with the column-major views (trsm from the right).
"""
from __future__ import annotations

from llvmlite import ir

from .context import BufRef
from . import blas_library
from .types import I64, I8, const, reg_type

_PREFIX = {"f64": "d", "f32": "s"}
_ROUTINES = ("potrf", "gesv", "getrf", "getrs", "syevd", "gesdd", "geqrf", "orgqr", "trsv",
             "trsm")
_BOUND: bool | None = None


def _bind() -> bool:
    """Bind the LAPACK/BLAS routines (``blas_library``) to ``solvent_lapack_<d|s><name>``;
    False without a library (the rules then refuse, and automatic choice takes another
    backend)."""
    global _BOUND
    if _BOUND is None:
        _BOUND = all(blas_library.bind(f"solvent_lapack_{p}{name}", p + name)
                     for p in _PREFIX.values() for name in _ROUTINES)
    return _BOUND


def _int_dtype() -> str:
    """The dtype of the library's integer arrays (pivots, workspace): ``i64`` or ``i32``."""
    return f"i{blas_library.int_type().width}"


def _as_int(b, v):
    """An i64 register as the library's integer."""
    t = blas_library.int_type()
    return v if t.width == 64 else b.trunc(v, t)


def _routine(ctx, dt, name, sig):
    """The routine ``name`` for ``dt``; ``sig`` spells its Fortran arguments (all by
    pointer): c a character, i an int, I an int array, p a ``dt`` array or scalar."""
    sym = f"solvent_lapack_{_PREFIX[dt]}{name}"
    it = blas_library.int_type()
    kinds = {"c": ir.PointerType(I8), "i": ir.PointerType(it), "I": ir.PointerType(it),
             "p": ir.PointerType(reg_type(dt))}
    fty = ir.FunctionType(ir.VoidType(), [kinds[c] for c in sig])
    blas_library.note(ctx)
    return ctx.module.globals.get(sym) or ir.Function(ctx.module, fty, name=sym)


class _Call:
    """Argument cells for Fortran calls (every argument by pointer)."""

    def __init__(self, ctx, dt):
        self.ctx, self.dt = ctx, dt
        self.info = self.int(0)

    def cell(self, ty, value):
        s = self.ctx.alloca_builder.alloca(ty)
        self.ctx.b.store(value, s)
        return s

    def char(self, c):
        return self.cell(I8, ir.Constant(I8, ord(c)))

    def int(self, n):
        return self.cell(blas_library.int_type(), ir.Constant(blas_library.int_type(), n))

    def real(self, x):
        return self.cell(reg_type(self.dt), const(self.dt, x))

    def failed(self):
        info = self.ctx.b.load(self.info)
        return self.ctx.b.icmp_signed("!=", info, ir.Constant(info.type, 0))


def _batches(ctx, op, shape, body):
    """``body(q)`` for every matrix of a stack with ``shape`` (batch dims then the matrix
    dims), ``q`` the flat batch index (an i64 register)."""
    count = 1
    for d in shape[:-2]:
        count *= d
    ctx.counted_loop(count, body)


def _view(ctx, ref: BufRef, q, rows, cols):
    """Matrix ``q`` of a C-ordered stack of ``rows x cols`` matrices, as a BufRef."""
    ptr = ctx.b.gep(ref.ptr, [ctx.b.mul(q, ir.Constant(I64, rows * cols))])
    return BufRef(ptr, (rows, cols), ref.dtype)


def _transposed_copy(ctx, dst: BufRef, src, rows, cols, lead=()):
    """``dst[j, i] = src[lead..., i, j]``: the Fortran-order copy of a row-major matrix."""
    ctx.loop_nest((rows, cols), lambda idx: ctx.store(
        dst, [idx[1], idx[0]], ctx.element(src, list(lead) + [idx[0], idx[1]])))


def _from_fortran(ctx, dst: BufRef, src: BufRef, rows, cols, keep=None):
    """``dst[i, j] = src[j, i]`` (the column-major ``rows x cols`` matrix ``src`` into the
    row-major ``dst``); zero where ``keep(i, j)`` (registers -> i1) is false."""
    zero = const(dst.dtype, 0)

    def put(idx):
        v = ctx.load(src, [idx[1], idx[0]])
        if keep is not None:
            v = ctx.b.select(keep(idx[0], idx[1]), v, zero)
        ctx.store(dst, idx, v)
    ctx.loop_nest((rows, cols), put)


def _fill(ctx, dst: BufRef, rows, cols, value):
    c = const(dst.dtype, value)
    ctx.loop_nest((rows, cols), lambda idx: ctx.store(dst, idx, c))


def _static(op):
    if not _bind():
        return "no LAPACK: neither NumPy's OpenBLAS nor SciPy's cython_lapack was found"
    for v in list(op.operands) + list(op.results):
        if not v.type.static:
            return "a matrix whose size is known only at run time"
        if v.type.dtype not in _PREFIX:
            return f"{v.type.dtype} values (LAPACK is bound for float32 and float64)"
    return None


def _unflatten(ctx, q, batch):
    """The multi-index (i64 registers) of flat index ``q`` in ``batch`` dims, C order."""
    idx = []
    for d in reversed(batch):
        idx.append(ctx.b.urem(q, ir.Constant(I64, d)))
        q = ctx.b.udiv(q, ir.Constant(I64, d))
    return list(reversed(idx))


def _source(ctx, v):
    """(the array to read, whether it is the transpose of ``v``): a transpose the
    bufferization left unmaterialized for this op (``TAKES_TRANSPOSED``) is read as its
    source, the rule taking the transpose into its LAPACK/BLAS flags."""
    from .rules_structural import Transposed
    ref = ctx.get(v)
    if isinstance(ref, Transposed):
        return ref.src, True
    return ref, False


def _copy(ctx, dst: BufRef, src, rows, cols, lead=()):
    """``dst[i, j] = src[lead..., i, j]`` (a contiguous copy LLVM vectorizes)."""
    ctx.loop_nest((rows, cols), lambda idx: ctx.store(
        dst, idx, ctx.element(src, list(lead) + idx)))


def _nan_if(ctx, call, res: BufRef, rows, cols):
    """NaN in ``res`` where the call reported failure (``info != 0``)."""
    with ctx.b.if_then(call.failed()):
        _fill(ctx, res, rows, cols, float("nan"))


def _getrf(ctx, dt, work: BufRef, ipiv: BufRef, n, call):
    getrf = _routine(ctx, dt, "getrf", "iipiIi")
    ctx.b.call(getrf, [call.int(n), call.int(n), work.ptr, call.int(max(1, n)), ipiv.ptr,
                       call.info])


# --- cholesky ---------------------------------------------------------------------------------
def _cholesky(op, ctx):
    """numpy.linalg.cholesky: potrf('U') on a copy of ``a`` in the result's buffer. Read as
    column-major that copy is ``a^T``, whose upper triangle is ``a``'s lower one (the triangle
    NumPy reads); the factor ``U`` with ``a^T = U^T U`` read back as row-major is ``L = U^T``
    with ``a = L L^T``. The strict upper triangle of the result is then set to zero."""
    dt = op.results[0].type.dtype
    shape = op.results[0].type.shape
    n = shape[-1]
    a = ctx.get(op.operands[0])
    out = ctx.out(op)
    potrf = _routine(ctx, dt, "potrf", "cipii")
    call = _Call(ctx, dt)
    uplo, nn, lda = call.char("U"), call.int(n), call.int(max(1, n))
    batch = list(shape[:-2])
    b = ctx.b
    zero = const(dt, 0.0)

    def one(q):
        res = _view(ctx, out, q, n, n)
        _copy(ctx, res, a, n, n, _unflatten(ctx, q, batch))
        b.call(potrf, [uplo, nn, res.ptr, lda, call.info])
        with b.if_else(call.failed()) as (bad, good):
            with bad:
                _fill(ctx, res, n, n, float("nan"))
            with good:
                ctx.counted_loop(n, lambda i: ctx.counted_loop(
                    b.sub(ir.Constant(I64, n), b.add(i, ir.Constant(I64, 1))),
                    lambda j: ctx.store(res, [i, b.add(b.add(i, ir.Constant(I64, 1)), j)],
                                        zero)))
    _batches(ctx, op, shape, one)
    return [out]


# --- solve and inv ----------------------------------------------------------------------------
def _solve(op, ctx):
    """numpy.linalg.solve(a, b): getrf on a copy of ``a`` (column-major: ``a^T = P L U``),
    then getrs('T') solves ``(a^T)^T x = a x = b``. Several right-hand sides are the columns
    of the column-major (transposed) copy of ``b``. For ``a = s^T`` left unmaterialized, the
    copy of ``s`` is ``a`` in column-major, and getrs('N') solves."""
    dt = op.results[0].type.dtype
    a_t, b_t = (v.type for v in op.operands)
    n = a_t.shape[0]
    (a, a_transposed), rhs = _source(ctx, op.operands[0]), ctx.get(op.operands[1])
    out = ctx.out(op)
    k = 1 if b_t.rank == 1 else b_t.shape[1]
    work = ctx.scratch(op, (n, n), dt)
    ipiv = ctx.scratch(op, (max(1, n),), _int_dtype())
    call = _Call(ctx, dt)
    _copy(ctx, work, a, n, n)
    _getrf(ctx, dt, work, ipiv, n, call)
    if b_t.rank == 1:
        sol = BufRef(out.ptr, (1, n), dt)
        ctx.loop_nest((n,), lambda idx: ctx.store(sol, [0, idx[0]], ctx.element(rhs, idx)))
    else:
        sol = ctx.scratch(op, (k, n), dt)
        _transposed_copy(ctx, sol, rhs, n, k)
    getrs = _routine(ctx, dt, "getrs", "ciipiIpii")
    status = _Call(ctx, dt)
    with ctx.b.if_then(ctx.b.not_(call.failed())):
        ctx.b.call(getrs, [status.char("N" if a_transposed else "T"), status.int(n), status.int(k), work.ptr,
                           status.int(max(1, n)), ipiv.ptr, sol.ptr, status.int(max(1, n)),
                           status.info])
    res = BufRef(out.ptr, (n, k), dt)
    if b_t.rank == 2:
        ctx.loop_nest((n, k), lambda idx: ctx.store(res, idx, ctx.load(sol, [idx[1], idx[0]])))
    _nan_if(ctx, call, res, n, k)
    return [out]


def _inv(op, ctx):
    """numpy.linalg.inv(a): gesv with the identity as right-hand side, on a copy of ``a``
    (column-major: ``a^T``) and in the result's buffer. The column-major solution is
    ``inv(a^T)``; read as row-major it is ``inv(a^T)^T = inv(a)``."""
    dt = op.results[0].type.dtype
    shape = op.results[0].type.shape
    n = shape[-1]
    a = ctx.get(op.operands[0])
    out = ctx.out(op)
    work = ctx.scratch(op, (n, n), dt)
    ipiv = ctx.scratch(op, (max(1, n),), _int_dtype())
    gesv = _routine(ctx, dt, "gesv", "iipiIpii")
    call = _Call(ctx, dt)
    batch = list(shape[:-2])
    b = ctx.b
    one_, zero = const(dt, 1.0), const(dt, 0.0)

    def one(q):
        res = _view(ctx, out, q, n, n)
        _copy(ctx, work, a, n, n, _unflatten(ctx, q, batch))
        ctx.loop_nest((n, n), lambda idx: ctx.store(
            res, idx, b.select(b.icmp_signed("==", idx[0], idx[1]), one_, zero)))
        b.call(gesv, [call.int(n), call.int(n), work.ptr, call.int(max(1, n)), ipiv.ptr,
                      res.ptr, call.int(max(1, n)), call.info])
        _nan_if(ctx, call, res, n, n)
    _batches(ctx, op, shape, one)
    return [out]


# --- det --------------------------------------------------------------------------------------
def _det(op, ctx):
    """numpy.linalg.det: ``sign * exp(logdet)`` of ``_lu_sign_logdet``, as NumPy's slogdet
    path computes it; a singular factor gives sign 0 and logdet -inf, so 0."""
    from . import scalar_math
    dt = op.operands[0].type.dtype
    b = ctx.b
    return _lu_sign_logdet(op, ctx, lambda sign, logdet: [
        b.fmul(sign, scalar_math.UNARY["exp"](ctx, dt, logdet))])


def _slogdet(op, ctx):
    """numpy.linalg.slogdet: (sign, log|det|) of ``_lu_sign_logdet``."""
    return _lu_sign_logdet(op, ctx, lambda sign, logdet: [sign, logdet])


def _lu_sign_logdet(op, ctx, results):
    """getrf on a copy of each matrix (column-major: ``a^T``, and ``det(a^T) = det(a)``),
    then the sign and the log of |det| from the diagonal and the row swaps (NumPy's
    ``slogdet`` loop); a singular factor (``info > 0``) gives sign 0 and logdet -inf.
    ``results(sign, logdet)`` gives the registers stored as the op's results."""
    from . import scalar_math
    dt = op.operands[0].type.dtype
    shape = op.operands[0].type.shape
    n = shape[-1]
    a, _ = _source(ctx, op.operands[0])   # det(a^T) = det(a): a transpose is read as it is
    count = max(1, _count(shape[:-2]))
    scalar = op.results[0].type.rank == 0
    outs = [ctx.scratch(op, (1,), dt) if scalar else ctx.out(op, k)
            for k in range(len(op.results))]
    flats = [BufRef(o.ptr, (count,), dt) for o in outs]
    work = ctx.scratch(op, (n, n), dt)
    ipiv = ctx.scratch(op, (max(1, n),), _int_dtype())
    call = _Call(ctx, dt)
    batch = list(shape[:-2])
    b = ctx.b
    sign, logdet = ctx.slot(dt), ctx.slot(dt)

    def one(q):
        _copy(ctx, work, a, n, n, _unflatten(ctx, q, batch))
        _getrf(ctx, dt, work, ipiv, n, call)
        b.store(const(dt, 1.0), sign)
        b.store(const(dt, 0.0), logdet)

        def diag(i):
            u = ctx.load(work, [i, i])
            neg = b.fcmp_ordered("<", u, const(dt, 0.0))
            swapped = b.icmp_signed("!=", ctx.load(ipiv, [i]),
                                    _as_int(b, b.add(i, ir.Constant(I64, 1))))
            flip = b.xor(neg, swapped)
            s = b.load(sign)
            b.store(b.select(flip, b.fneg(s), s), sign)
            mag = b.select(neg, b.fneg(u), u)
            b.store(b.fadd(b.load(logdet), scalar_math.UNARY["log"](ctx, dt, mag)), logdet)
        ctx.counted_loop(n, diag)
        with b.if_then(call.failed()):
            b.store(const(dt, 0.0), sign)
            b.store(const(dt, float("-inf")), logdet)
        for flat, v in zip(flats, results(b.load(sign), b.load(logdet))):
            ctx.store(flat, [q], v)
    _batches(ctx, op, shape, one)
    if scalar:
        return [ctx.load(o, [0]) for o in outs]
    return outs


def _count(dims):
    c = 1
    for d in dims:
        c *= d
    return c


# --- eigh -------------------------------------------------------------------------------------
def _eigh(op, ctx):
    """numpy.linalg.eigh(a, UPLO): syevd('V', UPLO) on a transposed copy of ``a`` (read as
    column-major it is ``a`` itself, as NumPy hands it to LAPACK), with the minimal workspace
    syevd documents (``1 + 6n + 2n^2`` reals, ``3 + 5n`` ints). The same matrix in the same
    triangle gives NumPy's eigenvectors, signs included (an untransposed copy is the other
    triangle of ``a^T``: the same symmetric matrix, but syevd reduces it in the other order
    and some eigenvectors come out negated). Eigenvalues come ascending; the eigenvectors
    are the columns of the column-major result, so the row-major ``v`` is its transposed
    copy."""
    dt = op.operands[0].type.dtype
    shape = op.operands[0].type.shape
    n = shape[-1]
    a = ctx.get(op.operands[0])
    w_out, v_out = ctx.out(op, 0), ctx.out(op, 1)
    work = ctx.scratch(op, (n, n), dt)
    lwork, liwork = (1 + 6 * n + 2 * n * n, 3 + 5 * n) if n > 1 else (1, 1)
    rwork = ctx.scratch(op, (lwork,), dt)
    iwork = ctx.scratch(op, (liwork,), _int_dtype())
    syevd = _routine(ctx, dt, "syevd", "ccipippiIii")
    call = _Call(ctx, dt)
    uplo = call.char(op.attrs["uplo"])
    batch = list(shape[:-2])
    b = ctx.b

    def one(q):
        w = BufRef(b.gep(w_out.ptr, [b.mul(q, ir.Constant(I64, n))]), (1, n), dt)
        v = _view(ctx, v_out, q, n, n)
        _transposed_copy(ctx, work, a, n, n, _unflatten(ctx, q, batch))
        b.call(syevd, [call.char("V"), uplo, call.int(n), work.ptr, call.int(max(1, n)),
                       w.ptr, rwork.ptr, call.int(lwork), iwork.ptr, call.int(liwork),
                       call.info])
        _from_fortran(ctx, v, work, n, n)
        _nan_if(ctx, call, w, 1, n)
        _nan_if(ctx, call, v, n, n)
    _batches(ctx, op, shape, one)
    return [w_out, v_out]


# --- svd and qr -------------------------------------------------------------------------------
def _svd(op, ctx):
    """numpy.linalg.svd: gesdd on ``a`` in the column-major layout NumPy hands to LAPACK
    (JOBZ 'A' for full_matrices, 'S' reduced, 'N' for the values alone), so the singular
    vectors are NumPy's, signs included; U and VT come column-major and are copied into the
    row-major results. Workspace: more than gesdd's documented minimum for every LAPACK
    version (``4k^2 + 7k`` for 'S', ``4k^2 + 6k + max(m, n)`` for 'A'), plus room for its
    blocking."""
    dt = op.operands[0].type.dtype
    shape = op.operands[0].type.shape
    m, n = shape[-2], shape[-1]
    k, mx = min(m, n), max(m, n)
    uv, full = op.attrs["compute_uv"], op.attrs["full_matrices"]
    mu, nv = (m, n) if full else (k, k)
    a = ctx.get(op.operands[0])
    outs = [ctx.out(op, i) for i in range(len(op.results))]
    s_out = outs[1] if uv else outs[0]
    work = ctx.scratch(op, (n, m), dt)
    ucol = ctx.scratch(op, (mu, m) if uv else (1, 1), dt)
    vtcol = ctx.scratch(op, (n, nv) if uv else (1, 1), dt)
    lwork = 5 * k * k + 10 * k + mx + 64 * (m + n)
    rwork = ctx.scratch(op, (lwork,), dt)
    iwork = ctx.scratch(op, (8 * k,), _int_dtype())
    gesdd = _routine(ctx, dt, "gesdd", "ciipippipipiIi")
    call = _Call(ctx, dt)
    batch = list(shape[:-2])
    b = ctx.b

    def one(q):
        s = BufRef(b.gep(s_out.ptr, [b.mul(q, ir.Constant(I64, k))]), (1, k), s_out.dtype)
        _transposed_copy(ctx, work, a, m, n, _unflatten(ctx, q, batch))   # NumPy's layout
        b.call(gesdd, [call.char("N" if not uv else "A" if full else "S"), call.int(m),
                       call.int(n), work.ptr, call.int(m), s.ptr, ucol.ptr, call.int(m),
                       vtcol.ptr, call.int(nv if uv else 1), rwork.ptr, call.int(lwork),
                       iwork.ptr, call.info])
        _nan_if(ctx, call, s, 1, k)
        if uv:
            u, vt = _view(ctx, outs[0], q, m, mu), _view(ctx, outs[2], q, nv, n)
            _from_fortran(ctx, u, ucol, m, mu)
            _from_fortran(ctx, vt, vtcol, nv, n)
            _nan_if(ctx, call, u, m, mu)
            _nan_if(ctx, call, vt, nv, n)
    _batches(ctx, op, shape, one)
    return outs


def _qr(op, ctx):
    """numpy.linalg.qr (mode 'reduced'): geqrf on ``a`` in the column-major layout NumPy
    hands to LAPACK, R the upper triangle of its first k rows, then orgqr forms Q's k
    columns from the reflectors, as NumPy's qr_r_raw and qr_reduced do (so Q and R are
    NumPy's, signs included). Workspace: 64 columns' worth (geqrf needs n, orgqr k)."""
    dt = op.operands[0].type.dtype
    shape = op.operands[0].type.shape
    m, n = shape[-2], shape[-1]
    k = min(m, n)
    a = ctx.get(op.operands[0])
    q_out, r_out = ctx.out(op, 0), ctx.out(op, 1)
    work = ctx.scratch(op, (n, m), dt)
    tau = ctx.scratch(op, (k,), dt)
    lwork = 64 * max(n, 1)
    rwork = ctx.scratch(op, (lwork,), dt)
    geqrf = _routine(ctx, dt, "geqrf", "iipippii")
    orgqr = _routine(ctx, dt, "orgqr", "iiipippii")
    call = _Call(ctx, dt)
    batch = list(shape[:-2])
    b = ctx.b

    def one(q):
        _transposed_copy(ctx, work, a, m, n, _unflatten(ctx, q, batch))   # NumPy's layout
        b.call(geqrf, [call.int(m), call.int(n), work.ptr, call.int(m), tau.ptr, rwork.ptr,
                       call.int(lwork), call.info])
        r = _view(ctx, r_out, q, k, n)
        _from_fortran(ctx, r, work, k, n, keep=lambda i, j: b.icmp_signed("<=", i, j))
        b.call(orgqr, [call.int(m), call.int(k), call.int(k), work.ptr, call.int(m),
                       tau.ptr, rwork.ptr, call.int(lwork), call.info])
        _from_fortran(ctx, _view(ctx, q_out, q, m, k), work, m, k)
    _batches(ctx, op, shape, one)
    return [q_out, r_out]


def _nonempty(op):
    why = _static(op)
    if why is None and 0 in op.operands[0].type.shape[-2:]:
        return "an empty matrix"
    return why


# --- triangular solve -------------------------------------------------------------------------
def _triangular_solve(op, ctx):
    """scipy.linalg.solve_triangular(a, b, lower, unit_diagonal): substitution by BLAS, which
    reads only ``a``'s triangle and gives inf/NaN for a zero pivot (as the op's rule says).
    The row-major ``a`` read in place is the column-major ``a^T``: its triangle is the other
    one. One right-hand side: trsv with op(a^T) = a; several: trsm from the right on the
    column-major view ``b^T`` of the row-major result (``X^T a^T = b^T``). For ``a = s^T``
    left unmaterialized, the copy of ``s`` is ``a`` in column-major: the flags swap."""
    dt = op.results[0].type.dtype
    a_t, b_t = (v.type for v in op.operands)
    n = a_t.shape[0]
    lower, unit = op.attrs["lower"], op.attrs["unit_diagonal"]
    (a, t), rhs = _source(ctx, op.operands[0]), ctx.get(op.operands[1])
    out = ctx.out(op)
    mat = ctx.scratch(op, (n, n), dt)     # a (or s, for a = s^T), contiguous, for BLAS
    _copy(ctx, mat, a, n, n)
    ctx.loop_nest(b_t.shape, lambda idx: ctx.store(out, idx, ctx.element(rhs, idx)))
    call = _Call(ctx, dt)
    # column-major, mat is a^T (its other triangle), or for a = s^T it is a itself
    uplo = call.char(("L" if lower else "U") if t else ("U" if lower else "L"))
    diag = call.char("U" if unit else "N")
    if n == 0:
        return [out]
    if b_t.rank == 1:
        trsv = _routine(ctx, dt, "trsv", "cccipipi")
        ctx.b.call(trsv, [uplo, call.char("N" if t else "T"), diag, call.int(n), mat.ptr,
                          call.int(n), out.ptr, call.int(1)])
    else:
        k = b_t.shape[1]
        if k:
            trsm = _routine(ctx, dt, "trsm", "cccciippipi")
            ctx.b.call(trsm, [call.char("R"), uplo, call.char("T" if t else "N"), diag,
                              call.int(k), call.int(n), call.real(1.0), mat.ptr,
                              call.int(n), out.ptr, call.int(k)])
    return [out]


for _rule in (_cholesky, _solve, _inv, _det, _slogdet, _eigh, _triangular_solve):
    _rule.check = _static

# the ops whose rule reads a transposed matrix operand (operand 0) from its source
TAKES_TRANSPOSED = frozenset({"tensor.solve", "tensor.det", "tensor.slogdet",
                              "tensor.triangular_solve"})

_svd.check = _qr.check = _nonempty

RULES = {"tensor.cholesky": _cholesky, "tensor.solve": _solve, "tensor.inv": _inv,
         "tensor.det": _det, "tensor.slogdet": _slogdet, "tensor.eigh": _eigh,
         "tensor.svd": _svd, "tensor.qr": _qr, "tensor.triangular_solve": _triangular_solve}
