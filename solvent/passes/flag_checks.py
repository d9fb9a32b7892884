"""A loop nest whose value checks test what the nest itself computes runs first with one
flag in place of its checks; only when the flag says a check failed does the nest run again
as it was, to find which.

``speculate_checks`` takes the value checks whose conditions a check-only pass can compute
ahead of the loop (from the counter and the loop's inputs). The checks of a value the loop
carries cannot be computed ahead: ``math.floor`` of an angle updated every time step
(polar_helper_loops), ``math.sqrt`` of an iterate. ``checks_to_values`` would turn each of
them into an error code carried through every iteration, a chain of selects per check
(four or more ops per element and step once raised), and raising then searches the codes for
the first failing element. This pass makes a nest at most one ``and`` per check:

    ok, r' = <the nest, carrying ok = true through every loop.for and loop.if on the way to
              its checks; each check replaced by ok = ok and <its condition>>
    r = loop.if ok { r' } else { the nest as it was }

Identity: a check computes nothing the program reads (checks_to_values only adds the code
and payload), so the nest without its checks computes every result with the same ops from
the same values; when every condition held, none of the nest's checks failed and those
results are the nest's results. When one failed, the nest runs again with its checks, which
set the code and payload of the first failing check, in program order, as before. *All* the
nest's checks go into the flag, index checks too: a check left in the first run could set
the code ahead of an earlier failing check that the flag took, and the rerun would then no
longer report the first failure. For the same reason the first run's element reads and
writes at run-time indices are marked ``unchecked`` (``indexspec.speculated_attrs``): where
the native backend would raise IndexError at a bad read itself, it clamps the index there
instead (the IR's reads are total), the flag records the failure, and the rerun raises
whichever error comes first; the first run touches no memory outside the arrays. A
float-to-int64 conversion stays as it is in the first run, NumPy's handling of values out of
range included: unlike speculate_checks' clean copy, the first run also runs when a check
fails, and a conversion marked ``in_range`` would then hand an index an undefined value.

Taken only where a rerun is harmless and the flag can be threaded: every op of the nest is
pure, a ``loop.for``/``loop.if`` or their terminators, or a check; no ``loop.while`` (a
failed check ends a while loop, checks_to_values: without it a NaN iterate could keep one
running forever) and no ``io.print`` (it would print twice). And only where it pays: a value
check (kind other than IndexError) of the nest must test a *scalar* some loop of it carries.
A check of an input element is speculate_checks'; a check of a carried array's element (a
factorization's pivot) runs once per outer step, where the code it threads costs little;
and where raising turns the whole nest into tensor ops the checks become one reduction
either way, while the branch would split the fused kernels around it (row_iteration_loops
0.016 -> 0.031 ms with it). The native backend turns the pass on
(``NativeBackend.pass_defaults``): the nest is compiled twice, which XLA would pay too.
polar_helper_loops natively: 19 -> 12 ops per element and step, 1.19-1.34x faster, its
compile 250 -> 350 ms.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation, Value, clone_op
from ..ir.registry import get
from ..ops.indexspec import speculated_attrs
from .base import BackendPass
from .checks_to_values import absorbed_by
from .version_checks import I1, each_for_loop, or_as_it_was

_THREAD = ("loop.for", "loop.if")


def _eligible(loop: Operation) -> bool:
    """Whether the nest may run twice, its checks can all become one flag, and one of its
    value checks tests a value a loop of the nest carries (docstring)."""
    if any(o.name not in _THREAD + ("loop.yield", "error.check") and
           (o.regions or not get(o.name).pure) for o in loop.walk()):
        return False
    return _tests_carried(loop.regions[0].block, frozenset())


def _tests_carried(block: Block, carried: frozenset) -> bool:
    """Whether a value check in ``block`` (or deeper) has a condition computed from a value
    carried by an enclosing loop.for of the nest (its block arguments but the counter):
    there the check cannot run ahead of the loop, and each iteration would thread an error
    code."""
    if block.args:   # a loop body: the counter first, then the carried values
        carried = carried | frozenset(a for a in block.args[1:] if a.type.rank == 0)
    for o in block.ops:
        if o.name == "error.check" and o.attrs["kind"] != "IndexError" and \
                _reads_any(o.operands[0], carried):
            return True
        if any(_tests_carried(r.block, carried) for r in o.regions):
            return True
    return False


def _reads_any(v: Value, values: frozenset) -> bool:
    stack, seen = [v], set()
    while stack:
        v = stack.pop()
        if v in values:
            return True
        if v in seen or not isinstance(v.owner, Operation):
            continue
        seen.add(v)
        stack.extend(v.owner.operands)
    return False


def _holds_checks(op: Operation) -> bool:
    return any(o.name == "error.check" for o in op.walk())


def _true(before: Operation) -> Value:
    t = Operation("tensor.constant", [], [I1], {"dtype": "i1", "value": True}, None,
                  before.loc)
    before.parent.insert_before(before, t)
    return t.result


def _and(ok: Value, cond: Value, after: Operation) -> Value:
    a = Operation("tensor.and", [ok, cond], [I1], {}, None, after.loc)
    after.parent.insert_after(after, a)
    return a.result


def _thread(block: Block, ok: Value) -> Value:
    """Replace the checks of ``block`` (and of the loops and branches in it) by ``ok = ok and
    <condition>``; the flag at the block's end. A loop or branch inside gets a flag of its
    own, starting true, and-ed in after it: a loop's flag is then an and-reduction that
    raising vectorizes and mark_parallel folds."""
    conds = [o.operands[0] for o in block.ops if o.name == "error.check"]
    seen: set = set()
    for op in list(block.ops):
        if op.name == "error.check":
            cond = op.operands[0]
            # c and (c or x) is c; c and c is c
            if absorbed_by(cond, conds) is None and cond not in seen:
                seen.add(cond)
                ok = _and(ok, cond, op)
            op.erase()
        elif op.regions and _holds_checks(op):
            ok = _and(ok, _thread_region_op(op, _true(op)), op)
    return ok


def _thread_region_op(op: Operation, ok: Value) -> Value:
    """``op`` (a loop.for or loop.if holding checks) threaded, with ``ok`` its flag coming
    in; its new result, the flag going out."""
    if op.name == "loop.for":
        body = op.regions[0].block
        body.terminator.operands.append(_thread(body, body.add_arg(I1, "ok")))
        op.operands.append(ok)
    else:   # loop.if: each branch hands on the flag it ends with
        for region in op.regions:
            region.block.terminator.operands.append(_thread(region.block, ok))
    n = len(op.results)
    op.results.append(Value(I1, op, n, "ok"))
    return op.results[n]


def _flag(loop: Operation) -> bool:
    if not _eligible(loop):
        return False
    first = clone_op(loop, {})
    for o in first.walk():   # a bad index clamps in the first run: the rerun reports it
        o.attrs = speculated_attrs(o.name, o.attrs)
    loop.parent.insert_before(loop, first)
    ok = _thread_region_op(first, _true(first))
    or_as_it_was(loop, ok, [], list(first.results[:-1]))
    return True


class FlagChecks(BackendPass):
    name = "flag_checks"

    def transform(self, fn: Function) -> int:
        return each_for_loop(fn.body, _flag)
