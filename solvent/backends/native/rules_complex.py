"""Complex scalars on the native backend: the elementwise ops' scalar rules on complex64 /
complex128 values, and which ops may touch a complex value at all.

A complex scalar is the LLVM struct ``{float, float}`` / ``{double, double}`` (``types.py``):
NumPy's layout, so buffers are the caller's arrays and BLAS's ``c``/``z`` routines read them
as they are. Each rule here is ``f(ctx, dtype, *operands) -> register`` like
``scalar_math``'s, ``dtype`` the operands' complex dtype, and computes what NumPy's own loops
compute (numpy/_core/src/umath/loops.c.src), operation for operation, so inf and nan come out
as NumPy's do:

- ``a * b`` = ``(ar*br - ai*bi, ar*bi + ai*br)``, no C99 Annex G recovery of infinities;
  NumPy's SIMD loop (``simd_cmul``) computes each part as one fused multiply-add,
  ``fma(ar, br, -(ai*bi))`` and ``fma(ar, bi, ai*br)``, on hosts with FMA (its plain
  formula elsewhere). ``llvm.fmuladd`` is the same choice in LLVM: fused where the target
  has FMA. It matters beyond rounding: ``(1e300+1e300j) * (1e300+1e300j)`` is ``-inf+infj``
  fused and ``nan+infj`` unfused;
- ``a / b`` is Smith's algorithm with NumPy's branches: ``|br| >= |bi|`` (a zero divisor
  divides each part by ``|br|`` = 0), else the mirrored formula (a nan divisor takes it);
- ``abs`` is NumPy's vectorized ``larger * sqrt(1 + (smaller/larger)**2)`` (``absolute``),
  ``==`` compares both parts;
- ``exp log sqrt sin cos tan sinh cosh tanh`` call the C library's ``cexp``... (``cexpf``...
  for complex64), which is what NumPy calls: the same bits, special values included;
- ``astype``: a real value is ``(x, 0)``; a complex value to a real dtype keeps the real part
  (NumPy warns), to bool is ``re != 0 or im != 0``.

``refuses(op)`` says why an op touching a complex value stays off the native backend (None
when it may go native): only the ops below, sums and products (reductions and scans, folded
with the add and multiply below) and data movement (slices, transposes, loops carrying
values) take complex values; every other op is refused, so the automatic choice
runs such programs on XLA (backends/choice.py) instead of computing a wrong number.
"""
from __future__ import annotations

from llvmlite import ir

from ...ir.registry import IRError
from . import scalar_math
from .types import const, is_complex, part


def _parts(ctx, z):
    return ctx.b.extract_value(z, 0), ctx.b.extract_value(z, 1)


def pack(ctx, dt, re, im):
    """The complex register ``re + im*j`` of ``dt``."""
    b = ctx.b
    z = ir.Constant(const(dt, 0).type, ir.Undefined)
    return b.insert_value(b.insert_value(z, re, 0), im, 1)


def _each(fn):
    """A rule applying ``fn(builder, x, y)`` to the real parts and to the imaginary parts."""
    def rule(ctx, dt, a, c):
        (ar, ai), (cr, ci) = _parts(ctx, a), _parts(ctx, c)
        return pack(ctx, dt, fn(ctx.b, ar, cr), fn(ctx.b, ai, ci))
    return rule


def mul(ctx, dt, a, c):
    b = ctx.b
    (ar, ai), (cr, ci) = _parts(ctx, a), _parts(ctx, c)
    p = part(dt)
    t = const(p, 0).type
    fma = scalar_math._declare(ctx, f"llvm.fmuladd.{p}", t, [t, t, t])
    return pack(ctx, dt, b.call(fma, [ar, cr, b.fneg(b.fmul(ai, ci))]),
                b.call(fma, [ar, ci, b.fmul(ai, cr)]))


def div(ctx, dt, a, c):
    """NumPy's complex division (Smith's algorithm, NumPy's branch order)."""
    b = ctx.b
    p = part(dt)
    (ar, ai), (cr, ci) = _parts(ctx, a), _parts(ctx, c)
    fabs = scalar_math.UNARY["abs"]
    abs_r, abs_i = fabs(ctx, p, cr), fabs(ctx, p, ci)
    zero, one = const(p, 0.0), const(p, 1.0)
    # |cr| >= |ci| (false when either is nan)
    first = b.fcmp_ordered(">=", abs_r, abs_i)
    # first branch: rat = ci / cr, scl = 1 / (cr + ci * rat)
    both_zero = b.and_(b.fcmp_ordered("==", abs_r, zero), b.fcmp_ordered("==", abs_i, zero))
    safe_r = b.select(both_zero, one, cr)   # a zero divisor takes the next select's branch
    rat1 = b.fdiv(ci, safe_r)
    scl1 = b.fdiv(one, b.fadd(cr, b.fmul(ci, rat1)))
    re1 = b.select(both_zero, b.fdiv(ar, abs_r), b.fmul(b.fadd(ar, b.fmul(ai, rat1)), scl1))
    im1 = b.select(both_zero, b.fdiv(ai, abs_r), b.fmul(b.fsub(ai, b.fmul(ar, rat1)), scl1))
    # second branch: rat = cr / ci, scl = 1 / (ci + cr * rat)
    rat2 = b.fdiv(cr, ci)
    scl2 = b.fdiv(one, b.fadd(ci, b.fmul(cr, rat2)))
    re2 = b.fmul(b.fadd(b.fmul(ar, rat2), ai), scl2)
    im2 = b.fmul(b.fsub(b.fmul(ai, rat2), ar), scl2)
    return pack(ctx, dt, b.select(first, re1, re2), b.select(first, im1, im2))


def neg(ctx, dt, a):
    re, im = _parts(ctx, a)
    return pack(ctx, dt, ctx.b.fneg(re), ctx.b.fneg(im))


def conj(ctx, dt, a):
    re, im = _parts(ctx, a)
    return pack(ctx, dt, re, ctx.b.fneg(im))


def absolute(ctx, dt, a):
    """NumPy's vectorized ``abs`` (``simd_cabsolute``): ``larger * sqrt(1 + r*r)``, ``r`` =
    smaller / larger part, with hypot's rules for inf and nan (inf wins over nan) and no
    0/0 or inf/inf; selects and arithmetic only, so LLVM vectorizes it (a libm hypot call
    per element ran 8x slower than NumPy)."""
    b = ctx.b
    p = part(dt)
    fabs = scalar_math.UNARY["abs"]
    re, im = fabs(ctx, p, b.extract_value(a, 0)), fabs(ctx, p, b.extract_value(a, 1))
    inf, nan, zero, one = (const(p, v) for v in (float("inf"), float("nan"), 0.0, 1.0))
    re_inf, im_inf = b.fcmp_ordered("==", re, inf), b.fcmp_ordered("==", im, inf)
    im = b.select(re_inf, inf, im)
    re = b.select(im_inf, inf, re)
    re_num, im_num = b.fcmp_ordered("==", re, re), b.fcmp_ordered("==", im, im)
    im = b.select(re_num, im, nan)
    re = b.select(im_num, re, nan)
    # max/min of non-nan or both-nan parts: the nan case is carried by either select
    first = b.fcmp_ordered(">", re, im)
    larger, smaller = b.select(first, re, im), b.select(first, im, re)
    divide = b.not_(b.or_(b.fcmp_ordered("==", larger, zero),
                          b.fcmp_ordered("==", smaller, inf)))
    ratio = b.select(divide, b.fdiv(smaller, b.select(divide, larger, one)), zero)
    t = const(p, 0).type
    fma = scalar_math._declare(ctx, f"llvm.fmuladd.{p}", t, [t, t, t])
    root = scalar_math.UNARY["sqrt"](ctx, p, b.call(fma, [ratio, ratio, one]))
    return b.fmul(root, larger)


def eq(ctx, dt, a, c):
    b = ctx.b
    (ar, ai), (cr, ci) = _parts(ctx, a), _parts(ctx, c)
    return b.and_(b.fcmp_ordered("==", ar, cr), b.fcmp_ordered("==", ai, ci))


def ne(ctx, dt, a, c):
    b = ctx.b
    (ar, ai), (cr, ci) = _parts(ctx, a), _parts(ctx, c)
    return b.or_(b.fcmp_unordered("!=", ar, cr), b.fcmp_unordered("!=", ai, ci))


def _either(name):
    """isnan / isinf: true when either part is."""
    def rule(ctx, dt, a):
        re, im = _parts(ctx, a)
        f = scalar_math.UNARY[name]
        return ctx.b.or_(f(ctx, part(dt), re), f(ctx, part(dt), im))
    return rule


def isfinite(ctx, dt, a):
    re, im = _parts(ctx, a)
    f = scalar_math.UNARY["isfinite"]
    return ctx.b.and_(f(ctx, part(dt), re), f(ctx, part(dt), im))


def _c_library(name):
    """NumPy's complex ``name`` where it is the C library's ``c<name>`` (NumPy's npy_c<name>
    calls the platform's function wherever it has one): the same call gives NumPy's bits,
    special values included. The C ABI on x86-64 and AArch64: a ``double complex`` travels as
    two doubles and comes back as a pair of them (LLVM's ``{double, double}``), a ``float
    complex`` as one ``<2 x float>`` register."""
    def rule(ctx, dt, a):
        b = ctx.b
        re, im = _parts(ctx, a)
        if dt == "c128":
            f64 = ir.DoubleType()
            fn = scalar_math._declare(ctx, "c" + name, ir.LiteralStructType([f64, f64]),
                                      [f64, f64])
            r = b.call(fn, [re, im])
            return pack(ctx, dt, b.extract_value(r, 0), b.extract_value(r, 1))
        vt = ir.VectorType(ir.FloatType(), 2)
        fn = scalar_math._declare(ctx, "c" + name + "f", vt, [vt])
        i32 = ir.IntType(32)
        v = b.insert_element(b.insert_element(ir.Constant(vt, ir.Undefined), re,
                                              ir.Constant(i32, 0)), im, ir.Constant(i32, 1))
        r = b.call(fn, [v])
        return pack(ctx, dt, b.extract_element(r, ir.Constant(i32, 0)),
                    b.extract_element(r, ir.Constant(i32, 1)))
    return rule


# NumPy takes these from the C library (asin/acos/atan and their h forms it computes itself
# on glibc builds older than 2.18, as manylinux wheels are: not here)
C_LIBRARY = ("exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh")

UNARY = {
    **{f: _c_library(f) for f in C_LIBRARY},
    "neg": neg, "conj": conj, "abs": absolute,
    "real": lambda ctx, dt, a: ctx.b.extract_value(a, 0),
    "imag": lambda ctx, dt, a: ctx.b.extract_value(a, 1),
    "square": lambda ctx, dt, a: mul(ctx, dt, a, a),
    "isnan": _either("isnan"), "isinf": _either("isinf"), "isfinite": isfinite,
}
BINARY = {
    "add": _each(lambda b, x, y: b.fadd(x, y)), "sub": _each(lambda b, x, y: b.fsub(x, y)),
    "mul": mul, "div": div, "eq": eq, "ne": ne,
}
# real and imag of a real value (NumPy allows them): the value itself, and zero
REAL_UNARY = {
    "real": lambda ctx, dt, a: a,
    "imag": lambda ctx, dt, a: const(dt, 0),
}


def convert(ctx, src: str, dst: str, v):
    """``x.astype(dst)`` where ``src`` or ``dst`` is complex."""
    b = ctx.b
    if is_complex(src) and is_complex(dst):
        re, im = _parts(ctx, v)
        p, q = part(src), part(dst)
        return pack(ctx, dst, scalar_math.convert(ctx, p, q, re),
                    scalar_math.convert(ctx, p, q, im))
    if is_complex(dst):
        return pack(ctx, dst, scalar_math.convert(ctx, src, part(dst), v), const(part(dst), 0))
    re, im = _parts(ctx, v)
    if dst == "i1":
        zero = const(part(src), 0)
        return b.or_(b.fcmp_unordered("!=", re, zero), b.fcmp_unordered("!=", im, zero))
    return scalar_math.convert(ctx, part(src), dst, re)


def _unused(ctx, dt, *xs):  # pragma: no cover - refuses() keeps such ops off
    raise IRError("native: a complex op without a native rule reached lowering")


def scalar_rule(name: str, dt: str, real_rule):
    """The scalar rule of elementwise op ``name`` on operands of ``dt``."""
    if is_complex(dt):
        return UNARY.get(name) or BINARY.get(name) or _unused
    return REAL_UNARY.get(name, real_rule)


# ops that only move or carry values, whatever their dtype (their rules load, store and
# select registers of any type)
MOVES = frozenset({
    "tensor.slice", "tensor.update_slice", "tensor.transpose", "tensor.reshape",
    "tensor.broadcast_to", "tensor.constant", "tensor.select", "func.return",
    "loop.for", "loop.while", "loop.if", "loop.yield", "loop.condition",
    "tensor.dim",   # reads a length, never an element
})


def refuses(op) -> str | None:
    """Why the native backend does not compile ``op`` on its complex values; None if it does
    (or touches none)."""
    vals = [v for v in list(op.operands) + list(op.results)
            if getattr(getattr(v, "type", None), "dtype", "")[:1] == "c"]
    if not vals:
        return None
    name = op.name
    short = name.partition(".")[2]
    # a parallel loop folds its carried scalars with scalar_math's real rules (an array
    # reduction runs the loop sequentially: rules_parallel._combiners)
    if name == "loop.for" and any(
            c not in ("shared", "last") and v.type.dtype[0] == "c" and v.type.rank == 0
            for c, v in zip(op.attrs.get("combiners") or (), op.operands[3:])):
        return "a parallel reduction of complex scalars"
    if name in MOVES or name in ("tensor.convert", "tensor.complex", "tensor.reduce_sum",
                                 "tensor.reduce_prod", "tensor.cumsum", "tensor.cumprod"):
        return None   # (sums and products fold with BINARY's add and mul: rules_reduce)
    if name.startswith("tensor.") and (short in UNARY or short in BINARY):
        return None
    if name == "tensor.dot_general":
        a, c = op.operands
        if not (a.type.static and c.type.static):
            return "a complex product with run-time lengths"
        if a.type.dtype != c.type.dtype:
            return "a product of mixed dtypes"
        from .rules_linalg import blas_symbols
        if a.type.dtype not in blas_symbols():
            return "a complex product without a BLAS (neither NumPy's nor SciPy's found)"
        return None
    return f"{name} on complex values"

