"""Algebraic identities that are exact under NumPy semantics.

Each row states its identity and the dtypes where it holds bit for bit: ``x + 0 -> x`` is
not exact for floats (``-0.0 + 0.0`` is ``0.0``) and ``x * 0 -> 0`` is not (NaN, inf, and the
sign of zero), so those rows are for integers only. A rewrite never changes a value's type or
shape (the ``Rewriter`` refuses), so broadcasting operands are left alone.
"""
from __future__ import annotations

import math

from ...ir.rewrite import Pattern, constant_value, defining
from ...ops.elementwise import INT64_END
from ._samples import binary_with_constant, unary_chain
from .shapes import operand_if_same_type


def _same_type_operand(op, k):
    return op.operands[k].type == op.result.type


def _int(op):
    return op.result.type.dtype[0] in "iu" and op.result.type.dtype != "i1"


def _identity_operand(value, positions=(0, 1), int_only=False, real_only=False):
    """A rewrite: `op(x, c) -> x` where c == value (either side in ``positions``)."""
    def rewrite(op, rw):
        if int_only and not _int(op):
            return False
        if real_only and op.result.type.dtype[0] == "c":
            return False
        for k in positions:
            c = constant_value(op.operands[k])
            if c is not None and c == value and not isinstance(c, bool) and \
                    _same_type_operand(op, 1 - k):
                rw.replace_op(op, [op.operands[1 - k]])
                return True
        return False
    return rewrite


def _int_times_zero(op, rw):
    if not _int(op):
        return False
    for k in (0, 1):
        c = constant_value(op.operands[k])
        if c is not None and c == 0 and not isinstance(c, bool):
            rw.replace_op(op, [rw.constant_like(op.result, 0)])
            return True
    return False


def _pow_two(op, rw):
    """x ** 2 -> x * x: what NumPy computes (``ndarray ** 2`` is ``np.square``; its complex
    power takes ``n == 2`` as one complex product), exact for real floats (a correctly
    rounded square either way) and integers (both wrap); the native backend has no complex
    power, so ``z ** 2 + c`` runs there."""
    e = op.operands[1]
    cv = defining(e, "tensor.convert")     # a Python 2 converted to the base's dtype
    c = constant_value(e if cv is None else cv.operands[0])
    x = op.operands[0]
    if c is None or isinstance(c, bool) or c != 2 or x.type != op.result.type:
        return False
    rw.replace_op(op, [rw.one("tensor.mul", x, x)])
    return True


def _int_sub_self(op, rw):
    if not _int(op) or op.operands[0] is not op.operands[1]:
        return False
    rw.replace_op(op, [rw.constant_like(op.result, 0)])
    return True


def _neg_neg(op, rw):
    inner = defining(op.operands[0], "tensor.neg")
    if inner is None:
        return False
    rw.replace_op(op, [inner.operands[0]])
    return True


def _negative_zero(c) -> bool:
    return isinstance(c, float) and c == 0 and math.copysign(1.0, c) < 0


def _add_negative_zero(op, rw):
    if op.result.type.dtype[0] != "f":
        return False
    for k in (0, 1):
        c = constant_value(op.operands[k])
        if _negative_zero(c) and _same_type_operand(op, 1 - k):
            rw.replace_op(op, [op.operands[1 - k]])
            return True
    return False


def _add_complex_negative_zero(op, rw):
    if op.result.type.dtype[0] != "c":
        return False
    for k in (0, 1):
        c = constant_value(op.operands[k])
        if isinstance(c, complex) and _negative_zero(c.real) and _negative_zero(c.imag) and \
                _same_type_operand(op, 1 - k):
            rw.replace_op(op, [op.operands[1 - k]])
            return True
    return False


def _select_constant(op, rw):
    c = constant_value(op.operands[0])
    if c is None:
        return False
    pick = op.operands[1] if c else op.operands[2]
    if pick.type != op.result.type:
        return False
    rw.replace_op(op, [pick])
    return True


def _select_same(op, rw):
    if op.operands[1] is not op.operands[2] or op.operands[1].type != op.result.type:
        return False
    rw.replace_op(op, [op.operands[1]])
    return True


def _select_nested(op, rw):
    c1, a, b = op.operands
    inner = defining(a, "tensor.select")
    if inner is not None and inner.operands[2] is b and len(a.live_uses()) == 1:
        c2, x, _ = inner.operands
        rw.replace_op(op, [rw.one("tensor.select", rw.one("tensor.and", c1, c2), x, b)])
        return True
    inner = defining(b, "tensor.select")
    if inner is not None and inner.operands[1] is a and len(b.live_uses()) == 1:
        c2, _, y = inner.operands
        rw.replace_op(op, [rw.one("tensor.select", rw.one("tensor.or", c1, c2), a, y)])
        return True
    return False


_INTEGRAL = ("tensor.floor", "tensor.ceil", "tensor.trunc")


def _int64_round_trip(op, rw):
    """``float(int64(t))`` for an integral float ``t`` without the integer conversions."""
    inner = defining(op.operands[0], "tensor.convert")
    if inner is None or op.result.type.dtype not in ("f32", "f64") or \
            inner.result.type.dtype != "i64":
        return False
    t = inner.operands[0]
    if defining(t) is None or defining(t).name not in _INTEGRAL or \
            t.type.dtype not in ("f32", "f64"):
        return False
    if t.type.dtype != op.result.type.dtype:
        t = rw.one("tensor.convert", t, dtype=op.result.type.dtype)
    zero = rw.constant_like(t, 0.0)   # -0.0 -> 0.0, as int64 does (XLA folds t + 0.0 to t)
    plain = rw.one("tensor.select", rw.one("tensor.eq", t, zero), zero, t)
    if inner.attrs.get("fits_checked"):   # outside int64 a check has failed: no result kept
        rw.replace_op(op, [plain])
        return True
    inside = rw.one("tensor.lt", rw.one("tensor.abs", t), rw.constant_like(t, INT64_END))
    rw.replace_op(op, [rw.one("tensor.select", inside, plain,
                              rw.constant_like(op.result, -INT64_END))])
    return True


def _integral_of_integral(op, rw):
    t = op.operands[0]
    if defining(t) is None or defining(t).name not in _INTEGRAL or t.type != op.result.type:
        return False
    rw.replace_op(op, [t])
    return True


def _round_trip_sample(b, x):
    t = b.one("tensor.floor", x)
    return b.one("tensor.convert", b.one("tensor.convert", t, dtype="i64"), dtype="f64")


def _outer_as_mul(op, rw):
    a = op.attrs
    x, y = op.operands
    nb = len(a["lhs_batch"])
    if a["lhs_contract"] or a["rhs_contract"] or not (
            list(a["lhs_batch"]) == list(a["rhs_batch"]) == list(range(nb))) or not (
            x.type.dtype == y.type.dtype == op.result.type.dtype):
        return False
    batch, lf, rf = x.type.shape[:nb], x.type.shape[nb:], y.type.shape[nb:]
    if x.type.rank and rf:  # x[b..., l..., None...] * y[b..., None..., r...]
        x = rw.one("tensor.reshape", x, shape=list(x.type.shape) + [1] * len(rf))
    if nb and lf:
        y = rw.one("tensor.reshape", y, shape=list(batch) + [1] * len(lf) + list(rf))
    rw.replace_op(op, [rw.one("tensor.mul", x, y)])
    return True


def _outer_sample(b, x):
    v = b.one("tensor.reduce_sum", x, axes=[1], keepdims=False)
    outer = b.one("tensor.dot_general", v, x, lhs_batch=[], rhs_batch=[], lhs_contract=[],
                  rhs_contract=[])
    rows = b.one("tensor.dot_general", v, x, lhs_batch=[0], rhs_batch=[0], lhs_contract=[],
                 rhs_contract=[])   # v[i] * x[i, j]
    both = b.one("tensor.dot_general", x, x, lhs_batch=[0], rhs_batch=[0], lhs_contract=[],
                 rhs_contract=[])   # x[i, j] * x[i, k]
    return b.one("tensor.add", b.one("tensor.reduce_sum", outer, axes=[0], keepdims=False),
                 b.one("tensor.add", rows, b.one("tensor.reduce_sum", both, axes=[2],
                                                 keepdims=False)))


def _nested_sample(b, x):
    zero = b.constant(0.0, "f64")
    pos = b.one("tensor.gt", x, zero)
    small = b.one("tensor.lt", x, b.constant(0.5, "f64"))
    inner = b.one("tensor.select", small, b.one("tensor.neg", x), x)
    outer = b.one("tensor.select", pos, inner, x)
    return b.one("tensor.select", small, outer, b.one("tensor.select", pos, outer, zero))


def _bool_identity(value):
    """A rewrite: ``op(x, c) -> x`` for booleans, where c is the constant ``value``
    (x or False, x and True)."""
    def rewrite(op, rw):
        if op.result.type.dtype != "i1":
            return False
        for k in (0, 1):
            c = constant_value(op.operands[k])
            if isinstance(c, bool) and c is value and _same_type_operand(op, 1 - k):
                rw.replace_op(op, [op.operands[1 - k]])
                return True
        return False
    return rewrite


def _not_constant(op, rw):
    c = constant_value(op.operands[0])
    if not isinstance(c, bool):
        return False
    rw.replace_op(op, [rw.constant_like(op.result, not c)])
    return True


def _not_not(op, rw):
    inner = defining(op.operands[0], "tensor.not")
    if inner is None or inner.operands[0].type != op.result.type:
        return False
    rw.replace_op(op, [inner.operands[0]])
    return True


def _idempotent(op, rw):
    x = op.operands[0]
    if op.operands[1] is not x or x.type != op.result.type:
        return False
    rw.replace_op(op, [x])
    return True


def _select_not(op, rw):
    c, a, b = op.operands
    inner = defining(c, "tensor.not")
    if inner is None or inner.operands[0].type != c.type:
        return False
    rw.replace_op(op, [rw.one("tensor.select", inner.operands[0], b, a)])
    return True


def _eq_self(op, rw):
    x = op.operands[0]
    if op.operands[1] is not x or x.type.dtype[0] not in "iub":
        return False
    rw.replace_op(op, [rw.constant_like(op.result, True)])
    return True


def int_range(v, depth: int = 8):
    """(lo, hi) bounding every element of integer value ``v``, from constants, iota and
    min/max/clip-like chains (max(x, a) >= a; min(x, b) <= b), selects, and additions or
    subtractions of constants; None where unknown. Python ints: no overflow is assumed only
    where both bounds fit the dtype (a wrapping add gives None)."""
    if depth == 0 or v.type.dtype[0] not in "iu" or v.type.dtype == "i1":
        return None
    c = constant_value(v)
    if c is not None and not isinstance(c, bool):
        return (int(c), int(c))
    op = defining(v)
    if op is None:
        return None
    name = op.name
    if name == "tensor.iota":
        n = op.result.type.shape[op.attrs["dim"]]
        bits = int(v.type.dtype[1:]) - (v.type.dtype[0] == "i")
        return (0, n - 1) if n and n - 1 < (1 << bits) else None   # (no wrapped count)
    if name in ("tensor.broadcast_to", "tensor.reduce_max", "tensor.reduce_min"):
        return int_range(op.operands[0], depth - 1)   # (a max/min of elements is one)
    if name in ("tensor.max", "tensor.min", "tensor.add", "tensor.sub", "tensor.select"):
        xs = op.operands[1:] if name == "tensor.select" else op.operands
        r = [int_range(x, depth - 1) for x in xs]
        if name == "tensor.max":
            known = [x for x in r if x is not None]
            if not known:
                return None
            lo = max(x[0] for x in known)
            return (lo, max(x[1] for x in r)) if None not in r else (lo, None)
        if name == "tensor.min":
            known = [x for x in r if x is not None]
            if not known:
                return None
            hi = min(x[1] for x in known if x[1] is not None) if any(
                x[1] is not None for x in known) else None
            if hi is None:
                return None
            return (min(x[0] for x in r), hi) if None not in r else (None, hi)
        if None in r or any(None in x for x in r):
            return None
        if name == "tensor.select":
            out = (min(r[0][0], r[1][0]), max(r[0][1], r[1][1]))
        elif name == "tensor.add":
            out = (r[0][0] + r[1][0], r[0][1] + r[1][1])
        else:
            out = (r[0][0] - r[1][1], r[0][1] - r[1][0])
        bits = int(v.type.dtype[1:])
        lo_t, hi_t = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if v.type.dtype[0] == "i" \
            else (0, (1 << bits) - 1)
        return out if lo_t <= out[0] and out[1] <= hi_t else None
    return None


_DECIDE = {"tensor.lt": lambda lo, hi, c: True if hi is not None and hi < c else (
               False if lo is not None and lo >= c else None),
           "tensor.le": lambda lo, hi, c: True if hi is not None and hi <= c else (
               False if lo is not None and lo > c else None),
           "tensor.gt": lambda lo, hi, c: True if lo is not None and lo > c else (
               False if hi is not None and hi <= c else None),
           "tensor.ge": lambda lo, hi, c: True if lo is not None and lo >= c else (
               False if hi is not None and hi < c else None)}
_MIRROR = {"tensor.lt": "tensor.gt", "tensor.gt": "tensor.lt", "tensor.le": "tensor.ge",
           "tensor.ge": "tensor.le"}


def _compare_by_range(op, rw):
    """x < c (<=, >, >=; either side) -> True or False when ``int_range(x)`` decides it for
    every element: the bounds checks of indices already clipped into range."""
    for k, name in ((1, op.name), (0, _MIRROR[op.name])):
        c = constant_value(op.operands[k])
        if c is None or isinstance(c, bool) or isinstance(c, float) and not c.is_integer():
            continue
        r = int_range(op.operands[1 - k])
        if r is None:
            continue
        verdict = _DECIDE[name](r[0], r[1], c)
        if verdict is not None:
            rw.replace_op(op, [rw.constant_like(op.result, verdict)])
            return True
    return False


def _clipped_index_check(cmp):
    def body(b, x):
        clipped = b.one("tensor.min", b.one("tensor.max", x, b.constant(0, "i64")),
                        b.constant(4, "i64"))
        return b.one(cmp, clipped, b.constant(5 if cmp in ("tensor.lt", "tensor.ge") else -1,
                                              "i64"))
    return unary_chain(body, "i64", rank=2)


def _reduce_of_constant(op, rw):
    """all/any/max/min over a constant's copies -> the constant (an empty all: True, an empty
    any: False; an empty max/min is left alone: NumPy raises there)."""
    c = constant_value(op.operands[0])
    if c is None or not op.operands[0].type.static:
        return False
    shape = op.operands[0].type.shape
    empty = math.prod(shape[a] for a in op.attrs["axes"]) == 0   # nothing to reduce
    if op.name in ("tensor.reduce_max", "tensor.reduce_min"):
        if empty:
            return False
        value = c
    else:
        value = (op.name == "tensor.reduce_all") if empty else bool(c)
    rw.replace_op(op, [rw.constant_like(op.result, value)])
    return True


def _select_equal_constants(op, rw):
    a, b = constant_value(op.operands[1]), constant_value(op.operands[2])
    if a is None or type(a) is not type(b) or isinstance(a, float) or a != b or \
            op.operands[1].type.dtype != op.result.type.dtype:
        return False
    rw.replace_op(op, [rw.constant_like(op.result, a)])
    return True


def _select_extreme(op, rw):
    """select(x > c, x, c) -> fmax(x, c); select(x < c, x, c) -> fmin(x, c)."""
    cmp = defining(op.operands[0])
    if cmp is None or cmp.name not in ("tensor.gt", "tensor.lt") or \
            op.result.type.dtype[0] != "f":
        return False
    x, c = cmp.operands
    if op.operands[1] is not x or op.operands[2] is not c or x.type != op.result.type or \
            c.type.dtype != x.type.dtype:
        return False
    value = constant_value(c)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or \
            math.isnan(value) or value == 0:
        return False
    name = "tensor.fmax" if cmp.name == "tensor.gt" else "tensor.fmin"
    rw.replace_op(op, [rw.one(name, x, c)])
    return True


def _select_extreme_sample(cmp, value):
    def body(b, x):
        c = b.constant(value, "f64")
        return b.one("tensor.select", b.one(cmp, x, c), x, c)
    return unary_chain(body, "f64", rank=2)


ALGEBRA = [
    Pattern("add-zero", "tensor.add", _identity_operand(0, int_only=True),
            "x + 0 -> x, integers (floats: -0.0 + 0 is 0.0)",
            sample=binary_with_constant("tensor.add", 0, "i32")),
    Pattern("add-negative-zero", "tensor.add", _add_negative_zero,
            "x + (-0.0) -> x, real floats (exact: -0.0 + 0.0 is 0.0, NaN and inf stay)",
            sample=binary_with_constant("tensor.add", -0.0, "f64")),
    Pattern("add-complex-negative-zero", "tensor.add", _add_complex_negative_zero,
            "x + complex(-0.0, -0.0) -> x, complex (each part adds -0.0: exact)",
            sample=binary_with_constant("tensor.add", complex(-0.0, -0.0), "c128")),
    Pattern("sub-zero", "tensor.sub", _identity_operand(0, positions=(1,)),
            "x - 0 -> x, any dtype (x - 0.0 is x bit for bit, -0.0 included)",
            sample=binary_with_constant("tensor.sub", 0, "f64", const_second=True)),
    Pattern("mul-one", "tensor.mul", _identity_operand(1, real_only=True),
            "x * 1 -> x for real dtypes (exact for NaN, inf and -0.0; complex: inf * (1+0j) "
            "has a NaN part)",
            sample=binary_with_constant("tensor.mul", 1, "f32")),
    Pattern("div-one", "tensor.div", _identity_operand(1, positions=(1,), real_only=True),
            "x / 1 -> x for real floats (true division by 1 is exact)",
            sample=binary_with_constant("tensor.div", 1, "f64", const_second=True)),
    *[Pattern(f"pow-two-{dt}", "tensor.pow", _pow_two,
              "x ** 2 -> x * x (NumPy's own square; exact for reals and integers)",
              sample=binary_with_constant("tensor.pow", 2, dt, const_second=True))
      for dt in ("f64", "c128", "i32")],
    Pattern("mul-zero-int", "tensor.mul", _int_times_zero,
            "x * 0 -> 0, integers only (floats: NaN * 0 is NaN)",
            sample=binary_with_constant("tensor.mul", 0, "i64")),
    Pattern("sub-self-int", "tensor.sub", _int_sub_self,
            "x - x -> 0, integers only (floats: inf - inf is NaN)",
            sample=unary_chain(lambda b, x: b.one("tensor.sub", x, x), "i16")),
    Pattern("neg-neg", "tensor.neg", _neg_neg, "-(-x) -> x (exact, wraparound included)",
            sample=unary_chain(lambda b, x: b.one("tensor.neg", b.one("tensor.neg", x)), "i8")),
    Pattern("convert-same", "tensor.convert", operand_if_same_type,
            "convert(x, dtype(x)) -> x",
            sample=unary_chain(lambda b, x: b.one("tensor.convert", x, dtype="f64"), "f64")),
    *[Pattern(f"{name.split('.')[1]}-of-integral", name, _integral_of_integral,
              f"{name.split('.')[1]}(t) -> t for t = floor/ceil/trunc of a float (t is "
              "integral, NaN, an infinity or a signed zero: each its own floor, ceil and "
              "trunc); `math.floor` is np.floor then the trunc of an int() conversion",
              sample=unary_chain(lambda b, x, name=name: b.one(name, b.one(
                  "tensor.floor", x)), "f64", rank=2))
      for name in _INTEGRAL],
    Pattern("int64-round-trip", "tensor.convert", _int64_round_trip,
            "float(int64(t)) -> select(|t| < 2**63, t (-0.0 as 0.0), -2**63) for t = floor/"
            "ceil/trunc of a float (f32 or f64 result): an integral t in int64's range "
            "converts exactly both ways (int64 has no -0); NaN, inf and the rest give "
            "int64's minimum, which NumPy's cast gives on x86-64 (cvttsd2si; elsewhere the "
            "cast is platform-defined). It is Python's `2.0 * math.pi * math.floor(a)`, an "
            "int round trip that x86 without AVX-512 converts one element at a time, where "
            "the select vectorizes (polar_helper_loops). When the inner conversion is "
            "Python's int() (``fits_checked``: its check that t fits int64 comes first), "
            "select(t == 0, 0.0, t): where t does not fit, the check has failed and the "
            "function raises, whatever the value",
            sample=unary_chain(_round_trip_sample, "f64", rank=2)),
    Pattern("select-constant", "tensor.select", _select_constant,
            "select(True, a, b) -> a; select(False, a, b) -> b (same shape)",
            sample=unary_chain(lambda b, x: b.one("tensor.select", b.constant(True, "i1"), x,
                                                  b.one("tensor.neg", x)), "f64")),
    Pattern("select-nested", "tensor.select", _select_nested,
            "select(c1, select(c2, x, b), b) -> select(c1 & c2, x, b); select(c1, a, "
            "select(c2, a, y)) -> select(c1 | c2, a, y) (the inner select used only there): "
            "a masked update of a masked update (np.where of a raised loop's guard) is one "
            "select, and its gradient one",
            sample=unary_chain(_nested_sample, "f64")),
    Pattern("select-max-constant", "tensor.select", _select_extreme,
            "select(x > c, x, c) -> fmax(x, c) (and < / fmin) for a real float constant c "
            "that is neither NaN nor zero: a NaN x fails the test and gives c, as fmax "
            "ignores a NaN; an x equal to c is c's value, with no sign of zero to tell them "
            "apart. It is the guard raising puts on each element of an `if d > m: m = d` "
            "reduction (m starts at -inf), which the native backend runs as a vectorized "
            "maxnum instead of a compare and select",
            sample=_select_extreme_sample("tensor.gt", -math.inf)),
    Pattern("select-min-constant", "tensor.select", _select_extreme,
            "select(x < c, x, c) -> fmin(x, c), as select-max-constant",
            sample=_select_extreme_sample("tensor.lt", 1.5)),
    Pattern("or-false", "tensor.or", _bool_identity(False), "x or False -> x (booleans)",
            sample=binary_with_constant("tensor.or", False, "i1")),
    Pattern("and-true", "tensor.and", _bool_identity(True), "x and True -> x (booleans)",
            sample=binary_with_constant("tensor.and", True, "i1")),
    Pattern("not-constant", "tensor.not", _not_constant, "not(True) -> False, not(False) -> True",
            sample=unary_chain(lambda b, x: b.one("tensor.not", b.one(
                "tensor.broadcast_to", b.constant(True, "i1"), shape=list(x.type.shape))),
                "i64", rank=2)),
    Pattern("not-not", "tensor.not", _not_not, "not(not(x)) -> x (booleans)",
            sample=unary_chain(lambda b, x: b.one("tensor.not", b.one("tensor.not", x)),
                               "i1", rank=2)),
    *[Pattern(f"{name.split('.')[1]}-self", name, _idempotent,
              f"x {sym} x -> x (booleans): two run-time checks of "
              "one condition (math.cos and math.sin of one angle) made one conjunction of "
              "it with itself",
              sample=unary_chain(lambda b, x, name=name: b.one(name, x, x), dt, rank=2))
      for name, sym, dt in (("tensor.and", "and", "i1"), ("tensor.or", "or", "i1"))],
    Pattern("select-not", "tensor.select", _select_not,
            "select(not c, a, b) -> select(c, b, a) (c boolean): the code of a failed check "
            "picked by a condition written `not isnan(t)`",
            sample=unary_chain(lambda b, x: b.one(
                "tensor.select", b.one("tensor.not", b.one("tensor.gt", x, b.constant(
                    0.0, "f64"))), x, b.one("tensor.neg", x)), "f64", rank=2)),
    Pattern("eq-self", "tensor.eq", _eq_self,
            "x == x -> True for integers and booleans (floats: NaN == NaN is False); the "
            "run-time checks compare an error code with itself where it is a constant",
            sample=unary_chain(lambda b, x: b.one("tensor.eq", x, x), "i16", rank=2)),
    *[Pattern(f"compare-by-range-{cmp.split('.')[1]}", cmp, _compare_by_range,
              f"{cmp.split('.')[1]}(x, c) -> a constant when the integer range of x (from "
              "constants, iota, min/max, select, +/- constants) decides it for every element",
              sample=_clipped_index_check(cmp))
      for cmp in ("tensor.lt", "tensor.le", "tensor.gt", "tensor.ge")],
    *[Pattern(f"reduce-of-constant-{k}", f"tensor.reduce_{k}", _reduce_of_constant,
              f"reduce_{k}(broadcast(c), axes) -> c (an empty all: True, an empty any: False)",
              sample=unary_chain(lambda b, x, k=k: b.one(
                  f"tensor.reduce_{k}", b.one("tensor.broadcast_to", b.constant(
                      True if k in ("all", "any") else 3, "i1" if k in ("all", "any")
                      else "i64"), shape=list(x.type.shape)),
                  axes=[0] if k in ("all", "any") else [1], keepdims=False), "i64", rank=2))
      for k in ("all", "any", "max", "min")],
    Pattern("select-equal-constants", "tensor.select", _select_equal_constants,
            "select(c, k, k) -> k broadcast to the result's shape, for equal integer or "
            "boolean constants k (floats are left: 0.0 and -0.0 compare equal): a run-time "
            "check's payload that is the same constant on every branch",
            sample=unary_chain(lambda b, x: b.one(
                "tensor.select", b.one("tensor.gt", x, b.constant(0, "i64")),
                b.constant(7, "i64"), b.constant(7, "i64")), "i64", rank=2)),
    Pattern("select-same", "tensor.select", _select_same, "select(c, a, a) -> a",
            sample=unary_chain(lambda b, x: b.one(
                "tensor.select", b.one("tensor.gt", x, b.constant(0.0, "f64")), x, x), "f64")),
]

# Rows the gradient program applies (``autodiff.api``) and the primal pipeline does not.
GRADIENT_ONLY = [
    Pattern("outer-as-mul", "tensor.dot_general", _outer_as_mul,
            "dot_general(x, y) with no contracted dims (batch dims leading, in order) -> "
            "x[b, l, None] * y[b, None, r] (each element is the one product x[b, l] y[b, r] "
            "either way): a cotangent's outer product "
            "is element work that fuses into the sum it is added to (one pass over the "
            "matrix, in place in the accumulated cotangent)",
            sample=unary_chain(_outer_sample, "f64", rank=2)),
]
