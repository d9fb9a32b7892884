"""A loop whose value checks test what it reads from its inputs runs without them once a
check-only pass over the same range has found that none of them fails.

``version_checks`` drops the index checks of an index affine in the counter, and raising
batches the index checks of gathers; the checks this pass takes are the others, the checks
of values (any kind but IndexError): ``math.floor(v)``'s "NaN / infinity / beyond 2**63" for
a sample ``v = x[i]``, ``math.sqrt``'s and ``math.log``'s domain, ``math.exp``'s range. A
``loop.for`` at the function's top level with no loop inside it, some of whose value checks
lie directly in its body with a condition *speculable* there (computed from the counter,
values defined outside the loop and pure region-free scalar ops of the body, element reads
of arrays defined outside the loop included; no value the loop carries), becomes

    ok = loop.for (same range) acc = true { acc and <every such condition> }
    results = loop.if ok { the loop without those checks } else { the loop as it was }

(a condition ``c or x`` whose ``c`` is another taken condition is left out of the and: int()'s
``fits or not isnan``, ``fits or not isinf`` and ``fits`` make one test, histogram_loops'
check-only pass 11 -> 5 ops a sample).

Identity: the speculable conditions of iteration ``i`` are functions of ``i`` and of values
that do not change while the loop runs (SSA values defined outside it), so the check-only
pass computes in its iteration ``i`` exactly the values the loop would; when all of them
hold, none of those checks can fail in the loop, and dropping them changes no result. When
one fails, the loop runs as it was and raises at the same check of the same iteration with
the same payload. In the copy without checks, a float-to-int64 conversion of a value such a
check proved inside int64's range is marked ``in_range`` (ops/elementwise.py): NumPy's
out-of-range handling, two compares and selects, is not needed there. The check-only pass
runs its ops whether or not the loop would have reached them (a loop that stops at the
first failure): pure ops are total in this IR, and its element reads are marked
``unchecked`` (``indexspec.speculated_attrs``: a bad index clamps instead of raising), as
if-conversion does.

Why: a check left in a loop becomes a chain of selects carrying the error code through
every iteration (checks_to_values), and raising turns it into per-element codes and a search
for the first failing element; the check-only pass is one and-reduction, which raising
turns into a vectorized ``reduce_all``, and the loop it guards is the plain loop
(histogram_loops' ``math.floor`` of each sample). Index checks are left alone: raising
batches them into a gather's checks, which speculating would split from the products it
forms. So are loops nested in another loop: in a time loop the check-only pass runs every
step, where raising fuses the checks, flags over the whole row, into the loop's own
vectorized pass (exp_1d_steps of tests/backends/native/test_native_parallel_sweeps.py, 100k
points: 0.42 ms speculated against 0.29 ms raised). The native backend turns it on
(``NativeBackend.pass_defaults``).
"""
from __future__ import annotations

import math

from ..ir.core import Block, Function, Operation, Region, clone_op
from ..ir.registry import get
from ..ir.rewrite import constant_value
from ..ir.types import np_dtype
from ..ops.elementwise import INT64_END
from ..ops.indexspec import speculated_attrs
from .base import BackendPass
from .checks_to_values import absorbed_by
from .licm import _defined_inside
from .version_checks import _LOOPS, I1, versioned

# the check-only pass reads its arrays once more: beyond this many bytes they no longer stay
# in cache for the loop that follows, which then streams them from memory a second time
# (histogram_loops natively, 8-byte samples: 1.10x faster at 90k and 500k samples, 0.93x at
# 1M, 0.95x at 2M)
SPECULATE_MAX_BYTES = 4 << 20


def _bytes_read(loop: Operation, ops: set) -> float:
    """How many bytes the check-only pass of ``ops`` reads: per element read, the loop's
    trip count (any step) or the array's size, the smaller one known, times the element's
    size; infinite when neither is known."""
    lb, ub, step = (constant_value(v) for v in loop.operands[:3])
    trips = len(range(lb, ub, step)) if None not in (lb, ub, step) and step else None
    total = 0.0
    for o in ops:
        if o.name != "tensor.slice":
            continue
        t = o.operands[0].type
        if any(d is None for d in t.shape):
            if trips is None:
                return float("inf")
            n = trips
        else:
            n = math.prod(t.shape) if trips is None else min(trips, math.prod(t.shape))
        total += n * np_dtype(t.dtype).itemsize
    return total


def _fits_int64(cond):
    """``v`` when ``cond`` is ``v >= -2**63 and v < 2**63`` (the frontend's test that int()
    of a float fits, frontend/python_int_conversion.check_fits_int64), else None."""
    o = cond.owner
    if not (isinstance(o, Operation) and o.name == "tensor.and"):
        return None
    parts = sorted((p.owner for p in o.operands if isinstance(p.owner, Operation)),
                   key=lambda p: p.name)
    if [p.name for p in parts] != ["tensor.ge", "tensor.lt"]:
        return None
    ge, lt = parts
    v = ge.operands[0]
    if lt.operands[0] is not v or v.type.dtype not in ("f32", "f64") or \
            constant_value(ge.operands[1]) != -INT64_END or \
            constant_value(lt.operands[1]) != INT64_END:
        return None
    return v


def _slice(cond, iv, body: Block, inside: set, ops: set) -> bool:
    """Add to ``ops`` the body ops ``cond`` is computed by; False when ``cond`` is not
    speculable (see the module docstring)."""
    stack = [cond]
    seen = set()
    while stack:
        v = stack.pop()
        if v is iv or v not in inside or v in seen:
            continue
        seen.add(v)
        o = v.owner
        if not isinstance(o, Operation) or o.parent is not body or o.regions:
            return False   # a carried value, or one computed in a branch or a nested op
        if not get(o.name).pure or any(r.type.rank for r in o.results):
            return False
        ops.add(o)
        stack.extend(o.operands)
    return True


def _speculate(loop: Operation) -> bool:
    body = loop.regions[0].block
    if any(o.name in _LOOPS for o in body.walk()):
        return False
    iv, inside = body.args[0], _defined_inside(loop)
    taken, ops = [], set()
    for c in body.ops:
        if c.name != "error.check" or c.attrs["kind"] == "IndexError":
            continue
        part: set = set()
        if _slice(c.operands[0], iv, body, inside, part):
            taken.append(c)
            ops |= part
    if not taken or _bytes_read(loop, ops) > SPECULATE_MAX_BYTES:
        return False
    # the check-only pass: the conditions' ops in body order, and-ed into one carried flag
    pre_body = Block()
    vmap = {iv: pre_body.add_arg(iv.type, iv.hint)}
    acc = pre_body.add_arg(I1, "ok")
    for o in body.ops:
        if o in ops:
            new = clone_op(o, vmap)
            new.attrs = speculated_attrs(o.name, new.attrs)
            pre_body.append(new)
    conds = [c.operands[0] for c in taken]
    for c in taken:
        if absorbed_by(c.operands[0], conds) is not None:
            continue   # c or x, with c taken too: c and (c or x) is c (dead ops: dce)
        a = Operation("tensor.and", [acc, vmap.get(c.operands[0], c.operands[0])], [I1], {},
                      None, c.loc)
        pre_body.append(a)
        acc = a.result
    pre_body.append(Operation("loop.yield", [acc], [], {}, None, loop.loc))
    true = Operation("tensor.constant", [], [I1], {"dtype": "i1", "value": True}, None,
                     loop.loc)
    loop.parent.insert_before(loop, true)
    pre = Operation("loop.for", list(loop.operands[:3]) + [true.result], [I1], {},
                    [Region(pre_body)], loop.loc)
    loop.parent.insert_before(loop, pre)
    # then: a copy without the checks; else: the loop as it was
    copies = versioned(loop, pre.result, taken)
    fits = {v for c in taken for v in [_fits_int64(c.operands[0])] if v is not None}
    for o in body.ops:
        if o.name == "tensor.convert" and o.operands[0] in fits and \
                o.results[0].type.dtype == "i64":
            copies[o].attrs["in_range"] = True
    return True


def _speculate_all(fn: Function) -> int:
    """Speculate every loop not nested in another one (module docstring); how many."""
    return sum(_speculate(op) for op in list(fn.body.ops) if op.name == "loop.for")


def speculate_checks(fn: Function) -> Function:
    _speculate_all(fn)
    return fn


class SpeculateChecks(BackendPass):
    name = "speculate_checks"

    def transform(self, fn: Function) -> int:
        return _speculate_all(fn)
