"""Remove run-time checks that interval arithmetic proves can never fail.

Integer scalars get an interval [lo, hi] where one is known: constants, the induction
variable of a ``loop.for`` whose bounds and step have known intervals (``range(1, n - 1)``
with ``n`` from a shape), and ``add``/``sub``/``mul``/``neg``/``convert``/``max``/``min`` of
known intervals. Comparisons whose outcome is the same over the whole intervals become
known booleans, and so do ``and``/``or``/``not`` of known booleans. An ``error.check`` whose
condition is known true is erased: it could never fire.

Identity: a check that holds on every value its operands can take changes nothing when
removed. Checks are never removed on a guess: an unknown interval keeps the check.
"""
from __future__ import annotations

from ..ir.core import Block, Function
from .base import Pass

_INT_BIN = {
    "tensor.add": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "tensor.sub": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "tensor.mul": lambda a, b: (min(p := [x * y for x in a for y in b]), max(p)),
    "tensor.maximum": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    "tensor.minimum": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
}
# comparison -> (always true, always false) over intervals a, b
_CMP = {
    "tensor.lt": lambda a, b: (a[1] < b[0], a[0] >= b[1]),
    "tensor.le": lambda a, b: (a[1] <= b[0], a[0] > b[1]),
    "tensor.gt": lambda a, b: (a[0] > b[1], a[1] <= b[0]),
    "tensor.ge": lambda a, b: (a[0] >= b[1], a[1] < b[0]),
}
_INT64 = (-2**63, 2**63 - 1)


class _Intervals:
    def __init__(self):
        self.iv: dict = {}     # integer scalar value -> (lo, hi)
        self.known: dict = {}  # i1 scalar value -> bool
        self.removed = 0

    def block(self, block: Block) -> None:
        keep = []
        for op in block.ops:
            if op.name == "error.check" and self.known.get(op.operands[0]) is True:
                self.removed += 1
                continue
            keep.append(op)
            self.op(op)
        block.ops = keep

    def op(self, op) -> None:
        name, ins = op.name, op.operands
        if name == "loop.for":
            self.loop_for(op)
            return
        for r in op.regions:
            self.block(r.block)
        if len(op.results) != 1 or op.result.type.rank != 0:
            return
        out = op.result
        if name == "tensor.constant":
            v = op.attrs["value"]
            if isinstance(v, bool):
                self.known[out] = v
            elif isinstance(v, int):
                self.iv[out] = (v, v)
        elif name in _INT_BIN and all(i in self.iv for i in ins):
            lo, hi = _INT_BIN[name](self.iv[ins[0]], self.iv[ins[1]])
            if _fits(out.type.dtype, lo, hi):
                self.iv[out] = (lo, hi)
        elif name == "tensor.neg" and ins[0] in self.iv:
            lo, hi = self.iv[ins[0]]
            if _fits(out.type.dtype, -hi, -lo):
                self.iv[out] = (-hi, -lo)
        elif name == "tensor.convert" and ins[0] in self.iv and out.type.dtype[0] in "iu" \
                and out.type.dtype != "i1":
            lo, hi = self.iv[ins[0]]
            if _fits(out.type.dtype, lo, hi):
                self.iv[out] = (lo, hi)
        elif name in _CMP and all(i in self.iv for i in ins):
            true, false = _CMP[name](self.iv[ins[0]], self.iv[ins[1]])
            if true or false:
                self.known[out] = bool(true)
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

    def loop_for(self, op) -> None:
        lb, ub, step = (self.iv.get(v) for v in op.operands[:3])
        iv = op.regions[0].block.args[0]
        if lb and ub and step and step[0] == step[1] and step[0] != 0:
            if step[0] > 0:
                self.iv[iv] = (lb[0], max(lb[0], ub[1] - 1))
            else:
                self.iv[iv] = (min(lb[1], ub[0] + 1), lb[1])
        self.block(op.regions[0].block)


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
