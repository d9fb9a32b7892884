"""Remove run-time checks that interval arithmetic proves can never fail.

Integer scalars get an interval [lo, hi] where one is known: constants, the induction
variable of a ``loop.for`` whose bounds and step have known intervals (``range(1, n - 1)``
with ``n`` from a shape), and ``add``/``sub``/``mul``/``neg``/``abs``/``convert``/``max``/``min``
of known intervals. Comparisons whose outcome is the same over the whole intervals become
known booleans, and so do ``and``/``or``/``not`` of known booleans. An ``error.check`` whose
condition is known true is erased: it could never fire.

Integer arrays get one interval holding all their elements (``np.clip(k, 1, 31)``), so a
check that every element of an index array is in range (``reduce_all`` of comparisons) is
proven the same way, and a ``tensor.gather`` whose indices are proven in range is marked
``unchecked`` (it clamps, as every gather does in the IR's semantics, but a backend need not
test each index).

Inside a ``loop.if``, its condition holds in the then-branch and fails in the else-branch:
comparisons of an integer with a known interval narrow the other side's interval there
(``if i < n: a[i]`` proves ``i < n``; ``and``, ``or``, ``not`` and the ``select`` forms of
``x and y`` and ``x or y`` are followed), only for the ops of that branch.

Float scalars get an interval too, meaning "not NaN and within [lo, hi]" (bounds may be
infinite): constants, integers converted exactly, ``trunc``/``floor``/``ceil``/``neg``/
``max``/``min`` and float64 ``add``/``sub``/``mul`` of known intervals (rounding to nearest is
monotone, so the rounded corners bound the rounded results; widened by one float each way,
as a fused multiply-add rounds once), and a true ordered comparison
inside an ``if`` (``if v >= 0 and v < n: counts[int(v)]``: ``v`` is no NaN and lies in
[0, n), a strict bound one float below n). ``isnan`` of such a value is known false,
``isinf`` too when both bounds are finite, and its conversion to an integer (truncation)
gets the truncated bounds, so the checks of ``int(v)`` (NaN, infinity, beyond 2**63) and of
the index it makes are proven (also when the guard and the index read the same element
twice: a scalar read repeated in a block inside the first one's has its interval). A false
comparison narrows nothing for floats (NaN fails every ordered comparison) unless both sides
are known not to be NaN.

Identity: a check that holds on every value its operands can take changes nothing when
removed. Checks are never removed on a guess: an unknown interval keeps the check.
"""
from __future__ import annotations

import math

import numpy as np

from ..ir.core import Block, Function
from ..ir.types import is_int
from .base import Pass

_INT_BIN = {
    "tensor.add": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "tensor.sub": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "tensor.mul": lambda a, b: (min(p := [x * y for x in a for y in b]), max(p)),
    "tensor.max": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    "tensor.min": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
}
# comparison -> (always true, always false) over intervals a, b
_CMP = {
    "tensor.lt": lambda a, b: (a[1] < b[0], a[0] >= b[1]),
    "tensor.le": lambda a, b: (a[1] <= b[0], a[0] > b[1]),
    "tensor.gt": lambda a, b: (a[0] > b[1], a[1] <= b[0]),
    "tensor.ge": lambda a, b: (a[0] >= b[1], a[1] < b[0]),
}
_INT64 = (-2**63, 2**63 - 1)
_NEGATED = {"tensor.lt": "tensor.ge", "tensor.le": "tensor.gt", "tensor.gt": "tensor.le",
            "tensor.ge": "tensor.lt"}
_FLOATS = ("f32", "f64")
# monotone float functions of one operand: the bounds' images bound the image
_FLOAT_UN = {"tensor.trunc": math.trunc, "tensor.floor": math.floor, "tensor.ceil": math.ceil}
# integers a float of the dtype holds exactly
_EXACT_INT = {"f32": 2 ** 24, "f64": 2 ** 53}


class _Intervals:
    def __init__(self):
        self.iv: dict = {}     # integer scalar value -> (lo, hi)
        self.known: dict = {}  # i1 scalar value -> bool
        self.known_all: dict = {}  # i1 array value -> its every element's value
        self.proved_gathers = 0
        self.removed = 0
        # (operands, attributes) of a scalar read -> its first result in the blocks around
        self.reads: dict = {}

    def block(self, block: Block) -> None:
        outer = dict(self.reads)   # the reads of this block are forgotten on leaving it
        self._block(block)
        self.reads = outer

    def _block(self, block: Block) -> None:
        keep = []
        for op in block.ops:
            if op.name == "error.check" and self.known.get(op.operands[0]) is True:
                self.removed += 1
                continue
            keep.append(op)
            self.op(op)
        block.keep_only(keep)

    def op(self, op) -> None:
        name, ins = op.name, op.operands
        if name == "loop.for":
            self.loop_for(op)
            return
        if name == "loop.if":
            for region, truth in zip(op.regions, (True, False)):
                narrowed = self.narrow(ins[0], truth, {})
                saved = {v: self.iv.get(v) for v in narrowed}
                self.iv.update(narrowed)
                self.block(region.block)
                for v, old in saved.items():
                    if old is None:
                        del self.iv[v]
                    else:
                        self.iv[v] = old
            return
        for r in op.regions:
            self.block(r.block)
        if name == "tensor.gather" and not op.attrs.get("unchecked"):
            self.gather(op)
            return
        if len(op.results) != 1:
            return
        if op.result.type.rank != 0:
            self.array(op)
            return
        out = op.result
        if name == "tensor.slice":
            # the same element read again (``if 0 <= x[i] < n: c[int(x[i])]``, before cse):
            # the same value, so what is known of the first read holds for this one
            first = self.reads.setdefault((tuple(ins), repr(op.attrs)), out)
            if first is not out and first in self.iv:
                self.iv[out] = self.iv[first]
            return
        if out.type.dtype in _FLOATS:
            self.float_op(op)
            return
        if name == "tensor.constant":
            v = op.attrs["value"]
            if isinstance(v, bool):
                self.known[out] = v
            elif isinstance(v, int):
                self.iv[out] = (v, v)
        elif name in _INT_BIN and all(i in self.iv for i in self._bounded(op)):
            lo, hi = _INT_BIN[name](*self._operand_ivs(op))
            if _fits(out.type.dtype, lo, hi):
                self.iv[out] = (lo, hi)
        elif name == "tensor.neg" and ins[0] in self.iv:
            lo, hi = self.iv[ins[0]]
            if _fits(out.type.dtype, -hi, -lo):
                self.iv[out] = (-hi, -lo)
        elif name == "tensor.abs" and ins[0] in self.iv and is_int(out.type.dtype):
            lo, hi = self.iv[ins[0]]
            iv = (lo, hi) if lo >= 0 else (-hi, -lo) if hi <= 0 else (0, max(-lo, hi))
            if _fits(out.type.dtype, *iv):
                self.iv[out] = iv
        elif name == "tensor.convert" and ins[0] in self.iv and is_int(out.type.dtype):
            lo, hi = self.iv[ins[0]]
            if ins[0].type.dtype in _FLOATS:   # C's truncation toward zero
                if not (math.isfinite(lo) and math.isfinite(hi)):
                    return
                lo, hi = math.trunc(lo), math.trunc(hi)
            if _fits(out.type.dtype, lo, hi):
                self.iv[out] = (lo, hi)
        elif name == "tensor.isnan" and ins[0] in self.iv:
            self.known[out] = False
        elif name == "tensor.isinf" and ins[0] in self.iv and \
                all(math.isfinite(b) for b in self.iv[ins[0]]):
            self.known[out] = False
        elif name in _CMP and all(i in self.iv for i in ins):
            true, false = _CMP[name](self.iv[ins[0]], self.iv[ins[1]])
            if true or false:
                self.known[out] = bool(true)
        elif name == "tensor.reduce_all" and self.known_all.get(ins[0]):
            self.known[out] = True
        elif name in ("tensor.and", "tensor.or", "tensor.not"):
            vals = [self.known.get(i) for i in ins]
            if name == "tensor.not":
                if vals[0] is not None:
                    self.known[out] = not vals[0]
            elif name == "tensor.and":
                if False in vals:
                    self.known[out] = False
                elif all(v is True for v in vals):
                    self.known[out] = True
            elif True in vals:
                self.known[out] = True
            elif all(v is False for v in vals):
                self.known[out] = False

    def float_op(self, op) -> None:
        """The interval of a float scalar result (see the module docstring), if known."""
        name, ins, out = op.name, op.operands, op.result
        dtype = out.type.dtype
        iv = None
        if name == "tensor.constant":
            v = op.attrs["value"]
            if isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v):
                iv = (float(v), float(v))
        elif name == "tensor.convert" and ins[0] in self.iv:
            lo, hi = self.iv[ins[0]]
            src = ins[0].type.dtype
            if is_int(src) and max(-lo, hi) <= _EXACT_INT[dtype]:
                iv = (float(lo), float(hi))
            elif src in _FLOATS and (src == dtype or dtype == "f64"):   # exact widening
                iv = (lo, hi)
            elif src == "f64":   # to float32: rounding to nearest is monotone
                with np.errstate(over="ignore"):
                    iv = (float(np.float32(lo)), float(np.float32(hi)))
        elif name in _FLOAT_UN and ins[0] in self.iv:
            iv = tuple(float(_FLOAT_UN[name](b)) if math.isfinite(b) else b
                       for b in self.iv[ins[0]])
        elif name == "tensor.neg" and ins[0] in self.iv:
            lo, hi = self.iv[ins[0]]
            iv = (-hi, -lo)
        elif name in _INT_BIN and all(i in self.iv for i in ins) and \
                (dtype == "f64" or name in ("tensor.max", "tensor.min")):
            # Python floats are float64: its rounding, so only float64 arithmetic; add,
            # sub and mul widened by one float each way, for a backend that fuses a
            # multiply and an add into one rounding (an FMA): the result may differ there
            iv = _INT_BIN[name](*(self.iv[i] for i in ins))
            if name not in ("tensor.max", "tensor.min"):
                iv = (math.nextafter(iv[0], -math.inf), math.nextafter(iv[1], math.inf))
        if iv is not None and not any(math.isnan(b) for b in iv) and iv[0] <= iv[1]:
            self.iv[out] = iv

    def array(self, op) -> None:
        """Intervals of integer arrays (one interval holding every element): elementwise
        integer arithmetic as for scalars, bool converted to an integer (0 or 1), a
        broadcast, a select (either side's), a sum of known elements (the count of summed
        elements times each bound). Comparisons of arrays stay unknown, except as the
        operand of ``reduce_all``/``reduce_any``: true when every element's comparison
        holds over the intervals (``all(0 <= k)`` for ``k`` in [1, 31])."""
        name, ins, out = op.name, op.operands, op.result
        dtype = out.type.dtype
        if dtype[0] not in "iu" or dtype == "i1":
            if name in _CMP and all(i in self.iv for i in ins):
                true, false = _CMP[name](self.iv[ins[0]], self.iv[ins[1]])
                if true or false:
                    self.known_all[out] = bool(true)
            elif name in ("tensor.and", "tensor.bitand") and \
                    all(self.known_all.get(i) for i in ins):
                self.known_all[out] = True
            return
        iv = None
        if name in _INT_BIN and all(i in self.iv for i in self._bounded(op)):
            iv = _INT_BIN[name](*self._operand_ivs(op))
        elif name == "tensor.convert" and ins[0].type.dtype == "i1":
            iv = (0, 1)
        elif name in ("tensor.convert", "tensor.broadcast_to") and ins[0] in self.iv:
            iv = self.iv[ins[0]]
        elif name == "tensor.select" and ins[1] in self.iv and ins[2] in self.iv:
            (a, b), (c, d) = self.iv[ins[1]], self.iv[ins[2]]
            iv = (min(a, c), max(b, d))
        elif name == "tensor.reduce_sum" and ins[0] in self.iv:
            n = 1
            for ax in op.attrs["axes"]:
                d = ins[0].type.shape[ax]
                n = n * d if isinstance(d, int) and n is not None else None
            if n is not None:
                lo, hi = self.iv[ins[0]]
                iv = (min(n * lo, 0), max(n * hi, 0))
        if iv is not None and _fits(dtype, *iv):
            self.iv[out] = iv

    @staticmethod
    def _bounded(op) -> list:
        """The operands of integer op ``op`` that need a known interval: all of them, but
        for ``max``/``min`` one known side is enough (max(x, 0) >= 0 whatever x is: the
        other side is its dtype's whole range)."""
        if op.name in ("tensor.max", "tensor.min") and op.result.type.dtype[0] in "iu" and \
                op.result.type.dtype != "i1":
            return []
        return list(op.operands)

    def _operand_ivs(self, op) -> list:
        return [self.iv.get(i) or _type_range(i.type.dtype) for i in op.operands]

    def gather(self, op) -> None:
        """A gather whose every index lies in [-n, n) for its axis of length n (known
        intervals) is marked ``unchecked``: it can never raise, so a backend need not test
        each index (the native backend then computes it inside its consumer's loop)."""
        x, idx = op.operands[0], op.operands[1:]
        for ax, i in zip(op.attrs["axes"], idx):
            n = x.type.shape[ax]
            iv = self.iv.get(i)
            if not isinstance(n, int) or iv is None or not (-n <= iv[0] and iv[1] < n):
                return
        op.attrs["unchecked"] = True
        self.proved_gathers += 1

    def narrow(self, cond, truth: bool, out: dict, depth: int = 0) -> dict:
        """Intervals of integer scalars where ``cond`` is ``truth`` (added to ``out``)."""
        op = cond.owner
        if depth > 8 or not hasattr(op, "name"):
            return out
        name, ins = op.name, op.operands
        if name == "tensor.not":
            return self.narrow(ins[0], not truth, out, depth + 1)
        if name in ("tensor.and", "tensor.or") and (name == "tensor.and") == truth:
            for x in ins:   # both sides hold (and: true; or: false)
                self.narrow(x, truth, out, depth + 1)
            return out
        if name == "tensor.select":
            c, x, y = ins
            if truth and (y is c or self.known.get(y) is False):   # c and x
                self.narrow(c, True, out, depth + 1)
                self.narrow(x, True, out, depth + 1)
            elif not truth and (x is c or self.known.get(x) is True):   # c or y
                self.narrow(c, False, out, depth + 1)
                self.narrow(y, False, out, depth + 1)
            return out
        if name not in _CMP:
            return out
        a, b = ins
        floats = a.type.dtype in _FLOATS
        if not floats and not is_int(a.type.dtype):
            return out
        if floats and not truth and not all(v in out or v in self.iv for v in ins):
            return out   # a false comparison: either side may be NaN
        rel = name if truth else _NEGATED[name]
        ia, ib = self._iv_or_type(a, out), self._iv_or_type(b, out)
        lo_a, hi_a, lo_b, hi_b = ia[0], ia[1], ib[0], ib[1]
        if floats:
            below, above = (lambda x: math.nextafter(x, -math.inf)), \
                (lambda x: math.nextafter(x, math.inf))
        else:
            below, above = (lambda x: x - 1), (lambda x: x + 1)
        if rel == "tensor.lt":      # a < b
            hi_a, lo_b = min(hi_a, below(hi_b)), max(lo_b, above(lo_a))
        elif rel == "tensor.le":
            hi_a, lo_b = min(hi_a, hi_b), max(lo_b, lo_a)
        elif rel == "tensor.gt":    # a > b
            lo_a, hi_b = max(lo_a, above(lo_b)), min(hi_b, below(hi_a))
        else:                       # a >= b
            lo_a, hi_b = max(lo_a, lo_b), min(hi_b, hi_a)
        for v, lo, hi in ((a, lo_a, hi_a), (b, lo_b, hi_b)):
            # a float's interval also says it is no NaN: kept even when unbounded
            if lo <= hi and (floats or (lo, hi) != _type_range(v.type.dtype)):
                out[v] = (lo, hi)
        return out

    def _iv_or_type(self, v, out):
        return out.get(v) or self.iv.get(v) or _type_range(v.type.dtype)

    def loop_for(self, op) -> None:
        lb, ub, step = (self.iv.get(v) for v in op.operands[:3])
        iv = op.regions[0].block.args[0]
        if lb and ub and step and step[0] == step[1] and step[0] != 0:
            if step[0] > 0:
                self.iv[iv] = (lb[0], max(lb[0], ub[1] - 1))
            else:
                self.iv[iv] = (min(lb[1], ub[0] + 1), lb[1])
        body = op.regions[0].block
        self.block(body)
        self.loop_results(op, body, lb, ub, step)

    def loop_results(self, op, body, lb, ub, step) -> None:
        """Intervals of a ``loop.for``'s integer scalar results: a result is its initial
        value when the loop runs no iteration, else the last iteration's yield, so it lies
        in the hull of the two intervals, or in the yield's alone when the bounds prove at
        least one iteration (the block-level ``n = A.shape[0]`` that a kernel's threads
        assign in a loop over threads: its bound of a later loop is then known)."""
        term = body.terminator
        if term is None or len(term.operands) != len(op.results):
            return
        runs = bool(lb and ub and step and step[0] == step[1] and
                    (lb[1] < ub[0] if step[0] > 0 else lb[0] > ub[1]))
        for res, init, last in zip(op.results, op.operands[3:], term.operands):
            dt = res.type.dtype
            if res.type.rank or dt[0] not in "iu" or dt == "i1" or last not in self.iv:
                continue
            if runs:
                self.iv[res] = self.iv[last]
            elif init in self.iv:
                (a, b), (c, d) = self.iv[init], self.iv[last]
                self.iv[res] = (min(a, c), max(b, d))


def _type_range(dtype: str) -> tuple:
    if dtype in _FLOATS:
        return -math.inf, math.inf
    bits = int(dtype[1:])
    if dtype[0] == "u":
        return 0, 2 ** bits - 1
    return -2 ** (bits - 1), 2 ** (bits - 1) - 1


def _fits(dtype: str, lo: int, hi: int) -> bool:
    """Only intervals that cannot wrap around in ``dtype`` are kept."""
    bits = int(dtype[1:])
    if dtype[0] == "u":
        return 0 <= lo and hi < 2 ** bits
    return -2 ** (bits - 1) <= lo and hi < 2 ** (bits - 1)


def prove_checks(fn: Function) -> Function:
    _Intervals().block(fn.body)
    return fn


class ProveChecks(Pass):
    name = "prove_checks"

    def run(self, fn: Function) -> Function:
        return prove_checks(fn)
