"""An innermost loop whose index checks hold at both ends of its range runs without them.

A ``loop.for`` with step 1 and no loop inside it, every ``error.check`` of which (in its
body, or in a ``loop.if`` branch there) tests an index range ``x >= lo and x < hi`` (the
shape the frontend emits: ``lo``, ``hi`` integer constants of magnitude below 2**62; ``x`` an
i64 scalar affine in the loop's counter: the counter, values from outside the loop and
constants combined by add, sub and multiplication by a constant, with a net coefficient of
magnitude at most 2**16), becomes

    ok = lb < ub and lb >= -2**40 and ub <= 2**40
         and <each check's condition at i = lb> and <each check's condition at i = ub - 1>
    results = loop.if ok { the loop without those checks } else { the loop as it was }

Identity: ``x(i) = a*i + b`` modulo 2**64, with ``b`` the same in every iteration. Over the
range the exact ``a*i + b`` moves by less than 2**57; since ``x(lb)`` lies in ``[lo, hi)``,
inside (-2**62, 2**62), it never leaves the int64 range, so ``x`` is linear (monotone) over
the range and in ``[lo, hi)`` at both ends, hence in every iteration: no check of the loop
can fail, and dropping them changes no result. When ``ok`` is false the loop runs as it was,
checks and all (a check in a branch that never runs may be why: ``ok`` is only sufficient).

Why: a check inside a loop becomes an error code and payload carried through every
iteration by a chain of selects (checks_to_values.py), which LLVM can neither vectorize nor
drop; the clean copy is a plain loop (knapsack's ``best[i, c - wt]`` under ``if wt <= c``).
Only loops left with no check at all are versioned, so each copy costs one loop's code.
The native backend turns it on (``NativeBackend.pass_defaults``).
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation, Region, clone_op
from ..ir.registry import get
from ..ir.types import TensorType
from .base import BackendPass
from .licm import _defined_inside

I64 = TensorType((), "i64")
I1 = TensorType((), "i1")
MAX_COEF = 2 ** 16
MAX_BOUND = 2 ** 62
MAX_COUNTER = 2 ** 40
_LOOPS = ("loop.for", "loop.while")


def _const(v):
    o = v.owner
    if isinstance(o, Operation) and o.name == "tensor.constant" and o.results[0].type == I64:
        return int(o.attrs["value"])
    return None


def _coefficient(v, iv, inside: set):
    """The coefficient of ``iv`` in ``v`` when ``v`` is an i64 scalar affine in it (see the
    module docstring), else None."""
    if v.type != I64:
        return None
    if v is iv or v not in inside:
        return 1 if v is iv else 0
    o = v.owner
    if not isinstance(o, Operation) or o.regions:
        return None
    if o.name == "tensor.constant":
        return 0
    if o.name in ("tensor.add", "tensor.sub"):
        a, b = (_coefficient(x, iv, inside) for x in o.operands)
        if a is None or b is None:
            return None
        c = a + b if o.name == "tensor.add" else a - b
    elif o.name == "tensor.mul":
        ka, kb = (_const(x) for x in o.operands)
        k, other = (ka, o.operands[1]) if ka is not None else (kb, o.operands[0])
        if k is None:
            return None
        c = _coefficient(other, iv, inside)
        if c is None:
            return None
        c *= k
    else:
        return None
    return c if abs(c) <= MAX_COEF else None


def _is_range_check(cond, iv, inside: set) -> bool:
    """``cond`` is ``x >= lo and x < hi`` (either order) with constant bounds and ``x``
    affine in ``iv``."""
    o = cond.owner
    if not (isinstance(o, Operation) and o.name == "tensor.and"):
        return False
    parts = [p.owner for p in o.operands]
    if not all(isinstance(p, Operation) for p in parts):
        return False
    names = sorted(p.name for p in parts)
    if names != ["tensor.ge", "tensor.lt"]:
        return False
    ge, lt = sorted(parts, key=lambda p: p.name)
    x = ge.operands[0]
    if lt.operands[0] is not x:
        return False
    lo, hi = _const(ge.operands[1]), _const(lt.operands[1])
    if lo is None or hi is None or abs(lo) >= MAX_BOUND or abs(hi) >= MAX_BOUND:
        return False
    # the condition's own ops must be re-evaluable in front of the loop
    return _coefficient(x, iv, inside) is not None


def _emit(name, operands, before: Operation, attrs=None, type_=None):
    types = [o.type for o in operands]
    rt = [type_] if type_ is not None else get(name).infer(types, attrs or {})
    op = Operation(name, operands, rt, attrs or {}, None, before.loc)
    before.parent.insert_before(before, op)
    return op.result


def _constant(value: int, before: Operation):
    return _emit("tensor.constant", [], before, {"dtype": "i64", "value": value}, I64)


def _at(v, iv, value, inside: set, before: Operation, memo: dict):
    """``v`` computed with ``iv`` = ``value``, by copies of its ops in front of ``before``."""
    if v is iv:
        return value
    if v not in inside:
        return v
    if v in memo:
        return memo[v]
    o = v.owner
    vmap = {x: _at(x, iv, value, inside, before, memo) for x in o.operands}
    new = clone_op(o, vmap)
    before.parent.insert_before(before, new)
    memo[v] = new.results[v.index]
    return memo[v]


def _version(loop: Operation) -> bool:
    if _const(loop.operands[2]) != 1:
        return False
    body = loop.regions[0].block
    if any(o.name in _LOOPS for o in body.walk()):
        return False
    checks = [o for o in body.walk() if o.name == "error.check"]
    if not checks or any(o.name == "io.print" for o in body.walk()):
        return False
    iv, inside = body.args[0], _defined_inside(loop)
    if not iv.type == loop.operands[0].type == loop.operands[1].type == I64:
        return False
    if not all(_is_range_check(c.operands[0], iv, inside) for c in checks):
        return False
    lb, ub = loop.operands[0], loop.operands[1]
    last = _emit("tensor.sub", [ub, _constant(1, loop)], loop)
    ok = _emit("tensor.lt", [lb, ub], loop)
    ok = _emit("tensor.and", [ok, _emit("tensor.ge", [lb, _constant(-MAX_COUNTER, loop)],
                                        loop)], loop)
    ok = _emit("tensor.and", [ok, _emit("tensor.le", [ub, _constant(MAX_COUNTER, loop)],
                                        loop)], loop)
    for end in (lb, last):
        memo: dict = {}
        for c in checks:
            ok = _emit("tensor.and", [ok, _at(c.operands[0], iv, end, inside, loop, memo)],
                       loop)
    versioned(loop, ok, checks)
    return True


def versioned(loop: Operation, ok, checks: list) -> dict:
    """``loop.if ok { a copy of loop without checks } else { loop as it was }`` in
    ``loop``'s place; the map from ``loop``'s ops to the copy's."""
    clean = clone_op(loop, {})
    copies = dict(zip(loop.walk(), clean.walk()))
    for c in checks:
        copies[c].erase()
    or_as_it_was(loop, ok, [clean], list(clean.results))
    return copies


def or_as_it_was(loop: Operation, ok, then_ops: list, then_values: list) -> None:
    """``loop.if ok { then_ops; yield then_values } else { loop as it was }`` in ``loop``'s
    place (``then_values`` stand for ``loop``'s results)."""
    branch = Operation("loop.if", [ok], [r.type for r in loop.results], {},
                       [Region(Block()), Region(Block())], loop.loc)
    loop.parent.insert_before(loop, branch)
    for r, n in zip(loop.results, branch.results):
        r.replace_all_uses_with(n)
    then, other = branch.regions[0].block, branch.regions[1].block
    for o in then_ops:
        then.append(o)
    then.append(Operation("loop.yield", then_values, [], {}, None, loop.loc))
    loop._detach()
    other.append(loop)
    other.append(Operation("loop.yield", list(loop.results), [], {}, None, loop.loc))


def each_for_loop(block: Block, transform) -> int:
    """``transform`` on every ``loop.for`` under ``block``, outermost first; the loops it
    transforms (returns True for) are not entered."""
    n = 0
    for op in list(block.ops):
        if op.name == "loop.for" and transform(op):
            n += 1
            continue
        for region in op.regions:
            n += each_for_loop(region.block, transform)
    return n


def version_checks(fn: Function) -> Function:
    each_for_loop(fn.body, _version)
    return fn


class VersionChecks(BackendPass):
    name = "version_checks"

    def transform(self, fn: Function) -> int:
        return each_for_loop(fn.body, _version)
