"""Scalar semantics of the elementwise ops on LLVM registers, NumPy's rules.

Each entry is ``f(ctx, dtype, *operands) -> register``, ``dtype`` being the operands' dtype.
Integers wrap; ``//`` and ``%`` follow Python's sign rules and give 0 for a zero divisor (as
NumPy does); float ops are IEEE; ``maximum``/``minimum`` propagate NaN; math functions are
LLVM intrinsics or libm symbols.
"""
from __future__ import annotations

import math

from llvmlite import ir

from .types import I1, F32, bits, const, is_float, is_signed, reg_type


def _intrinsic(ctx, name, dtype, nargs=1):
    t = reg_type(dtype)
    full = f"llvm.{name}.{'f32' if t == F32 else 'f64'}"
    return _declare(ctx, full, t, [t] * nargs)


def _libm(ctx, name, dtype, nargs=1):
    t = reg_type(dtype)
    return _declare(ctx, name + ("f" if t == F32 else ""), t, [t] * nargs)


def _declare(ctx, name, ret, args):
    m = ctx.module
    if name in m.globals:
        return m.globals[name]
    return ir.Function(m, ir.FunctionType(ret, args), name=name)


# LLVM intrinsics that become one machine instruction on the host; the others (exp, log,
# sin, cos, pow...) become a call of the C math library per element, which LLVM does not
# vectorize (no vector math library is configured)
_HARDWARE = frozenset({"sqrt", "copysign", "rint", "floor", "ceil", "trunc", "fabs"})


def _call_intr(name):
    def rule(ctx, dt, *xs):
        if name not in _HARDWARE:
            _vector_candidate(ctx, dt)
        return ctx.b.call(_intrinsic(ctx, name, dt, len(xs)), list(xs))
    rule.libm = name not in _HARDWARE
    rule.c_name = None if name in _HARDWARE else name
    return rule


def _call_libm(name):
    rule = lambda ctx, dt, *xs: ctx.b.call(_libm(ctx, name, dt, len(xs)), list(xs))  # noqa: E731
    rule.libm = True
    return rule


def _math(name, since):
    """An LLVM intrinsic where this LLVM has it (``since``: the first LLVM version that
    does), a libm call otherwise. Either is a libm call per element in scalar code; the
    intrinsic is what the loop vectorizer turns into a vector call, which engine.py maps to
    the C library's vector math (glibc's libmvec)."""
    import llvmlite.binding as llvm
    return _call_intr(name) if llvm.llvm_version_info >= since else _call_libm(name)


def _vector_candidate(ctx, dt):
    """Tell the loop being emitted that it calls a math intrinsic (Ctx.loop_end)."""
    note = getattr(ctx, "note_vector_math", None)
    if note is not None and is_float(dt):
        note(dt)


def _zero(dt):
    return const(dt, 0)


# --- arithmetic -------------------------------------------------------------------------------
def add(ctx, dt, a, b):
    if dt == "i1":
        return ctx.b.or_(a, b)
    return ctx.b.fadd(a, b) if is_float(dt) else ctx.b.add(a, b)


def sub(ctx, dt, a, b):
    return ctx.b.fsub(a, b) if is_float(dt) else ctx.b.sub(a, b)


def mul(ctx, dt, a, b):
    if dt == "i1":
        return ctx.b.and_(a, b)
    return ctx.b.fmul(a, b) if is_float(dt) else ctx.b.mul(a, b)


def div(ctx, dt, a, b):
    return ctx.b.fdiv(a, b)


def _safe_divisor(ctx, dt, b_):
    """(divisor that is never 0 nor -1, is-zero flag, is-minus-one flag)."""
    b = ctx.b
    zero = b.icmp_unsigned("==", b_, _zero(dt))
    if is_signed(dt):
        m1 = b.icmp_signed("==", b_, const(dt, -1))
        safe = b.select(b.or_(zero, m1), const(dt, 1), b_)
    else:
        m1 = ir.Constant(I1, 0)
        safe = b.select(zero, const(dt, 1), b_)
    return safe, zero, m1


def floordiv(ctx, dt, a, d):
    b = ctx.b
    if is_float(dt):
        return _float_divmod(ctx, dt, a, d)[0]
    safe, zero, m1 = _safe_divisor(ctx, dt, d)
    if not is_signed(dt):
        return b.select(zero, _zero(dt), b.udiv(a, safe))
    q = b.sdiv(a, safe)
    r = b.srem(a, safe)
    adjust = b.and_(b.icmp_signed("!=", r, _zero(dt)),
                    b.icmp_signed("!=", b.icmp_signed("<", r, _zero(dt)),
                                  b.icmp_signed("<", safe, _zero(dt))))
    q = b.select(adjust, b.sub(q, const(dt, 1)), q)
    q = b.select(m1, b.sub(_zero(dt), a), q)          # a // -1 == -a (wraps like NumPy)
    return b.select(zero, _zero(dt), q)


def mod(ctx, dt, a, d):
    b = ctx.b
    if is_float(dt):
        return _float_divmod(ctx, dt, a, d)[1]
    safe, zero, m1 = _safe_divisor(ctx, dt, d)
    if not is_signed(dt):
        return b.select(zero, _zero(dt), b.urem(a, safe))
    r = b.srem(a, safe)
    adjust = b.and_(b.icmp_signed("!=", r, _zero(dt)),
                    b.icmp_signed("!=", b.icmp_signed("<", r, _zero(dt)),
                                  b.icmp_signed("<", safe, _zero(dt))))
    r = b.select(adjust, b.add(r, safe), r)
    return b.select(b.or_(zero, m1), _zero(dt), r)


def fmod(ctx, dt, a, d):
    """numpy.fmod: C's fmod (the remainder has the dividend's sign); 0 for an integer zero
    divisor, as NumPy gives (and x fmod -1 is 0: no INT_MIN / -1 trap)."""
    b = ctx.b
    if is_float(dt):
        return b.frem(a, d)
    safe, zero, m1 = _safe_divisor(ctx, dt, d)
    if not is_signed(dt):
        return b.select(zero, _zero(dt), b.urem(a, safe))
    return b.select(b.or_(zero, m1), _zero(dt), b.srem(a, safe))


def _float_divmod(ctx, dt, a, d):
    """NumPy's npy_divmod (floor division and remainder of floats)."""
    b = ctx.b
    z = _zero(dt)
    m = b.frem(a, d)                                    # fmod
    sign_differs = b.icmp_unsigned("!=", b.fcmp_ordered("<", d, z), b.fcmp_ordered("<", m, z))
    nonzero_m = b.fcmp_unordered("!=", m, z)
    fix = b.and_(nonzero_m, sign_differs)
    copysign = _intrinsic(ctx, "copysign", dt, 2)
    rem = b.select(fix, b.fadd(m, d), b.select(nonzero_m, m, b.call(copysign, [z, d])))
    q = b.fdiv(b.fsub(a, m), d)
    q = b.select(fix, b.fsub(q, const(dt, 1.0)), q)
    floor = _intrinsic(ctx, "floor", dt)
    fq = b.call(floor, [q])
    fq = b.select(b.fcmp_ordered(">", b.fsub(q, fq), const(dt, 0.5)), b.fadd(fq, const(dt, 1.0)), fq)
    fq = b.select(b.fcmp_ordered("==", q, z), b.call(copysign, [z, b.fdiv(a, d)]), fq)
    dzero = b.fcmp_ordered("==", d, z)
    fq = b.select(dzero, b.fdiv(a, d), fq)
    rem = b.select(dzero, m, rem)
    return fq, rem


def power(ctx, dt, a, e):
    b = ctx.b
    if is_float(dt):
        _vector_candidate(ctx, dt)
        return b.call(_intrinsic(ctx, "pow", dt, 2), [a, e])
    # integers: square-and-multiply over the exponent's bits (a negative exponent gives 0)
    t = reg_type(dt)
    res = ctx.alloca_builder.alloca(t)
    base = ctx.alloca_builder.alloca(t)
    ex = ctx.alloca_builder.alloca(t)
    b.store(const(dt, 1), res)
    b.store(a, base)
    b.store(e, ex)
    head = ctx.fn.append_basic_block("pow.head")
    body = ctx.fn.append_basic_block("pow.body")
    done = ctx.fn.append_basic_block("pow.done")
    b.branch(head)
    b.position_at_end(head)
    cur = b.load(ex)
    go = b.icmp_signed(">", cur, _zero(dt)) if is_signed(dt) else b.icmp_unsigned("!=", cur, _zero(dt))
    b.cbranch(go, body, done)
    b.position_at_end(body)
    r, x = b.load(res), b.load(base)
    odd = b.trunc(cur, I1)
    b.store(b.select(odd, b.mul(r, x), r), res)
    b.store(b.mul(x, x), base)
    b.store(b.lshr(cur, const(dt, 1)), ex)
    b.branch(head)
    b.position_at_end(done)
    out = b.load(res)
    if is_signed(dt):
        out = b.select(b.icmp_signed("<", e, _zero(dt)), _zero(dt), out)
    return out


def _cmp(opname):
    def f(ctx, dt, a, b_):
        b = ctx.b
        if is_float(dt):
            if opname == "!=":
                return b.fcmp_unordered("!=", a, b_)
            return b.fcmp_ordered(opname, a, b_)
        if is_signed(dt):
            return b.icmp_signed(opname, a, b_)
        return b.icmp_unsigned(opname, a, b_)
    return f


def _minmax(opname, nan_propagates=True):
    pick = _cmp(opname)

    def f(ctx, dt, a, b_):
        b = ctx.b
        if not is_float(dt):
            return b.select(pick(ctx, dt, a, b_), a, b_)
        if nan_propagates:   # np.maximum: a NaN in either operand wins; on a tie (-0.0
            # against 0.0) the second operand, as NumPy's loops (x86's maxpd) give
            r = b.select(b.fcmp_ordered(opname[0], a, b_), a, b_)
            r = b.select(b.fcmp_unordered("uno", b_, b_), b_, r)
            return b.select(b.fcmp_unordered("uno", a, a), a, r)
        return b.call(_intrinsic(ctx, "maxnum" if opname == ">=" else "minnum", dt, 2), [a, b_])
    return f


def _shift(left):
    def f(ctx, dt, a, s):
        b = ctx.b
        w = bits(dt)
        big = b.icmp_unsigned(">=", s, const(dt, w))
        if left:
            return b.select(big, _zero(dt), b.shl(a, b.select(big, _zero(dt), s)))
        amount = b.select(big, const(dt, w - 1), s)
        if is_signed(dt):
            return b.ashr(a, amount)
        return b.select(big, _zero(dt), b.lshr(a, amount))
    return f


# --- unary --------------------------------------------------------------------------------------
def neg(ctx, dt, a):
    return ctx.b.fneg(a) if is_float(dt) else ctx.b.sub(_zero(dt), a)


def absolute(ctx, dt, a):
    b = ctx.b
    if is_float(dt):
        return b.call(_intrinsic(ctx, "fabs", dt), [a])
    if not is_signed(dt):
        return a
    return b.select(b.icmp_signed("<", a, _zero(dt)), b.sub(_zero(dt), a), a)


def sign(ctx, dt, a):
    b = ctx.b
    z = _zero(dt)
    if is_float(dt):
        r = b.select(b.fcmp_ordered(">", a, z), const(dt, 1.0),
                     b.select(b.fcmp_ordered("<", a, z), const(dt, -1.0), z))
        return b.select(b.fcmp_unordered("uno", a, a), a, r)
    if not is_signed(dt):
        return b.select(b.icmp_unsigned("!=", a, z), const(dt, 1), z)
    return b.select(b.icmp_signed(">", a, z), const(dt, 1),
                    b.select(b.icmp_signed("<", a, z), const(dt, -1), z))


def _int_identity(name):
    intr = _call_intr(name)
    return lambda ctx, dt, a: intr(ctx, dt, a) if is_float(dt) else a


def isinf(ctx, dt, a):
    fabs = ctx.b.call(_intrinsic(ctx, "fabs", dt), [a])
    return ctx.b.fcmp_ordered("==", fabs, const(dt, math.inf))


def isfinite(ctx, dt, a):
    fabs = ctx.b.call(_intrinsic(ctx, "fabs", dt), [a])
    return ctx.b.fcmp_ordered("<", fabs, const(dt, math.inf))


def invert(ctx, dt, a):
    return ctx.b.xor(a, ir.Constant(a.type, -1 if dt != "i1" else 1))


UNARY = {
    "neg": neg, "abs": absolute,
    "sqrt": _call_intr("sqrt"), "exp": _call_intr("exp"), "exp2": _call_intr("exp2"),
    "log": _call_intr("log"), "log2": _call_intr("log2"), "log10": _call_intr("log10"),
    "sin": _call_intr("sin"), "cos": _call_intr("cos"),
    "expm1": _call_libm("expm1"), "log1p": _call_libm("log1p"), "tan": _math("tan", (19,)),
    "arcsin": _math("asin", (19,)), "arccos": _math("acos", (19,)),
    "arctan": _math("atan", (19,)),
    "sinh": _math("sinh", (19,)), "cosh": _math("cosh", (19,)), "tanh": _math("tanh", (19,)),
    "arcsinh": _call_libm("asinh"), "arccosh": _call_libm("acosh"),
    "arctanh": _call_libm("atanh"), "cbrt": _call_libm("cbrt"),
    "erf": _call_libm("erf"), "erfc": _call_libm("erfc"),
    "floor": _int_identity("floor"), "ceil": _int_identity("ceil"),
    "trunc": _int_identity("trunc"), "rint": _call_intr("rint"),
    "sign": sign, "square": lambda ctx, dt, a: mul(ctx, dt, a, a),
    "reciprocal": lambda ctx, dt, a: ctx.b.fdiv(const(dt, 1.0), a),
    "conj": lambda ctx, dt, a: a,
    "not": lambda ctx, dt, a: ctx.b.xor(a, ir.Constant(I1, 1)),
    "invert": invert,
    "isnan": lambda ctx, dt, a: ctx.b.fcmp_unordered("uno", a, a),
    "isinf": isinf, "isfinite": isfinite,
}

BINARY = {
    "add": add, "sub": sub, "mul": mul, "div": div, "floordiv": floordiv, "mod": mod,
    "fmod": fmod,
    "pow": power,
    "max": _minmax(">="), "min": _minmax("<="),
    "fmax": _minmax(">=", nan_propagates=False), "fmin": _minmax("<=", nan_propagates=False),
    "atan2": _math("atan2", (20,)), "hypot": _call_libm("hypot"),
    "copysign": _call_intr("copysign"),
    "and": lambda ctx, dt, a, b: ctx.b.and_(a, b),
    "or": lambda ctx, dt, a, b: ctx.b.or_(a, b),
    "xor": lambda ctx, dt, a, b: ctx.b.xor(a, b),
    "bitand": lambda ctx, dt, a, b: ctx.b.and_(a, b),
    "bitor": lambda ctx, dt, a, b: ctx.b.or_(a, b),
    "bitxor": lambda ctx, dt, a, b: ctx.b.xor(a, b),
    "shl": _shift(True), "shr": _shift(False),
    "eq": _cmp("=="), "ne": _cmp("!="), "lt": _cmp("<"), "le": _cmp("<="),
    "gt": _cmp(">"), "ge": _cmp(">="),
}


# exponents LLVM turns pow into arithmetic for (x*x, x, 1, 1/x); any other float exponent
# is a call of the C library's pow
POW_ARITHMETIC = (2.0, 1.0, 0.0, -1.0)
power.libm = True
power.c_name = "pow"   # the llvm.pow intrinsic on floats
# the ops (short names: "exp", "tanh", "pow"...) lowered to a scalar C math library call per
# element on floats (backends/choice.py weighs them: XLA's are vectorized)
LIBM_CALLS = frozenset(name for table in (UNARY, BINARY) for name, rule in table.items()
                       if getattr(rule, "libm", False))
# of those, the ones lowered to an LLVM intrinsic (the short op name -> the C name): in a
# vectorized loop they become vector calls (engine.vector_math)
INTRINSIC_CALLS = {name: rule.c_name for table in (UNARY, BINARY)
                   for name, rule in table.items() if getattr(rule, "c_name", None)}


_SCALAR_LIBM: list = []


def scalar_libm_calls() -> frozenset:
    """The ops that stay one scalar C math call per element: all of ``LIBM_CALLS`` without
    vector math, else those that have no vector variant in the C library."""
    if not _SCALAR_LIBM:
        from .engine import vector_math
        vec = vector_math()
        _SCALAR_LIBM.append(frozenset(n for n in LIBM_CALLS if not (
            vec and INTRINSIC_CALLS.get(n) in vec.functions)))
    return _SCALAR_LIBM[0]


def _fptosi_numpy(b, v, width: int):
    """NumPy's float-to-integer cast on x86-64 (``cvttsd2si``): truncate to an int of
    ``width`` bits, NaN and values outside its range giving its minimum (C leaves them
    undefined, NumPy warns); in selects LLVM vectorizes. The callers wrap the result to
    narrower targets, as NumPy's loops do (ops/elementwise.py's XLA rule is the same)."""
    it = ir.IntType(width)
    lo = -2.0 ** (width - 1)
    inside = b.and_(b.fcmp_ordered(">=", v, ir.Constant(v.type, lo)),
                    b.fcmp_ordered("<", v, ir.Constant(v.type, -lo)))
    t = b.fptosi(b.select(inside, v, ir.Constant(v.type, 0.0)), it)
    return b.select(inside, t, ir.Constant(it, -2 ** (width - 1)))


def _fptoui64_numpy(b, v):
    """NumPy's float-to-uint64 cast on x86-64: below 2**63 (NaN too: ``ucomisd`` reports it
    below) the signed cast, so -2.7 wraps to 2**64 - 2 and NaN gives 2**63; from 2**63 up the
    signed cast of ``v - 2**63`` with the top bit flipped (0 beyond 2**64)."""
    two63 = ir.Constant(v.type, 2.0 ** 63)
    below = b.fcmp_unordered("<", v, two63)
    high = b.xor(_fptosi_numpy(b, b.fsub(v, two63), 64), ir.Constant(ir.IntType(64), -2 ** 63))
    return b.select(below, _fptosi_numpy(b, v, 64), high)


def convert(ctx, src: str, dst: str, v, in_range: bool = False):
    """``x.astype(dst)`` of one scalar (float to int truncates toward zero; NaN and values
    out of range as NumPy on x86-64, see ``_fptosi_numpy``, instead of LLVM's poison).
    ``in_range``: the op's mark that a pass proved a float operand inside int64's range
    (ops/elementwise.py, tensor.convert): a plain ``fptosi``, which agrees there."""
    b = ctx.b
    if src == dst:
        return v
    t = reg_type(dst)
    if in_range and is_float(src) and dst == "i64":
        return b.fptosi(v, t)
    if dst == "i1":
        return b.fcmp_unordered("!=", v, _zero(src)) if is_float(src) else \
            b.icmp_unsigned("!=", v, _zero(src))
    if is_float(dst):
        if is_float(src):
            return b.fpext(v, t) if bits(dst) > bits(src) else b.fptrunc(v, t)
        return b.sitofp(v, t) if is_signed(src) else b.uitofp(v, t)
    if is_float(src) and (is_signed(dst) or bits(dst) < 64):
        width = 32 if bits(dst) <= 16 or dst == "i32" else 64
        r = _fptosi_numpy(b, v, width)
        return r if t.width == width else b.trunc(r, t)
    if is_float(src):
        return _fptoui64_numpy(b, v)
    sw, dw = bits(src), bits(dst)
    if dw == sw:
        return v
    if dw < sw:
        return b.trunc(v, t)
    return b.sext(v, t) if is_signed(src) else b.zext(v, t)
