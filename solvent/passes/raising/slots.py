"""What becomes of each value a raised loop carries.

- a **pass-through** (yielded unchanged): its initial value;
- a **reduction** ``s = s op v(i)`` (analysis/reductions.py: sum, product, max, min, all,
  any; the chain may go through selects, ``if x > m: m = x``, and raised inner loops): the
  body is batched with ``s`` replaced by the identity of ``op``, which gives each
  iteration's contribution ``v(i)`` (``f(s) = s op f(identity)`` for such chains), then
  ``s0 op reduce_op(v)``. Exact for integers, logical ops, max and min (NaN included:
  ``np.maximum`` chains reduce with NaN-propagating ``reduce_max``; compare-and-select
  chains never see a NaN contribution, as ``NaN > m`` is false). For floating sums and
  products the order changes (XLA reduces as a tree, as NumPy's pairwise summation does):
  the rounding may differ in the last bits;
- an **element reduction** ``C[e] = C[e] op v(i)`` at an element ``e`` that is the same in
  every iteration (``C[i, j] += A[i, k] * B[k, j]`` in the ``k`` loop): the same with the
  element, written back once;
- an **array** the iterations write independently (checked pair by pair with the
  dependence test): its versions stay uniform (batching.py); its final version is the
  result;
- a **dead** value (analysis/reductions.py ``dead_slot``: the loop's result is unused and
  the body's values computed from it feed only its own next value): its initial value;
- a value **nobody reads** in the body (the loop variable leaking out of a Python loop, a
  scratch array each iteration fills anew): the last iteration's value;
- an **error code and payload** (passes/checks_to_values.py): the body's checks are batched
  with the code starting at 0, which gives each iteration's first failure; the first
  iteration that failed wins, unless the code was already set before the loop.

Anything else (a recurrence ``x = a*x + b``) refuses: the loop stays a loop.
"""
from __future__ import annotations

import numpy as np

from ...analysis.accesses import collect
from ...analysis.dependence import _error_slots as _error_pairs, array_conflicts, \
    read_before_overwrite
from ...analysis.reductions import chain, dead_slot, loop_reduction, reduction_kind
from ...ir.core import Operation
from ...ir.types import np_dtype
from .batching import Batch, Refuse

REDUCE = {"sum": "sum", "product": "prod", "max": "max", "min": "min", "any": "any",
          "all": "all"}
COMBINE = {"sum": "tensor.add", "product": "tensor.mul", "any": "tensor.or",
           "all": "tensor.and"}


def identity(kind: str, dtype: str):
    dt = np_dtype(dtype)
    if kind == "sum":  # -0.0 + x is x for every x: the adds of the identity fold away
        return -0.0 if dt.kind == "f" else complex(-0.0, -0.0) if dt.kind == "c" else 0
    if kind == "product":
        return 1
    if kind in ("any", "all"):
        return kind == "all"
    if kind in ("max", "min"):
        if dt.kind == "f":
            return -np.inf if kind == "max" else np.inf
        if dt.kind in "iu":
            info = np.iinfo(dt)
            return int(info.min if kind == "max" else info.max)
        if dt.kind == "b":
            return kind == "min"
    return None


def _style(info, top, seed) -> str | None:
    """How a max/min chain combines: "op" (np.maximum/minimum), "f" (fmax/fmin) or
    "select" (compare and select); None when mixed."""
    _, values = chain(info, top, seed)
    styles = set()
    for v in values:
        name = v.owner.name if not isinstance(v.owner, type(seed.owner)) else ""
        if name in ("tensor.max", "tensor.min"):
            styles.add("op")
        elif name in ("tensor.fmax", "tensor.fmin"):
            styles.add("f")
        elif name == "tensor.select":
            styles.add("select")
    return styles.pop() if len(styles) == 1 else None


class Slots:
    """Plans every carried value of ``b.loop`` before the body is batched, then builds the
    loop's results after."""

    def __init__(self, b: Batch):
        self.b = b
        self.finish = []

    def plan(self) -> None:
        b, info, loop = self.b, self.b.info, self.b.loop
        block = loop.regions[0].block
        term = block.terminator
        iv = b.iv_value(block.args[0])
        b.env[block.args[0]] = (iv, True)
        if b.partial:
            b.set_mask(iv, loop.operands[0], loop.operands[1])
        errors = error_slots(info, loop)
        for k, init in enumerate(loop.operands[3:]):
            seed, top = block.args[1 + k], term.operands[k]
            if top is seed:
                b.env[seed] = (init, False)
                self.finish.append(lambda init=init: init)
                continue
            if k in errors:
                self._error(k, errors[k])
                continue
            if dead_slot(info, loop, k):
                # nobody reads the result: the body's chain from it is batched from the
                # initial value (dead code either way) and the result is the initial value
                b.env[seed] = (init, False)
                self.finish.append(lambda init=init: init)
                continue
            kind = loop_reduction(info, loop, k)
            if kind not in (None, "id"):
                self._reduction(k, kind)
                continue
            if self._element_reduction(k):
                continue
            if not info.uses.get(seed):
                b.env[seed] = (init, False)
                self.finish.append(lambda top=top, init=init: self._last(top, init))
                continue
            if seed.type.rank > 0:
                self._array(k)
                continue
            raise Refuse(f"carried value #{k} is a recurrence (not s = s op v)")

    def results(self) -> list:
        return [f() for f in self.finish]

    # --- the kinds -----------------------------------------------------------------------
    def _ident(self, kind, t):
        value = identity(kind, t.dtype)
        if value is None or kind not in REDUCE:
            raise Refuse(f"no reduce op for a {kind} of {t.dtype}")
        c = self.b.const(value, t.dtype)
        if t.rank:
            c = self.b.emit("tensor.broadcast_to", [c], shape=list(t.shape))
        return c

    def _combine(self, kind, style, init, r):
        b = self.b
        if kind in COMBINE:
            return b.emit(COMBINE[kind], [init, r])
        if style == "op":
            return b.emit(f"tensor.{kind}", [init, r])
        if style == "f":
            return b.emit(f"tensor.f{kind}", [init, r])
        better = b.emit("tensor.gt" if kind == "max" else "tensor.lt", [r, init])
        return b.emit("tensor.select", [better, r, init])

    def _reduce(self, kind, contribution, ident):
        b = self.b
        b.what.add(f"reduce_{REDUCE[kind]}")
        g = b.masked(b.stacked(contribution), ident)
        return b.emit(f"tensor.reduce_{REDUCE[kind]}", [g], axes=[0], keepdims=False)

    def _reduction(self, k, kind):
        b, loop = self.b, self.b.loop
        block = loop.regions[0].block
        seed, top, init = block.args[1 + k], block.terminator.operands[k], loop.operands[3 + k]
        style = _style(b.info, top, seed) if kind in ("max", "min") else "op"
        if style is None:
            raise Refuse(f"carried value #{k} mixes max/min forms")
        ident = self._ident(kind, seed.type)
        b.env[seed] = (ident, False)
        self.finish.append(lambda: self._combine(kind, style, init,
                                                 self._reduce(kind, top, ident)))

    def _element_reduction(self, k) -> bool:
        b, info, loop = self.b, self.b.info, self.b.loop
        block = loop.regions[0].block
        seed, top, init = block.args[1 + k], block.terminator.operands[k], loop.operands[3 + k]
        uses = info.uses.get(seed, [])
        reads = [u for u in uses if u.name == "tensor.slice"]
        writes = [u for u in uses if u.name == "tensor.update_slice" and u.operands[0] is seed]
        if len(uses) != 2 or len(reads) != 1 or len(writes) != 1:
            return False
        r, w = reads[0], writes[0]
        if top is not w.result or r.attrs["spec"] != w.attrs["spec"] or \
                list(r.operands[1:]) != list(w.operands[2:]) or \
                any(info.inside(o, loop) for o in r.operands[1:]):
            return False
        kind = reduction_kind(info, w.operands[1], r.result, w)
        if kind is None or kind not in REDUCE:
            return False
        style = _style(info, w.operands[1], r.result) if kind in ("max", "min") else "op"
        if style is None:
            return False
        ident = self._ident(kind, r.result.type)
        b.env[r.result] = (ident, False)
        b.skip.update((r, w))

        def finish():
            dyn = [b.lookup(o) for o in r.operands[1:]]
            if any(v for _, v in dyn):
                raise Refuse("the reduced element moves with the loop")
            dyn = [d for d, _ in dyn]
            spec = r.attrs["spec"]
            e0 = b.emit("tensor.slice", [init, *dyn], spec=spec)
            new = self._combine(kind, style, e0, self._reduce(kind, w.operands[1], ident))
            return b.emit("tensor.update_slice", [init, new, *dyn], spec=spec)
        self.finish.append(finish)
        return True

    def _array(self, k):
        b, info, loop = self.b, self.b.info, self.b.loop
        block = loop.regions[0].block
        seed, top, init = block.args[1 + k], block.terminator.operands[k], loop.operands[3 + k]
        use = collect(info, loop, k)
        if use.problem:
            raise Refuse(use.problem)
        trip = info.trip_max(loop)
        for dep in array_conflicts(info, loop, use, trip):
            if not read_before_overwrite(dep, seed):   # (such a read sees init, as here)
                raise Refuse(dep.describe())
        b.env[seed] = (init, False)
        b.versions.add(seed)

        def finish():
            v, varying = b.lookup(top)
            if varying:
                raise Refuse(f"{use.name} is replaced by a different array in each iteration")
            return v
        self.finish.append(finish)

    def _last(self, top, init):
        b = self.b
        v, varying = b.lookup(top)
        if not varying:
            return v
        rest = [["s", 0, d, 1] for d in v.type.shape[1:]]   # an array's own axes, whole
        if b.mask is None:
            return b.emit("tensor.slice", [v], spec=[["c", b.n - 1]] + rest)
        # the last iteration the loop runs (ub - 1), when it runs at all
        lb, ub = b.bounds
        k = b.emit("tensor.sub", [ub, b.const(b.lb + 1, ub.type.dtype)])
        picked = b.emit("tensor.slice", [v, k], spec=[["i", 0]] + rest, unchecked=True)
        return b.emit("tensor.select", [b.emit("tensor.lt", [lb, ub]), picked, init])

    def _error(self, k, role):
        self.error_slots = getattr(self, "error_slots", []) + [k]
        b, loop = self.b, self.b.loop
        block = loop.regions[0].block
        seed, top, init = block.args[1 + k], block.terminator.operands[k], loop.operands[3 + k]
        b.env[seed] = (b.const(0, seed.type.dtype), False)
        if role[0] == "code":
            self.code_slot = (k, top, init)
        self.error_inits = getattr(self, "error_inits", []) + [(k, top, init)]
        self.finish.append(lambda: self._error_result(role, top, init))

    def _single_check(self):
        """(failure condition, {role: (value on failure, value before)}) when only the last
        check of the body varies between iterations and every code and payload it may set
        is the same in every iteration (``select(c & (code == 0), K, before)`` with ``K``
        and ``before`` uniform: earlier checks hoisted out of the loop, or none): then every
        failing iteration reports the same thing, and no first failure is looked for (a
        reduce_any instead of a reduce_min of iteration numbers and two gathers)."""
        b = self.b
        block = b.loop.regions[0].block
        picks = {}
        code_k = self.code_slot[0]
        for k in self.error_slots:
            sel = block.terminator.operands[k].owner
            if isinstance(sel, type(block)) or sel.name != "tensor.select":
                return None
            (value, v1), (before, v2) = b.lookup(sel.operands[1]), b.lookup(sel.operands[2])
            if v1 or v2:
                return None
            picks["code" if k == code_k else "payload"] = (sel.operands[0], value, before)
        if len(picks) != 2 or picks["code"][0] is not picks["payload"][0]:
            return None
        return picks["code"][0], {r: p[1:] for r, p in picks.items()}

    def _error_result(self, role, top, init):
        """code: select(init == 0 and some iteration failed, code of the first failing
        iteration, init); the payload follows the code's choice."""
        b = self.b
        single = self._single_check() if not hasattr(self, "_first") else None
        if single is not None:
            # the body's chain once, with the last check failing if it fails in any
            # iteration: select(earlier & (code == 0), before, init), then
            # select(any(c) & (code == 0), K, that) — the form error_slots reads, so the
            # loop around may batch it the same way
            cond, values = single
            _, _, cinit = self.code_slot
            _, _, pinit = next(s for s in self.error_inits if s[0] != self.code_slot[0])
            failed = b.stacked(cond)
            if b.mask is not None:
                failed = b.emit("tensor.and", [failed, b.mask])
            last = b.emit("tensor.reduce_any", [failed], axes=[0], keepdims=False)
            zero = b.const(0, cinit.type.dtype)
            before_code, before_pay = values["code"][1], values["payload"][1]
            earlier = b.emit("tensor.ne", [before_code, zero])
            c1 = b.emit("tensor.and", [earlier, b.emit("tensor.eq", [cinit, zero])])
            code1 = b.emit("tensor.select", [c1, before_code, cinit])
            pay1 = b.emit("tensor.select", [c1, before_pay, pinit])
            c2 = b.emit("tensor.and", [last, b.emit("tensor.eq", [code1, zero])])
            self._first = (None, None, {
                "code": b.emit("tensor.select", [c2, values["code"][0], code1]),
                "payload": b.emit("tensor.select", [c2, values["payload"][0], pay1])})
            b.what.add("any-error select")
        if not hasattr(self, "_first"):
            _, ctop, cinit = self.code_slot
            codes = b.stacked(ctop)
            zero = b.const(0, codes.type.dtype)
            failed = b.emit("tensor.ne", [codes, zero])
            if b.mask is not None:
                failed = b.emit("tensor.and", [failed, b.mask])
            big = b.const(b.n, "i64")
            where = b.emit("tensor.select", [failed, b.iv_index(), big])
            first = b.emit("tensor.reduce_min", [where], axes=[0], keepdims=False)
            any_failed = b.emit("tensor.lt", [first, big])
            now = b.emit("tensor.and", [any_failed, b.emit("tensor.eq", [cinit, zero])])
            self._first = (first, now)
            b.what.add("first-error select")
        first, now, *same = self._first
        if same:
            return same[0][role[0]]
        values = b.stacked(top)
        # ``first`` is N when nothing failed: a clamped read, never a program's own access
        picked = b.emit("tensor.slice", [values, first], spec=[["i", 0]], unchecked=True)
        return b.emit("tensor.select", [now, picked, init])


def error_slots(info, loop) -> dict:
    """{slot: ("code" | "payload",)} for the (code, payload) pair checks_to_values threads
    through ``loop``, when every update has its form: ``select(c & (code == 0), K, code)``
    for the code (and the same ``c & (code == 0)`` choosing the payload), with ``K`` and
    ``c`` free of the pair."""
    block = loop.regions[0].block
    term = block.terminator
    slots = [k for k, s in enumerate(block.args[1:]) if s.type.rank == 0
             and s.type.dtype == "i32" and term.operands[k] is not s]
    for kc in slots:
        code_seed = block.args[1 + kc]
        conds, v, chain_values = [], term.operands[kc], {code_seed}
        through: list = []   # inner loops the pair passes through (their own error slots)
        ok = True
        while v is not code_seed:
            op = v.owner
            inner = _through_inner_loop(info, v, "code")
            if inner is not None:
                through.append(inner[0])
                v = inner[1]
                continue
            if isinstance(op, type(block)) or op.name != "tensor.select":
                ok = False
                break
            c, new, prev = op.operands
            cond = c.owner
            if isinstance(cond, type(block)) or cond.name != "tensor.and":
                ok = False
                break
            eqs = [o for o in cond.operands if not isinstance(o.owner, type(block))
                   and o.owner.name == "tensor.eq" and o.owner.operands[0] is prev]
            if len(eqs) != 1:
                ok = False
                break
            conds.append((c, eqs[0]))
            chain_values.add(prev)
            v = prev
        if not ok or not (conds or through):
            continue
        # the payload: the i64 slot chosen by the same conditions
        for kp, s in enumerate(block.args[1:]):
            if kp == kc or s.type.rank != 0 or s.type.dtype != "i64":
                continue
            pv, n = term.operands[kp], 0
            good = True
            while pv is not s:
                op = pv.owner
                inner = _through_inner_loop(info, pv, "payload")
                if inner is not None and inner[0] in through:
                    pv = inner[1]
                    continue
                if isinstance(op, type(block)) or op.name != "tensor.select" or \
                        n >= len(conds) or op.operands[0] is not conds[n][0]:
                    good = False
                    break
                pv, n = op.operands[2], n + 1
            if good and n == len(conds) and _only_chain_uses(info, block, code_seed, s,
                                                              conds, through):
                return {kc: ("code",), kp: ("payload",)}
    return {}


def _through_inner_loop(info, v, role):
    """(loop, its init) when ``v`` is the result of an inner ``loop.for`` whose slot is the
    ``role`` ("code"/"payload") of the error pair threaded through it (a check inside the
    inner loop: the first failure of its trips; analysis/error_slots.py), else None."""
    op = v.owner
    if not isinstance(op, Operation) or op.name != "loop.for":
        return None
    pair = _error_pairs(info).get(op)
    if pair is None or pair[0 if role == "code" else 1] != v.index:
        return None
    return op, op.operands[3 + v.index]


def _only_chain_uses(info, block, code_seed, pay_seed, conds, through=()) -> bool:
    """The pair is read only by its own selects and ``code == 0`` tests (and by the inner
    loops it passes through, as their initial values)."""
    allowed = {id(op) for op in through}
    for c, eq in conds:
        allowed.add(id(eq.owner))
        for u in info.uses.get(c, []):
            allowed.add(id(u))
    for seed in (code_seed, pay_seed):
        for u in info.uses.get(seed, []):
            if id(u) not in allowed and u is not block.terminator:
                return False
    for c, eq in conds:
        for u in info.uses.get(eq.owner.operands[0], []):
            if id(u) not in allowed and u is not block.terminator:
                return False
    return True
