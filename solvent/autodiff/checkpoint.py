"""Checkpointing for long loops: a memory budget for the reverse pass (issue 11).

A ``loop.for`` with ``n`` trips records, per trip, what its reverse step needs (its tape):
``n`` times the carried state, which for a 10,000-step time loop over a large array does not
fit in memory. Checkpointing trades memory for recomputation (Griewank's two-level scheme,
the ``sqrt(n)`` special case of a binomial schedule with one level of recursion):

    for i in range(n): body              for g in range(m):           # m checkpoints
                                   ==>       for j in range(s): body  # i = lb + (g*s + j)*step
                                         for j in range(r): body      # r = n - m*s < m

The loop is *strip-mined* into segments before the transformation sees it. The outer loop is
taped as any loop: its tape holds the carried state at the start of each segment (``m``
states, the checkpoints). Its reverse step restores a checkpoint and, differentiating the
segment loop inside, runs the segment forward again recording the segment's own tape
(``s`` states, one segment at a time), then reverses it. Memory: ``(m + s)`` states instead
of ``n``; work: one extra forward run of the loop. ``m = s = sqrt(n)`` minimizes it. A
segment loop still too long is checkpointed in turn by the same policy (``k`` checkpoints
per level: a multi-level schedule, each level one more forward run).

The policy (``checkpoints=``): ``None`` (automatic) checkpoints a loop whose tape would take
more than ``AUTO_BYTES`` with ``ceil(sqrt(n))`` checkpoints; ``0`` never checkpoints; an int
``k > 0`` gives every loop with more than ``k`` trips ``k`` checkpoints. The strip-mined ops
are templates in the original function's value space (they read its values); the original
function is not changed.
"""
from __future__ import annotations

import math

from ..ir.core import Block, Operation, Region, Value, clone_op
from ..ir.types import TensorType, np_dtype

AUTO_BYTES = 64 << 20  # a loop's tape above this is checkpointed by default


def nbytes(t) -> int:
    return int(t.size) * np_dtype(t.dtype).itemsize if isinstance(t, TensorType) else 0


def segments(n: int, per_trip: int, policy) -> int | None:
    """The number of checkpoints for a loop of ``n`` trips whose tape takes ``per_trip``
    bytes a trip, or None (tape every trip)."""
    if policy is None:
        if n * per_trip <= AUTO_BYTES or n < 4:
            return None
        k = math.isqrt(n - 1) + 1
    else:
        if isinstance(policy, bool) or not isinstance(policy, int) or policy < 0:
            raise ValueError(f"checkpoints must be None (automatic), 0 (never) or a positive "
                             f"int, got {policy!r}")
        k = policy
        if k == 0:
            return None
    return k if n // k >= 2 else None  # segments of one trip save nothing


def _const(block: Block, value: int, dtype: str, loc) -> Value:
    op = Operation("tensor.constant", [], [TensorType((), dtype)],
                   {"value": value, "dtype": dtype}, [], loc)
    block.append(op)
    return op.result


def _arith(block: Block, name: str, x: Value, y: Value, loc) -> Value:
    op = Operation(name, [x, y], [x.type], {}, [], loc)
    block.append(op)
    return op.result


class StripMined:
    """``loop`` (``n`` static trips from ``lb`` by ``step``) as ``m`` segments of ``s``
    trips and a remainder loop: ``prelude`` (constants, emitted before), ``loops`` (the
    segment loop nest, then the remainder loop when ``r > 0``), ``vmap`` (original value ->
    template value, for activity)."""

    def __init__(self, loop: Operation, n: int, lb: int, step: int, k: int):
        self.loop = loop
        m, s = k, n // k
        r = n - m * s  # fewer than m trips
        self.m, self.s, self.r = m, s, r
        body = loop.regions[0].block
        it = body.args[0].type
        dt, loc = it.dtype, loop.loc
        pre = Block()
        self.vmap: dict = {}
        zero, one = _const(pre, 0, dt, loc), _const(pre, 1, dt, loc)
        c_m, c_s = _const(pre, m, dt, loc), _const(pre, s, dt, loc)
        c_lb, c_step = _const(pre, lb, dt, loc), _const(pre, step, dt, loc)
        inits = list(loop.operands[3:])

        # the segment loop nest: for g in range(m): for j in range(s): body(lb+(g*s+j)*step)
        outer_b = Block()
        g = outer_b.add_arg(it, "seg")
        o_carried = [outer_b.add_arg(c.type, c.hint) for c in body.args[1:]]
        base = _arith(outer_b, "tensor.mul", g, c_s, loc)
        inner_b = Block()
        j = inner_b.add_arg(it, body.args[0].hint)
        i_carried = [inner_b.add_arg(c.type, c.hint) for c in body.args[1:]]
        iv = _arith(inner_b, "tensor.add", base, j, loc)
        iv = _arith(inner_b, "tensor.mul", iv, c_step, loc)
        iv = _arith(inner_b, "tensor.add", c_lb, iv, loc)
        vm = {body.args[0]: iv, **dict(zip(body.args[1:], i_carried))}
        for o in body.ops:
            inner_b.append(clone_op(o, vm))
        self._learn(body, vm)
        inner = Operation("loop.for", [zero, c_s, one] + o_carried,
                          [c.type for c in o_carried], dict(loop.attrs), [Region(inner_b)], loc)
        outer_b.append(inner)
        outer_b.append(Operation("loop.yield", list(inner.results), [], {}, [], loc))
        outer = Operation("loop.for", [zero, c_m, one] + inits,
                          [c.type for c in o_carried], dict(loop.attrs), [Region(outer_b)], loc)
        for orig, new in zip(body.args[1:], o_carried):
            self.vmap.setdefault(orig, []).append(new)
        for orig, new in zip(body.args[1:], inner.results):
            self.vmap.setdefault(orig, []).append(new)
        self.loops = [outer]
        last = outer
        if r:  # the remainder: for i in range(lb + m*s*step, ub, step)
            c_rlb = _const(pre, lb + m * s * step, dt, loc)
            c_rub = _const(pre, lb + n * step, dt, loc)
            rem_b = Block()
            vm = {body.args[0]: rem_b.add_arg(it, body.args[0].hint)}
            vm.update((c, rem_b.add_arg(c.type, c.hint)) for c in body.args[1:])
            for o in body.ops:
                rem_b.append(clone_op(o, vm))
            self._learn(body, vm)
            last = Operation("loop.for", [c_rlb, c_rub, c_step] + list(outer.results),
                             [c.type for c in body.args[1:]], dict(loop.attrs),
                             [Region(rem_b)], loc)
            self.loops.append(last)
        for orig, new in zip(loop.results, outer.results):
            self.vmap.setdefault(orig, []).append(new)
        self.results = list(last.results)
        for orig, new in zip(loop.results, last.results):
            self.vmap.setdefault(orig, []).append(new)
        self.prelude = list(pre.ops)

    def _learn(self, body: Block, vm: dict) -> None:
        for orig, new in vm.items():
            self.vmap.setdefault(orig, []).append(new)
