"""Loop-invariant run-time checks move in front of their ``loop.for``.

An ``error.check`` directly in a ``loop.for`` body whose operands (condition and payload)
are loop-invariant, with no op before it in the body that can fail (another check, or an op
whose regions hold one), moves in front of the loop, together with the ops of the body that
compute its operands when those are pure arithmetic of values from outside the loop (no
element access: those keep their own checks). When the loop's
bounds do not show that it makes a trip, the check that moves is ``ok or the range is
empty`` (``lb >= ub`` for a positive constant step, ``lb <= ub`` for a negative one);
loops with a run-time step keep their checks. Innermost loops go first, so a check may
leave a nest one loop at a time. A check of the loop's own counter (``f[t + c]``, step 1)
that is the only thing in the loop that can fail moves too, checking the first and the last
trip (``_hoist_range_check``).

Identity: the check evaluates the same condition in every iteration, and in the first
iteration nothing before it can fail; so the loop stops at this check exactly when it makes
a trip and the condition is false, before any other check of the loop could fail, which is
when the check in front of the loop fails. Failures are values (checks_to_values.py) and
nothing is written back after one, so which check fails first is the only thing visible,
and it is the same. Checks inside ``loop.if`` or ``loop.while`` bodies stay where they are.

Why: a check of a loop-invariant index (``wall[row, i]`` with a scalar ``row``) otherwise
becomes an error flag carried through every iteration, which keeps the loop from running
as a plain (vectorizable, parallel-without-flags) loop on the native backend.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation
from ..ir.registry import get
from .base import Pass
from .licm import _defined_inside, _runs_at_least_once


def _can_fail(op: Operation) -> bool:
    """A check, or an op holding one; a print counts too: a check moved in front of it
    would stop the program before a line Python prints."""
    return op.name in ("error.check", "io.print") or any(
        inner.name in ("error.check", "io.print") for r in op.regions for inner in r.block.walk())


def _const(v):
    o = v.owner
    if isinstance(o, Operation) and o.name == "tensor.constant":
        return o.attrs["value"]
    return None


def _emit(name: str, operands: list, before: Operation, loc):
    types = [o.type for o in operands]
    op = Operation(name, operands, get(name).infer(types, {}), {}, None, loc)
    before.parent.insert_before(before, op)
    return op.result


def _invariant_slice(values, inside: set, body: Block):
    """The ops of ``body`` that compute ``values`` (in body order) when each is pure,
    region-free, no element access, and depends only on values from outside the loop or on
    other such ops; None when one is not."""
    need, todo = set(), list(values)
    while todo:
        v = todo.pop()
        if v not in inside:
            continue
        o = v.owner
        if not isinstance(o, Operation) or o.parent is not body or o.regions or \
                not get(o.name).pure or "spec" in o.attrs:
            return None
        if o not in need:
            need.add(o)
            todo.extend(o.operands)
    return [o for o in body.ops if o in need]


def _hoist_from(loop: Operation) -> int:
    body = loop.regions[0].block
    inside = _defined_inside(loop)
    certain = _runs_at_least_once(loop, 0)
    step = _const(loop.operands[2])
    moved = 0
    for op in list(body.ops):
        if op.name != "error.check":
            if _can_fail(op):
                break
            continue
        feeding = _invariant_slice(op.operands, inside, body)
        if feeding is None:
            moved += _hoist_range_check(loop, op, body, inside, step)
            break   # a check that stays: nothing after it may move before it
        for f in feeding:
            f.move_before(loop)
            inside.difference_update(f.results)
        if not certain:
            if step is None or step == 0:
                break
            lb, ub = loop.operands[0], loop.operands[1]
            empty = _emit("tensor.ge" if step > 0 else "tensor.le", [lb, ub], loop, op.loc)
            op.operands[0] = _emit("tensor.or", [op.operands[0], empty], loop, op.loc)
        op.move_before(loop)
        moved += 1
    return moved


def _offset(e, t, inside: set, body: Block):
    """``(c, ops)`` with ``e == t + c`` (``c`` None for ``e is t``), ``c`` loop-invariant and
    ``ops`` the body's ops computing it (to move out); False otherwise."""
    if e is t:
        return None, []
    o = e.owner
    if not isinstance(o, Operation) or o.name != "tensor.add" or o.parent is not body:
        return False
    for a, c in ((o.operands[0], o.operands[1]), (o.operands[1], o.operands[0])):
        if a is t and c.type.rank == 0:
            ops = _invariant_slice([c], inside, body)
            if ops is not None:
                return c, ops
    return False


def _bounds(cond, inside: set, body: Block):
    """``(e, lo, hi, ops)`` when ``cond`` is ``lo <= e and e < hi`` (an index check, either
    order) with ``lo`` and ``hi`` loop-invariant, computed by ``ops`` of the body; else
    None."""
    o = cond.owner
    if not isinstance(o, Operation) or o.name != "tensor.and" or o.parent is not body:
        return None
    a, b = (x.owner for x in o.operands)
    if not (isinstance(a, Operation) and isinstance(b, Operation)):
        return None
    if a.name == "tensor.lt":
        a, b = b, a
    if a.name != "tensor.ge" or b.name != "tensor.lt" or a.operands[0] is not b.operands[0]:
        return None
    lo, hi = a.operands[1], b.operands[1]
    ops = _invariant_slice([lo, hi], inside, body)
    return None if ops is None else (a.operands[0], lo, hi, ops)


def _hoist_range_check(loop: Operation, op: Operation, body: Block, inside: set, step) -> int:
    """Move in front of the loop a check ``lo <= t + c < hi`` of the loop's own counter
    ``t`` (step 1) that is the only thing in the loop that can fail: it holds in every trip
    when it holds at the first and the last (``t + c`` only grows); when it does not, the
    first failing trip is the first one (payload ``lb + c``) or the one where ``t + c`` reaches
    ``hi`` (payload ``hi``). The trips before that failure wrote nothing a caller sees (a
    failure discards every write) and ran no other check, so failing before the loop is the
    same failure. Returns 1 when it moved."""
    t = body.args[0]
    if step != 1 or len(op.operands) != 2 or any(_can_fail(o) for o in body.ops
                                                  if o is not op):
        return 0
    cond, payload = op.operands
    found = _bounds(cond, inside, body)
    if found is None or found[0] is not payload or payload.type.dtype != "i64":
        return 0
    e, lo, hi, ops = found
    off = _offset(e, t, inside, body)
    if off is False:
        return 0
    c, more = off
    for f in [o for o in body.ops if o in set(ops) | set(more)]:
        f.move_before(loop)
        inside.difference_update(f.results)
    lb, ub = loop.operands[0], loop.operands[1]
    one = _emit_constant(1, loop, op.loc)
    first = lb if c is None else _emit("tensor.add", [lb, c], loop, op.loc)
    last = _emit("tensor.sub", [ub, one], loop, op.loc)
    if c is not None:
        last = _emit("tensor.add", [last, c], loop, op.loc)
    above = _emit("tensor.ge", [first, lo], loop, op.loc)
    first_ok = _emit("tensor.and", [above, _emit("tensor.lt", [first, hi], loop, op.loc)],
                     loop, op.loc)
    all_ok = _emit("tensor.and", [above, _emit("tensor.lt", [last, hi], loop, op.loc)],
                   loop, op.loc)
    empty = _emit("tensor.ge", [lb, ub], loop, op.loc)
    op.operands[0] = _emit("tensor.or", [all_ok, empty], loop, op.loc)
    op.operands[1] = _emit("tensor.select", [first_ok, hi, first], loop, op.loc)
    op.move_before(loop)
    return 1


def _emit_constant(value: int, before: Operation, loc):
    op = Operation("tensor.constant", [], get("tensor.constant").infer(
        [], {"dtype": "i64", "value": value}), {"dtype": "i64", "value": value}, None, loc)
    before.parent.insert_before(before, op)
    return op.result


def _run(block: Block) -> int:
    moved = 0
    for op in list(block.ops):
        for region in op.regions:
            moved += _run(region.block)
        if op.name == "loop.for":
            moved += _hoist_from(op)
    return moved


def hoist_checks(fn: Function) -> Function:
    _run(fn.body)
    return fn


class HoistChecks(Pass):
    name = "hoist_checks"

    def run(self, fn: Function) -> Function:
        return hoist_checks(fn)
