"""Elementwise ops, one record each, generated from the tables below.

Identity kept by every row: the op computes the NumPy ufunc of the same row (erf and erfc:
Python's math functions, elementwise) on operands of one dtype (the frontend inserts ``tensor.convert`` so operands already have the ufunc's loop
dtype), with NumPy broadcasting of shapes. Comparison and predicate ops produce ``i1``.
"""
from __future__ import annotations

import math
import os

import numpy as np

from ..ir.types import DTYPES, TensorType, is_bool, is_complex, is_float, is_int
from ..ir.registry import IRError, OpDef, expect, register

try:  # jax is needed only for lowering; the interpreter works without it.
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # pragma: no cover
    jnp = lax = None


def broadcast_shapes(*shapes: tuple) -> tuple:
    """NumPy's broadcast of ``shapes``; a run-time dim (``None``) against a static n > 1 is
    n, against 1 or another run-time dim it stays run-time. A backend that runs it checks
    at run time that the run-time dims agree (or are what NumPy broadcasts). Written out
    rather than calling ``np.broadcast_shapes`` (same answer on static shapes): the verifier
    infers every elementwise op's type after every pass, and equal shapes, the usual case,
    return at once."""
    first = shapes[0]
    if shapes.count(first) == len(shapes):
        return tuple(first)
    from ..ir.types import DYN
    rank = max(len(s) for s in shapes)
    out = []
    for d in range(rank):
        dims = [s[len(s) - rank + d] for s in shapes if len(s) - rank + d >= 0]
        static = {n for n in dims if n is not DYN and n != 1}
        if len(static) > 1:
            from ..ir.registry import IRError
            raise IRError(f"shapes {shapes} do not broadcast")
        out.append(static.pop() if static else DYN if DYN in dims else 1)
    return tuple(out)


def _kinds_ok(dtype: str, kinds: str) -> bool:
    return ((is_bool(dtype) and "b" in kinds) or (is_int(dtype) and "i" in kinds)
            or (is_float(dtype) and "f" in kinds) or (is_complex(dtype) and "c" in kinds))


def _real_of(dtype: str) -> str:
    return {"c64": "f32", "c128": "f64"}.get(dtype, dtype)


def _jnp(name):
    return lambda *xs: getattr(jnp, name)(*xs)


def _int_identity(name):
    """NumPy 2's floor/ceil/trunc of an integer array is the array itself."""
    return lambda x: x if jnp.issubdtype(x.dtype, jnp.integer) else getattr(jnp, name)(x)


EXACT_DIVISION_ENV = "SOLVENT_XLA_EXACT_DIVISION"


def _divisor(a, b):
    """The divisor of ``a / b`` as XLA should see it. XLA's algebraic simplifier turns ``x /
    broadcast(s)`` and ``x / constant`` into ``x * (1/s)``, 1 ulp from NumPy's correctly
    rounded quotient in about half of the elements (the README's Backends section). With the
    environment variable SOLVENT_XLA_EXACT_DIVISION=1 (read when a function is compiled) the
    divisor is materialized at the full shape behind an optimization barrier, which the
    simplifier cannot look through: NumPy's quotient to the bit, at the cost of writing and
    reading the divisor once (2-3x on a lone division of a large array by a scalar)."""
    if os.environ.get(EXACT_DIVISION_ENV, "0") != "1" or \
            not jnp.issubdtype(jnp.result_type(b), jnp.inexact):
        return b
    shape = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
    return lax.optimization_barrier(jnp.broadcast_to(b, shape))


def _true_divide(a, b):
    return jnp.true_divide(a, _divisor(a, b))


def _float_divmod(a, b):
    """NumPy's ``npy_divmod`` for floats, step by step (jnp's floor_divide is ``floor(a/b)``,
    which differs in the sign of a zero quotient and near integer quotients): the remainder
    is ``fmod`` moved to the divisor's sign, the quotient ``(a - mod) / b`` rounded to the
    nearest integer below, a zero quotient takes the sign of ``a / b``, and ``b == 0`` gives
    ``a / b`` and ``fmod``."""
    a, b = jnp.broadcast_arrays(a, b)
    b = _divisor(a, b)
    zero = jnp.zeros_like(a)
    m = lax.rem(a, b)                                  # C fmod: the sign of a
    fix = (m != 0) & ((b < 0) != (m < 0))
    mod = jnp.where(fix, m + b, jnp.where(m != 0, m, jnp.copysign(zero, b)))
    q = (a - m) / b
    q = jnp.where(fix, q - 1, q)
    fq = jnp.floor(q)
    fq = jnp.where(q - fq > 0.5, fq + 1, fq)
    fq = jnp.where(q == 0, jnp.copysign(zero, a / b), fq)
    bzero = b == 0
    return jnp.where(bzero, a / b, fq), jnp.where(bzero, m, mod)


def _atan2(y, x):
    """``arctan2`` with C99's zero cases written out: ``atan2(±0, +0) = ±0`` and ``atan2(±0,
    -0) = ±pi``. XLA:CPU's fused atan2 gives NaN for ``atan2(0, 0)`` when the zero divisor is
    computed in the same fusion (fuzzer seed 59, reproduced in plain jax 0.10)."""
    y, x = jnp.broadcast_arrays(y, x)
    zeros = (y == 0) & (x == 0)
    pi = jnp.asarray(np.pi, y.dtype)
    at_zero = jnp.where(jnp.signbit(x), jnp.copysign(pi, y), y)
    return jnp.where(zeros, at_zero, jnp.arctan2(y, x))


def _complex_extremum(is_max: bool):
    """NumPy's complex maximum/minimum: lexicographic order on (real, imag), and a NaN in
    either part of either operand wins (jnp's compares without that NaN rule). Real floats:
    a NaN in either operand wins, and on a tie the second operand (NumPy's loops, x86's
    maxpd: ``np.maximum(0.0, -0.0)`` is -0.0, where XLA's max orders -0.0 below 0.0)."""
    def fn(a, b):
        if jnp.issubdtype(a.dtype, jnp.floating):
            return jnp.where(a == b, b, (jnp.maximum if is_max else jnp.minimum)(a, b))
        if not jnp.issubdtype(a.dtype, jnp.complexfloating):
            return (jnp.maximum if is_max else jnp.minimum)(a, b)
        a, b = jnp.broadcast_arrays(a, b)
        ar, ai, br, bi = jnp.real(a), jnp.imag(a), jnp.real(b), jnp.imag(b)
        beats = (ar > br) if is_max else (ar < br)
        ties = (ai >= bi) if is_max else (ai <= bi)
        keep_a = (jnp.isnan(ar) | jnp.isnan(ai)
                  | (beats & ~jnp.isnan(ai) & ~jnp.isnan(bi)) | ((ar == br) & ties))
        return jnp.where(keep_a, a, b)
    return fn


def _sign(x):
    """NumPy's sign of a float zero is +0.0 whatever the zero's sign; XLA's keeps -0.0
    (1.0 // np.sign(-0.0) is +inf in NumPy: fuzzer seed 601513)."""
    s = jnp.sign(x)
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.where(x == 0, jnp.zeros_like(s), s)
    return s


def _int_safe(name):
    """Integer //, % and fmod by zero give 0 in NumPy (XLA gives other values); floats follow
    NumPy's ``npy_divmod`` exactly (fmod: C's, which is XLA's rem)."""
    def fn(a, b):
        if not jnp.issubdtype(a.dtype, jnp.integer):
            if name == "fmod":
                return jnp.fmod(a, b)      # C's fmod: XLA's rem, NaN for a zero divisor
            return _float_divmod(a, b)[0 if name == "floor_divide" else 1]
        zero = b == 0
        r = getattr(jnp, name)(a, jnp.where(zero, jnp.ones_like(b), b))
        return jnp.where(zero, jnp.zeros_like(r), r)
    return fn


def _power(a, b):
    """C's ``pow`` elementwise, as NumPy's power computes it, except that: an integer one
    with a negative exponent (NumPy raises ValueError) gives a number, as on the other
    backends: the frontend's run-time check of that exponent comes first (error.check) and
    raises its own error; and NumPy's square root for a scalar exponent 0.5 is undone (the
    frontend emits ``sqrt`` itself where NumPy's loop would)."""
    if np.asarray(b).dtype.kind == "i" and np.any(np.asarray(b) < 0):
        b = np.maximum(b, 0)
    r = np.power(a, b)
    if r.dtype.kind == "f":
        # C's pow, which tensor.pow means: NumPy's loop takes the square root for one
        # scalar exponent 0.5 across an array, giving NaN for -inf and -0.0 for -0.0
        a = np.asarray(a)
        m = (np.asarray(b) == 0.5) & ((a == -np.inf) | ((a == 0) & np.signbit(a)))
        if np.any(m):
            r = np.where(m, np.where(a == 0, 0.0, np.inf).astype(r.dtype), r)
    return r


def _from_math(fn, name):
    """Elementwise ``fn`` of Python's math module on a float array, in double, rounded to the
    array's dtype (the interpreter's reference for functions NumPy lacks: erf, erfc)."""
    def apply(x):
        x = np.asarray(x)
        return np.vectorize(fn, otypes=[x.dtype])(x) if x.size else x.copy()
    apply.__name__ = name
    return apply


def _jax_special(name):
    return lambda x: getattr(lax, name)(x)


# name: (numpy function, jax lowering, accepted kinds b/i/f/c, result rule)
# result rule: "same" dtype as operands, "bool" (i1), "real" (real part's dtype).
UNARY = {
    "neg": (np.negative, _jnp("negative"), "ifc", "same"),
    "abs": (np.abs, _jnp("abs"), "ifc", "real"),
    "sqrt": (np.sqrt, _jnp("sqrt"), "fc", "same"),
    "exp": (np.exp, _jnp("exp"), "fc", "same"),
    "exp2": (np.exp2, _jnp("exp2"), "fc", "same"),
    "expm1": (np.expm1, _jnp("expm1"), "fc", "same"),
    "log": (np.log, _jnp("log"), "fc", "same"),
    "log2": (np.log2, _jnp("log2"), "fc", "same"),
    "log10": (np.log10, _jnp("log10"), "fc", "same"),
    "log1p": (np.log1p, _jnp("log1p"), "fc", "same"),
    "sin": (np.sin, _jnp("sin"), "fc", "same"),
    "cos": (np.cos, _jnp("cos"), "fc", "same"),
    "tan": (np.tan, _jnp("tan"), "fc", "same"),
    "arcsin": (np.arcsin, _jnp("arcsin"), "fc", "same"),
    "arccos": (np.arccos, _jnp("arccos"), "fc", "same"),
    "arctan": (np.arctan, _jnp("arctan"), "fc", "same"),
    "sinh": (np.sinh, _jnp("sinh"), "fc", "same"),
    "cosh": (np.cosh, _jnp("cosh"), "fc", "same"),
    "tanh": (np.tanh, _jnp("tanh"), "fc", "same"),
    "arcsinh": (np.arcsinh, _jnp("arcsinh"), "fc", "same"),
    "arccosh": (np.arccosh, _jnp("arccosh"), "fc", "same"),
    "arctanh": (np.arctanh, _jnp("arctanh"), "fc", "same"),
    "cbrt": (np.cbrt, _jnp("cbrt"), "f", "same"),
    "floor": (np.floor, _int_identity("floor"), "if", "same"),
    "ceil": (np.ceil, _int_identity("ceil"), "if", "same"),
    "trunc": (np.trunc, _int_identity("trunc"), "if", "same"),
    "rint": (np.rint, _jnp("rint"), "f", "same"),
    "sign": (np.sign, _sign, "ifc", "same"),
    "square": (np.square, _jnp("square"), "ifc", "same"),
    "reciprocal": (np.reciprocal, _jnp("reciprocal"), "fc", "same"),
    "conj": (np.conjugate, _jnp("conjugate"), "ifc", "same"),
    "real": (np.real, _jnp("real"), "fc", "real"),
    "imag": (np.imag, _jnp("imag"), "fc", "real"),
    "angle": (np.angle, _jnp("angle"), "fc", "real"),
    "not": (np.logical_not, _jnp("logical_not"), "b", "same"),
    "invert": (np.invert, _jnp("invert"), "bi", "same"),
    "isnan": (np.isnan, _jnp("isnan"), "fc", "bool"),
    "isinf": (np.isinf, _jnp("isinf"), "fc", "bool"),
    "isfinite": (np.isfinite, _jnp("isfinite"), "fc", "bool"),
    # math.erf / scipy.special.erf (no NumPy function)
    "erf": (_from_math(math.erf, "erf"), _jax_special("erf"), "f", "same"),
    "erfc": (_from_math(math.erfc, "erfc"), _jax_special("erfc"), "f", "same"),
}

BINARY = {
    "add": (np.add, _jnp("add"), "bifc", "same"),
    "sub": (np.subtract, _jnp("subtract"), "ifc", "same"),
    "mul": (np.multiply, _jnp("multiply"), "bifc", "same"),
    "div": (np.true_divide, _true_divide, "fc", "same"),
    "floordiv": (np.floor_divide, _int_safe("floor_divide"), "if", "same"),
    "mod": (np.remainder, _int_safe("remainder"), "if", "same"),
    "pow": (np.power, _jnp("power"), "ifc", "same"),
    "max": (np.maximum, _complex_extremum(True), "bifc", "same"),
    "min": (np.minimum, _complex_extremum(False), "bifc", "same"),
    "fmax": (np.fmax, _jnp("fmax"), "if", "same"),
    "fmin": (np.fmin, _jnp("fmin"), "if", "same"),
    "atan2": (np.arctan2, _atan2, "f", "same"),
    "hypot": (np.hypot, _jnp("hypot"), "f", "same"),
    "fmod": (np.fmod, _int_safe("fmod"), "if", "same"),
    "copysign": (np.copysign, _jnp("copysign"), "f", "same"),
    "and": (np.logical_and, _jnp("logical_and"), "b", "same"),
    "or": (np.logical_or, _jnp("logical_or"), "b", "same"),
    "xor": (np.logical_xor, _jnp("logical_xor"), "b", "same"),
    "bitand": (np.bitwise_and, _jnp("bitwise_and"), "bi", "same"),
    "bitor": (np.bitwise_or, _jnp("bitwise_or"), "bi", "same"),
    "bitxor": (np.bitwise_xor, _jnp("bitwise_xor"), "bi", "same"),
    "shl": (np.left_shift, _jnp("left_shift"), "i", "same"),
    "shr": (np.right_shift, _jnp("right_shift"), "i", "same"),
    "eq": (np.equal, _jnp("equal"), "bifc", "bool"),
    "ne": (np.not_equal, _jnp("not_equal"), "bifc", "bool"),
    "lt": (np.less, _jnp("less"), "bif", "bool"),
    "le": (np.less_equal, _jnp("less_equal"), "bif", "bool"),
    "gt": (np.greater, _jnp("greater"), "bif", "bool"),
    "ge": (np.greater_equal, _jnp("greater_equal"), "bif", "bool"),
}


def _result_dtype(dtype: str, rule: str) -> str:
    return {"same": dtype, "bool": "i1", "real": _real_of(dtype)}[rule]


def _make_infer(name: str, arity: int, kinds: str, rule: str):
    # the result dtype of each operand dtype the op accepts (the verifier infers every
    # elementwise op after every pass under test: messages are formatted only on failure)
    result = {d: _result_dtype(d, rule) for d in DTYPES if _kinds_ok(d, kinds)}

    def infer(types, attrs):
        if len(types) != arity:
            raise IRError(f"{name} takes {arity} operands, got {len(types)}")
        if not all(type(t) is TensorType for t in types):
            expect(all(isinstance(t, TensorType) for t in types), f"{name} takes tensors")
        dtype = types[0].dtype
        if arity == 2 and types[1].dtype != dtype:
            raise IRError(f"{name} operands must share one dtype, got "
                          f"{sorted({t.dtype for t in types})}")
        out = result.get(dtype)
        if out is None:
            raise IRError(f"{name} does not accept dtype {dtype}")
        if arity == 1:
            return [TensorType(types[0].shape, out)]
        return [TensorType(broadcast_shapes(types[0].shape, types[1].shape), out)]
    return infer


def _make_interp(np_fn):
    def interp(op, args, ctx):
        return [np_fn(*args)]
    return interp


def _make_xla(jax_fn):
    def xla(op, args, ctx):
        return [jax_fn(*args)]
    return xla


_INTERP = {"pow": _power}   # the interpreter's rule where it is not the NumPy function's


for _table, _arity in ((UNARY, 1), (BINARY, 2)):
    for _name, (_np_fn, _jax_fn, _kinds, _rule) in _table.items():
        register(OpDef(
            name=f"tensor.{_name}",
            doc=f"elementwise numpy.{_np_fn.__name__}",
            infer=_make_infer(f"tensor.{_name}", _arity, _kinds, _rule),
            elementwise=True,
        ), interp=_make_interp(_INTERP.get(_name, _np_fn)), xla=_make_xla(_jax_fn))


def _select_infer(types, attrs):
    expect(len(types) == 3, "tensor.select takes (cond, on_true, on_false)")
    c, a, b = types
    expect(c.dtype == "i1", "tensor.select condition must be i1")
    expect(a.dtype == b.dtype, "tensor.select branches must share one dtype")
    return [TensorType(broadcast_shapes(c.shape, a.shape, b.shape), a.dtype)]


register(OpDef(
    name="tensor.select",
    doc="numpy.where(cond, a, b) with broadcasting",
    infer=_select_infer,
    elementwise=True,
), interp=lambda op, args, ctx: [np.where(*args)], xla=lambda op, args, ctx: [jnp.where(*args)])


# 2**63, exact in float32 and float64: a float t converts to int64 exactly when
# -INT64_END <= t < INT64_END (the frontend's check of Python's int(), the passes reading it)
INT64_END = 9.223372036854775808e18


def _convert_infer(types, attrs):
    expect(len(types) == 1 and isinstance(types[0], TensorType), "tensor.convert takes a tensor")
    return [TensorType(types[0].shape, attrs["dtype"])]


def _convert_interp(op, args, ctx):
    from ..ir.types import np_dtype
    (x,) = args
    target = np_dtype(op.attrs["dtype"])
    if np.iscomplexobj(x) and target.kind not in "cb":
        x = np.real(x)  # NumPy's astype drops the imaginary part (with a warning)
    return [np.asarray(x).astype(target)]


def _convert_xla(op, args, ctx):
    from ..ir.types import np_dtype
    (x,) = args
    target = np_dtype(op.attrs["dtype"])
    if target.kind == "b":  # complex to bool: True when either part is nonzero, as NumPy
        return [x != 0]
    if jnp.iscomplexobj(x) and target.kind != "c":
        x = jnp.real(x)
    if x.dtype == jnp.bool_ and target.kind in "fc":
        # a select, not a convert: XLA's simplifier turns `y * convert(mask)` into
        # `select(mask, y, 0)`, which loses NaN * False = NaN (NumPy keeps it)
        return [jnp.where(x, jnp.ones((), target), jnp.zeros((), target))]
    if jnp.issubdtype(x.dtype, jnp.floating) and target == np.uint64:
        return [_float_to_uint64_as_numpy(x)]
    if jnp.issubdtype(x.dtype, jnp.floating) and target.kind in "iu":
        return [_float_to_int_as_numpy(x, target)]
    return [x.astype(target)]


def _float_to_uint64_as_numpy(x):
    """NumPy's float-to-uint64 cast on x86-64: below 2**63 (NaN too) the signed cast (-2.7
    wraps to 2**64 - 2, NaN gives 2**63); from 2**63 up the signed cast of ``x - 2**63``
    with the top bit flipped (backends/native/scalar_math.py's ``_fptoui64_numpy``)."""
    two63 = jnp.asarray(2.0 ** 63, x.dtype)
    low = _float_to_int_as_numpy(x, np.dtype(np.int64))
    high = _float_to_int_as_numpy(x - two63, np.dtype(np.int64)) ^ jnp.int64(-2 ** 63)
    return lax.bitcast_convert_type(jnp.where(x >= two63, high, low), jnp.uint64)


def _float_to_int_as_numpy(x, target):
    """NumPy's float-to-integer cast on x86-64, out-of-range values and NaN included (C
    leaves them undefined and NumPy warns; XLA saturates): the value truncates to int32 (to
    int64 for the 32- and 64-bit targets but int32) with NaN and anything outside giving that
    type's minimum, then wraps to the target's width, as NumPy's compiled loops do."""
    route = np.int32 if target.itemsize <= 2 or target == np.int32 else np.int64
    info = np.iinfo(route)
    inside = (x >= float(info.min)) & (x < -float(info.min))   # NaN: False
    y = jnp.where(inside, x, jnp.zeros((), x.dtype)).astype(route)
    y = jnp.where(inside, y, jnp.asarray(info.min, route))
    return y.astype(target)


register(OpDef(
    name="tensor.convert",
    doc="x.astype(dtype) (C casting: float to int truncates toward zero); ``in_range = "
        "true`` (float to i64): a pass proved the operand inside int64's range, where a "
        "backend may skip NumPy's handling of NaN and values out of range (it agrees there); "
        "``fits_checked = true`` (float to i64, Python's int()): a run-time check made just "
        "before it tests that the operand fits int64. Backends still convert as NumPy does "
        "(after a failed check the program runs on to its end, then raises), but a rewrite "
        "may drop that handling from a float computed only from the result (float(int(t)), "
        "which is discarded when the check fails)",
    infer=_convert_infer,
    elementwise=True,
), interp=_convert_interp, xla=_convert_xla)


def _complex_infer(types, attrs):
    expect(len(types) == 2 and all(isinstance(t, TensorType) for t in types),
           "tensor.complex takes (real, imag) tensors")
    re, im = types
    expect(re.dtype == im.dtype and re.dtype in ("f32", "f64"),
           f"tensor.complex takes two f32 or two f64 parts, got {re.dtype}, {im.dtype}")
    return [TensorType(broadcast_shapes(re.shape, im.shape), _COMPLEX_OF[re.dtype])]


_COMPLEX_OF = {"f32": "c64", "f64": "c128"}


def _complex_interp(op, args, ctx):
    from ..ir.types import np_dtype
    re, im = np.broadcast_arrays(*args)
    out = np.empty(re.shape, np_dtype(op.results[0].type.dtype))
    out.real, out.imag = re, im
    return [out]


def _complex_xla(op, args, ctx):
    from jax import lax
    re, im = jnp.broadcast_arrays(*args)
    return [lax.complex(re, im)]


register(OpDef(
    name="tensor.complex",
    doc="the complex number re + im*j from its parts, exactly (Python's complex(re, im); "
        "re + 1j*im differs: 1j*inf is nan+infj)",
    infer=_complex_infer,
    elementwise=True,
), interp=_complex_interp, xla=_complex_xla)
