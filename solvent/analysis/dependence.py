"""Dependence test: is each ``loop.for`` independent, a reduction, or carrying a dependence?

**Which IR level.** The test runs on the tensor IR after functionalization (the pipeline's
output), not on the array level. There, every array a loop writes is a loop-carried tensor,
and every access to it is explicit in SSA: element and slice reads are ``tensor.slice`` of
some version of that tensor, writes are ``tensor.update_slice`` producing the next version,
and versions flow through nested loops' inits/block arguments/yields, ``loop.if`` yields and
``select``. Following one carried tensor's versions finds *all* the accesses to that array in
the loop, with no aliasing question left (functionalization already resolved views and
aliases, which at the array level would need a points-to analysis), and a carried scalar is
just a block argument whose chain of uses can be checked exactly. Arrays that the loop only
reads are plain SSA values: they carry nothing. (accesses.py collects the accesses.)

**The question.** Iterations ``k1 != k2`` of loop ``L`` conflict when one writes an element
the other reads or writes. For each carried tensor, each write ``W`` is paired with each
access ``X`` (``W`` itself included: two iterations writing one element is an output
dependence). Per dimension the two subscripts must be equal; a subscript is a point (an
affine form, see affine.py) or a strided range ``start + step*t`` for a slice
(``t in [0, count)``, one fresh variable per slice). Induction variables are normalized,
``iv = lb + step*k`` with ``k in [0, trip)``, so a stride is visible (``for i in
range(0, n, 2)``). ``L``'s counter is ``k1`` in ``W``'s instance and ``k2 = k1 + delta`` in
``X``'s; loops nested in ``L`` get fresh counters per instance; loops around ``L`` and
symbols are shared. For each direction (``delta >= 1``: ``W`` runs first; ``delta <= -1``:
``X`` runs first) every dimension's equation ``sum(a_v * v) = c`` must pass

- the GCD test: ``gcd(a_v)`` divides ``c`` (this is what separates ``x[2*i]`` from
  ``x[2*i+1]``), and
- the Banerjee bounds test: ``c`` lies between the minimum and maximum of the left side over
  the variables' intervals (intervals come from ``LoopInfo.trip_max`` over the whole nest,
  a box that contains the real, possibly triangular, iteration space, so the test stays
  sound for triangular loops),

or that direction has no dependence. When a dimension's equation has ``delta`` as its only
variable, ``delta`` is the exact distance (the strong-SIV case), reported in iterations.
A subscript that is not affine in ``L`` (or may be negative, see affine.py) passes every
test: the pair is reported as "non-affine subscript", i.e. a possible dependence.

**Scalars and reductions** (reductions.py): a carried scalar (or whole tensor) updated only
by ``s = s op v`` is a reduction; a carried array whose only conflicting pairs are a write
``W`` of ``op(R, v)`` and its own read ``R`` of the same element of the same version, at an
element that is the same for every iteration of ``L`` (``s[0] += x[i]``, ``C[i, j] +=``
inside the ``k`` loop), is a reduction too. Anything else that is carried (a scalar
recurrence, a pass of a carried value into another slot) is a real dependence.

Conservative everywhere: an op with side effects in the body, a non-constant step, a
carried value whose chain cannot be followed, all give "carried" with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd

from ..ir.core import Function, Operation
from ..ir.registry import REGISTRY
from ..ir.types import TensorType
from .accesses import Access, Dim, collect
from .affine import Affine, LoopInfo
from .error_slots import error_slots
from .reductions import dead_slot, loop_reduction, reduction_kind, rounding_note, takes_nan

INDEPENDENT, REDUCTION, CARRIED = "independent", "reduction", "carried"


@dataclass
class Dependence:
    """A conflict between ``write`` (instance 1) and ``other`` (instance 2): ``directions``
    holds "<" (the write's iteration first) and/or ">"; ``distance`` = k2 - k1 when known."""

    array: str
    write: Access
    other: Access
    directions: set
    distance: int | None = None
    unknown: str | None = None
    # (loop variables, entries, [entries]) over ``loop`` and the loops nested in it around
    # both accesses, one entry list per feasible direction of ``loop``, in iterations
    # (k2 - k1 of each loop's own counter): an exact distance, or the feasible directions
    # among "<", "=", ">" ("*": not computed)
    vector: tuple | None = None

    def describe(self) -> str:
        text = self._describe()
        if self.vector is not None:
            names, *vecs = self.vector
            shown = " and ".join(f"({', '.join(v)})" for v in vecs)
            text += f"; vector{'s' if len(vecs) > 1 else ''} {shown} over loops " \
                    f"({', '.join(names)})"
        return text

    def _describe(self) -> str:
        w, x = self.write, self.other
        at = f" (line {x.line})" if x.line is not None else ""
        wat = f" (line {w.line})" if w.line is not None else ""
        if self.unknown:
            return f"non-affine subscript: {self.unknown}; {w.text}{wat} may conflict with " \
                   f"{x.text}{at} in another iteration"
        d = self.distance
        if x.write:
            if x.op is w.op:
                tail = f"distance {abs(d)}" if d is not None else "in several iterations"
                return f"{w.text} writes the same element in different iterations ({tail})"
            return f"{w.text}{wat} and {x.text}{at} write the same element in different " \
                   "iterations"
        if d is not None:
            if d > 0:
                when = "the previous iteration" if d == 1 else f"the iteration {d} before"
                return f"{x.text}{at} reads the element written as {w.text} by {when} " \
                       f"(distance {d})"
            return f"{x.text}{at} reads an element that {w.text} overwrites " \
                   f"{-d} iteration{'s' if d < -1 else ''} later (anti-dependence, " \
                   f"distance {-d})"
        dirs = self.directions
        if dirs == {"<"}:
            return f"{x.text}{at} reads elements written as {w.text} by earlier iterations " \
                   f"(direction <)"
        if dirs == {">"}:
            return f"{x.text}{at} reads elements that {w.text} overwrites in later " \
                   f"iterations (anti-dependence, direction >)"
        return f"{x.text}{at} and {w.text}{wat} touch the same elements in earlier and " \
               f"later iterations (direction *)"


@dataclass
class LoopReport:
    loop: Operation
    var: str
    line: int | None
    kind: str
    reason: str
    dependences: list[Dependence] = field(default_factory=list)
    reductions: list[tuple[str, str, str]] = field(default_factory=list)  # (what, op, note)
    # per carried value: "same" (passed through unchanged), "last" (a value nobody reads:
    # the last iteration's value), "shared" (an array no two iterations touch at one
    # element), a reduction kind ("sum", ...) of a scalar or "whole <kind>" of a whole
    # array, "element <kind>" (s[e] = s[e] op v at one element), "first_error" /
    # "error_payload" (the run-time check flags, error_slots.py), or None: carried
    slots: list = field(default_factory=list)
    # carried only by reads that come before a later iteration overwrites what they read
    # (``read_before_overwrite``): raising may batch it, reading the array as it was before
    # the loop; its iterations still may not run at once in place (not parallel)
    reads_before_overwrite: bool = False

    def line_text(self) -> str:
        where = f"line {self.line}" if self.line is not None else "line ?"
        return f"{where}: loop {self.var}: {self.kind} — {self.reason}"


# --- the pair test ---------------------------------------------------------------------------
class _System:
    """Linearizes subscripts of two instances of loop ``L``'s body into integer variables."""

    def __init__(self, info: LoopInfo, loop: Operation):
        self.info = info
        self.loop = loop
        self.intervals: dict = {}

    def _k(self, m: Operation, tag):
        key = ("k", id(m), tag)
        if key not in self.intervals:
            t = self.info.trip_max(m)
            self.intervals[key] = (0, None if t is None else max(t - 1, 0))
        return key

    def expand(self, form: Affine, tag: int) -> tuple[dict, int]:
        """``form`` as {variable: coefficient} + constant for instance ``tag``."""
        coefs: dict = {}
        const = form.const
        work = list(form.terms.items())
        while work:
            v, c = work.pop()
            m = self.info.iv_loop(v)
            if m is None:
                key = ("s", id(v))
                self.intervals.setdefault(key, (None, None))
                coefs[key] = coefs.get(key, 0) + c
                continue
            lb, _, step = self.info.loop_bounds(m)
            own = m is self.loop or self.info.inside(v, self.loop)
            mtag = tag if own else None
            if step is None:
                key = ("iv", id(m), mtag)
                self.intervals.setdefault(key, (None, None))
                coefs[key] = coefs.get(key, 0) + c
                continue
            key = self._k(m, mtag)
            coefs[key] = coefs.get(key, 0) + c * step
            const += c * lb.const
            work += [(a, c * b) for a, b in lb.terms.items()]
        return coefs, const

    def dim_side(self, dim: Dim, tag: int, slot) -> tuple[dict, int]:
        coefs, const = self.expand(dim.form, tag)
        if dim.kind == "range" and dim.count != 1:
            key = ("t", slot, tag)
            self.intervals[key] = (0, dim.count - 1)
            coefs[key] = coefs.get(key, 0) + dim.step
        return coefs, const


def _feasible(coefs: dict, rhs: int, iv: dict) -> bool:
    """Can ``sum(coefs[v] * v) == rhs`` hold with integer v in the intervals ``iv``?"""
    coefs = {v: c for v, c in coefs.items() if c}
    if not coefs:
        return rhs == 0
    g = 0
    for c in coefs.values():
        g = gcd(g, abs(c))
    if rhs % g:
        return False
    lo = hi = 0
    for v, c in coefs.items():
        a, b = iv[v]
        if a is not None and b is not None and a > b:
            return False  # an empty loop: no instance at all
        mn, mx = (a, b) if c > 0 else (b, a)
        lo = None if lo is None or mn is None else lo + c * mn
        hi = None if hi is None or mx is None else hi + c * mx
    return (lo is None or lo <= rhs) and (hi is None or rhs <= hi)


def _solve(info: LoopInfo, loop: Operation, w: Access, x: Access, deltas: dict):
    """Can ``w`` (instance 1) and ``x`` (instance 2) touch one element when, for each loop
    ``M`` in ``deltas``, ``k_M#2 = k_M#1 + delta_M`` with ``delta_M`` in ``deltas[M]``?
    Returns (feasible, {M: exact distance} for the deltas some dimension pins down)."""
    sysm = _System(info, loop)
    for m, rng in deltas.items():
        sysm.intervals[("delta", id(m))] = rng
    pinned = {}
    for j, (a, b) in enumerate(zip(w.dims, x.dims)):
        if a.kind == "unknown" or b.kind == "unknown":
            continue
        ca, ka = sysm.dim_side(a, 1, (id(w.op), j))
        cb, kb = sysm.dim_side(b, 2, (id(x.op), j))
        coefs = dict(ca)
        for v, c in cb.items():
            coefs[v] = coefs.get(v, 0) - c
        for m in deltas:
            c2 = coefs.pop(("k", id(m), 2), 0)
            if c2:
                k1 = sysm._k(m, 1)
                coefs[k1] = coefs.get(k1, 0) + c2
                coefs[("delta", id(m))] = coefs.get(("delta", id(m)), 0) + c2
        rhs = kb - ka
        if not _feasible(coefs, rhs, sysm.intervals):
            return False, {}
        live = {v: c for v, c in coefs.items() if c}
        if len(live) == 1:
            (v, c), = live.items()
            if v[0] == "delta" and rhs % c == 0:
                pinned[v[1]] = rhs // c
    return True, pinned


def _span(info: LoopInfo, m: Operation, direction: str):
    t = info.trip_max(m)
    span = None if t is None else t - 1
    if direction == "=":
        return (0, 0)
    return (1, span) if direction == "<" else (None if span is None else -span, -1)


def _test_pair(info: LoopInfo, loop: Operation, name: str, w: Access, x: Access,
               trip: int | None) -> Dependence | None:
    unknown = list(dict.fromkeys(d.reason for d in w.dims + x.dims if d.kind == "unknown"))
    dirs, distance, vectors = set(), None, {}
    # loops nested in ``loop`` around both accesses: their direction completes the vector
    inner = [m for m in info.enclosing_loops(w.op)
             if m.name == "loop.for" and m is not loop and info.inside(LoopInfo.iv(m), loop)
             and m in info.enclosing_loops(x.op)]
    for direction in ("<", ">"):
        base = {loop: _span(info, loop, direction)}
        ok, pinned = _solve(info, loop, w, x, base)
        if not ok:
            continue
        dirs.add(direction)
        if id(loop) in pinned:
            distance = pinned[id(loop)]
        entries = [str(pinned[id(loop)]) if id(loop) in pinned else direction]
        for m in inner:
            lb, _, step = info.loop_bounds(m)
            if step is None or any(info.iv_loop(v) is not None and info.inside(v, loop)
                                   for v in lb.terms):
                # a start that moves with an enclosing iteration makes iteration numbers
                # of different executions of ``m`` incomparable
                entries.append("*")
                continue
            feas = {}
            for d in ("<", "=", ">"):
                ok_m, pin_m = _solve(info, loop, w, x, {**base, m: _span(info, m, d)})
                if ok_m:
                    feas[d] = pin_m.get(id(m))
            if set(feas) == {"="}:
                entries.append("0")
            elif len(feas) == 1:
                (d, dist), = feas.items()
                entries.append(str(dist) if dist is not None else d)
            else:
                entries.append("".join(d for d in ("<", "=", ">") if d in feas) or "*")
        vectors[direction] = ([info.loop_var(loop)] + [info.loop_var(m) for m in inner],
                              entries)
    if not dirs:
        return None
    if len(dirs) == 2:
        distance = None
    vec = None
    if inner and not unknown:
        names = vectors[min(vectors)][0]
        vec = (names, *[vectors[d][1] for d in ("<", ">") if d in vectors])
    return Dependence(name, w, x, dirs, distance, "; ".join(unknown) if unknown else None,
                      vec)


# --- per loop --------------------------------------------------------------------------------
def read_before_overwrite(dep: Dependence, seed) -> bool:
    """Whether ``dep`` only says that a read sees an element before a later iteration
    overwrites it (an anti-dependence, direction ``>`` alone), the read taking the array as
    the iteration received it (``seed``, the loop's block argument: no write to the array
    comes before it in its iteration). Every iteration then reads the value the array had
    before the loop, which is what a batch reading the loop's initial array gives:
    ``for i: x[i] = x[i + 1] + 1`` is ``x[:-1] = x[1:] + 1``. A flow dependence of the same
    read (an earlier iteration wrote the element) is a pair of its own, with direction ``<``."""
    x = dep.other
    return not x.write and dep.directions == {">"} and dep.unknown is None and \
        x.op.name == "tensor.slice" and x.op.operands[0] is seed


def _own_read(w: Access, x: Access, info: LoopInfo) -> str | None:
    """When ``x`` is the read of ``w``'s element whose value ``w`` writes back combined by an
    associative op (``s[e] = s[e] op v``): the operator."""
    if x.write or x.op.name != "tensor.slice" or w.op.name != "tensor.update_slice":
        return None
    r, u = x.op, w.op
    if r.operands[0] is not u.operands[0] or r.attrs.get("spec") != u.attrs.get("spec"):
        return None
    if len(r.operands[1:]) != len(u.operands[2:]) or \
            any(a is not b for a, b in zip(r.operands[1:], u.operands[2:])):
        return None
    return reduction_kind(info, u.operands[1], r.result, u)


def _invariant_element(info: LoopInfo, loop: Operation, acc: Access) -> bool:
    for d in acc.dims:
        if d.kind == "unknown":
            return False
        for v in d.form.terms:
            if info.inside(v, loop):
                return False
    return True


def classify_loop(info: LoopInfo, loop: Operation) -> LoopReport:
    var = info.loop_var(loop)
    line = loop.loc.line if loop.loc is not None else None
    if loop.name == "loop.while":
        return LoopReport(loop, var, line, CARRIED, "while loop: each test depends on the "
                                                     "previous iterations (data-dependent "
                                                     "trip count)")
    block = loop.regions[0].block
    for op in block.walk():
        opdef = REGISTRY.get(op.name)
        if opdef is None or not (opdef.pure or opdef.structural):
            return LoopReport(loop, var, line, CARRIED, f"unknown: {op.name} has side effects")
    _, _, step = info.loop_bounds(loop)
    if step is None:
        return LoopReport(loop, var, line, CARRIED, "unknown: the step is not a constant")
    trip = info.trip_max(loop)
    if trip is not None and trip <= 1:
        return LoopReport(loop, var, line, INDEPENDENT,
                          f"at most {trip} iteration{'s' if trip != 1 else ''}")
    term = block.terminator
    carried_reasons, deps, reds, lasts = [], [], [], []
    anti = 0   # the dependences that are reads before a later overwrite
    flags = _error_slots(info).get(loop, ())
    slots: list = [None] * len(loop.operands[3:])
    for k, init in enumerate(loop.operands[3:]):
        seed = block.args[1 + k]
        top = term.operands[k]
        if k in flags:
            slots[k] = "first_error" if k == flags[0] else "error_payload"
            continue
        if top is seed:
            slots[k] = "same"
            continue  # read-only pass-through
        if not info.uses.get(seed):
            # never read: the loop's result is whatever the last iteration computed (the
            # loop variable leaking out of a Python for loop looks like this, and so does a
            # scratch array every iteration fills anew before reading it)
            lasts.append(_scalar_name(info, loop, k) if seed.type.rank == 0 else
                         f"{info.array_name(seed)} (filled anew in each iteration)")
            slots[k] = "last"
            continue
        if dead_slot(info, loop, k):
            slots[k] = "dead"  # its value is never used: any order computes it
            continue
        kind = loop_reduction(info, loop, k)
        if kind is not None:
            what = _scalar_name(info, loop, k) if seed.type.rank == 0 else \
                f"{info.array_name(seed)} (whole)"
            reds.append((what, kind, rounding_note(kind, seed.type)))
            slots[k] = kind if seed.type.rank == 0 else f"whole {kind}"
            continue
        if isinstance(seed.type, TensorType) and seed.type.rank == 0:
            carried_reasons.append(
                f"{_scalar_name(info, loop, k)} is a max/min that takes a NaN and then the "
                "next value (m = max(x, m), m if m > x else x): not a reduction in any "
                "other order" if takes_nan(info, top, seed) else
                f"{_scalar_name(info, loop, k)} carries a value from one "
                "iteration into the next (a recurrence, not s = s op v)")
            continue
        use = collect(info, loop, k)
        if use.problem:
            carried_reasons.append(use.problem)
            continue
        conflicts = list(array_conflicts(info, loop, use, trip))
        if not conflicts:
            slots[k] = "shared"
            continue
        red = _array_reduction(info, loop, conflicts)
        if red is not None:
            reds.append((red[0], red[1], rounding_note(red[1], seed.type)))
            slots[k] = f"element {red[1]}"
            continue
        deps += conflicts
        if all(read_before_overwrite(d, seed) for d in conflicts):
            anti += len(conflicts)
    if deps or carried_reasons:
        first = _pick(deps)
        reason = first.describe() if first is not None else carried_reasons[0]
        return LoopReport(loop, var, line, CARRIED, reason, deps, reds, slots,
                          reads_before_overwrite=not carried_reasons and anti == len(deps))
    if reds:
        text = "; ".join(f"{op} into {what} ({note})" for what, op, note in reds)
        return LoopReport(loop, var, line, REDUCTION, text, [], reds, slots)
    tail = ""
    if lasts:
        tail = f"; {', '.join(lasts)} keep{'s' if len(lasts) == 1 else ''} the last " \
               "iteration's value"
    if flags:
        tail += "; its run-time check flags keep the first failure"
    return LoopReport(loop, var, line, INDEPENDENT, "no element is written by one iteration "
                      "and touched by another" + tail, slots=slots)


def _error_slots(info: LoopInfo) -> dict:
    if not hasattr(info, "_error_slots"):
        info._error_slots = error_slots(info.fn)
    return info._error_slots


def array_conflicts(info: LoopInfo, loop: Operation, use, trip: int | None):
    """The dependences between a write of ``use`` (``accesses.collect``: one carried array's
    accesses in ``loop``) and any of its accesses, in order. Two writes with equal
    ``_access_key``s get the same verdict against a third, so write/write pairs of equal
    keys are tested once (a chain of 150 elifs each writing out[i] made 22,500 tests of one
    pair, 17 of 28 s of its compile)."""
    tested, keys = set(), {}
    for w in use.accesses:
        if not w.write:
            continue
        for x in use.accesses:
            if x.write:
                key = (_access_key(info, w, keys), _access_key(info, x, keys), x.op is w.op)
                if key in tested:
                    continue
                tested.add(key)
            dep = _test_pair(info, loop, use.name, w, x, trip)
            if dep is not None:
                yield dep


def _access_key(info, a, keys: dict) -> tuple:
    """What ``_test_pair`` reads of an access: its dimensions (affine forms, counts, steps,
    reasons) and the loops around it; two accesses with equal keys get the same verdicts
    against any other access. Kept in ``keys`` by the access's identity."""
    key = keys.get(id(a))
    if key is None:
        dims = tuple((d.kind, d.count, d.step, d.reason) + (
            (None,) if d.form is None else
            (d.form.const, frozenset((id(v), c) for v, c in d.form.terms.items())))
            for d in a.dims)
        key = keys[id(a)] = (a.write, dims, tuple(map(id, info.enclosing_loops(a.op))))
    return key


def _array_reduction(info, loop, conflicts):
    """(what, op) when every conflict is a write ``s[e] = s[e] op v`` with its own read, at an
    element ``e`` that is the same in every iteration."""
    op = None
    for dep in conflicts:
        w, x = dep.write, dep.other
        if not _invariant_element(info, loop, w):
            return None
        if x.op is w.op:
            continue
        k = _own_read(w, x, info)
        if k is None or (op is not None and k != op):
            return None
        op = k
    if op is None:
        return None
    return conflicts[0].write.text, op


def _pick(deps):
    """The most telling dependence: an exact flow distance first, then any affine one."""
    if not deps:
        return None
    def rank(d):
        return (d.unknown is not None, d.distance is None, d.other.write,
                d.distance is not None and d.distance < 0, "<" not in d.directions)
    return sorted(deps, key=rank)[0]


def _scalar_name(info, loop, k) -> str:
    init = loop.operands[3 + k]
    if init.hint:
        return f"carried value {init.hint}"
    op = init.owner
    if not isinstance(op, type(loop.regions[0].block)) and op.name == "tensor.constant":
        return f"carried scalar #{k} (starts at {op.attrs['value']})"
    return f"carried value #{k}"


def analyze(fn: Function) -> list[LoopReport]:
    """One report per loop of ``fn`` (tensor-level IR), in program order."""
    info = LoopInfo(fn)
    return [classify_loop(info, loop) for loop in info.loops]
