"""Versioned raising: a loop nest whose dependence vanishes when some writes change nothing.

Floyd-Warshall's ``k`` loop updates ``d[i, j] = min(d[i, j], d[i, k] + d[k, j])`` over the
``i, j`` nest. The nest reads row and column ``k`` while it writes every element, so the
dependence test rightly finds it carried. But the writes into row ``k`` (``i == k``) store
``min(d[k, j], d[k, k] + d[k, j])``: the old value whenever ``d[k, k] >= 0``. When every
write into an element that another iteration reads stores the value already there, the
nest computes what its batched form computes. This file raises such a nest under a run-time
guard and keeps the loop as the fallback::

    ok = AND over the iterations that may conflict of (the write stores the old value)
    result = <the nest batched, its shared reads reading the nest's initial array>
             if ok else <the original loop nest>

**Which nests** (``version``): a nest of ``loop.for`` ``L0 > L1 > ... > Lm`` (each body of
``L0..Lm-1`` only passes the one carried array ``A`` to the next loop and yields its
result), carrying only ``A``; the innermost body writes ``A`` once (``update_slice`` of its
incoming ``A`` at point subscripts ``W``) and reads ``A`` only from its incoming value at
point subscripts. Every loop variable of the nest is, as such, one subscript of ``W``: the
write is injective (distinct iterations write distinct elements). A read with exactly
``W``'s subscripts is the iteration's *own* read; every other read is *shared*.

**The guard.** Iteration ``p`` *conflicts* when its element ``W(p)`` may be the element a
shared read ``R`` reads in some iteration: over-approximated per read as "``W_d == R_d`` in
every dimension ``d`` where ``R_d`` is defined outside the nest" (the other dimensions move
with the nest and may meet anything). ``noop(p)``: the value written equals the old element
(``==``, and for floats the same sign bit, so ``-0.0`` never replaces ``0.0``; a NaN never
equals, so a NaN written sends the nest to the fallback). ``ok = AND_p (not conflict(p) or
noop(p))``, computed on the initial array per shared read by a copy of the nest without
its write in which every loop whose variable is such a pinned ``W_d`` runs once at ``R_d``
(``_guard_nest``; Floyd's guard is two vectors, row and column ``k``, not the matrix).

**Identity** (``ok`` true => sequential order == batched form). Induction over the
iterations in order: before iteration ``p`` every element ``p`` reads holds its initial
value. Its own element ``W(p)`` is written by ``p`` alone (injective write). An element
``x`` read by a shared read and written by an earlier iteration ``q`` (``x = W(q)``) makes
``q`` conflict, so ``q`` wrote the value already there. Hence ``p`` reads what the batched
form reads, computes the same value and, if it conflicts, writes the old value again; the
final array is the batched ``B``. When ``ok`` is false the original loops run: the result
is always the loop's. The batched form is the ordinary raise (raise_loops.py) of the nest
with its shared reads redirected to the initial array, inside the branch (the native
backend updates the incoming array in place there); if any loop of the batch or of a guard
does not raise, nothing changes.
"""
from __future__ import annotations

from ...ir.builder import Builder
from ...ir.core import Block, Operation, Region, Value, clone_op
from ...ir.types import TensorType

_BOOL = TensorType((), "i1")


def _nest(loop: Operation) -> list[Operation] | None:
    """``[L0, ..., Lm]`` when ``loop`` heads a perfect nest threading one carried array."""
    nest = [loop]
    while True:
        m = nest[-1]
        if m.name != "loop.for" or len(m.operands) != 4:
            return None
        block = m.regions[0].block
        inner = [op for op in block.ops if op.name in ("loop.for", "loop.while", "loop.if")]
        if not inner:
            return nest
        if len(inner) != 1 or inner[0].name != "loop.for":
            return None
        child = inner[0]
        # the array only flows into the inner loop and out of it (other ops are scalars)
        if [u for u, _ in block.args[1].live_uses()] != [child] or \
                child.operands[3] is not block.args[1] or \
                block.terminator.operands[0] is not child.results[0]:
            return None
        nest.append(child)


def _point_dims(op: Operation, first: int) -> list | None:
    """Per dimension of a point access, its index operand (spec entry ``["i", n]``) or its
    constant index (``["c", v]``)."""
    spec = op.attrs.get("spec")
    rank = op.operands[0].type.rank
    if not spec or len(spec) != rank or any(e[0] not in ("i", "c") for e in spec):
        return None
    return [op.operands[first + e[1]] if e[0] == "i" else int(e[1]) for e in spec]


def _inside(info, d, loop) -> bool:
    return isinstance(d, Value) and info.inside(d, loop)


def _plan(info, nest: list[Operation]):
    """(write op, shared read ops, own read ops) of the innermost body, or None."""
    body = nest[-1].regions[0].block
    a = body.args[1]
    if not isinstance(a.type, TensorType) or a.type.rank == 0 or a.type.dtype[0] == "c":
        return None
    users = [u for u, _ in a.live_uses()]
    writes = [u for u in users if u.name == "tensor.update_slice"]
    reads = [u for u in users if u.name == "tensor.slice"]
    if len(writes) != 1 or len(writes) + len(reads) != len(users):
        return None
    w = writes[0]
    if w.operands[0] is not a or body.terminator.operands[0] is not w.result or \
            w.result.type != a.type or any(u is not body.terminator
                                           for u, _ in w.result.live_uses()):
        return None
    wdims = _point_dims(w, 2)
    if wdims is None or any(r.operands[0] is not a for r in reads):
        return None
    ivs = [m.regions[0].block.args[0] for m in nest]
    if any(not any(d is iv for d in wdims) for iv in ivs):
        return None  # a loop variable the write does not follow: not injective
    own, shared = [], []
    for r in reads:
        rdims = _point_dims(r, 1)
        if rdims is None:
            return None
        if r.attrs.get("spec") == w.attrs.get("spec") and \
                all(x is y or x == y for x, y in zip(rdims, wdims)):
            own.append(r)
        elif all(_inside(info, d, nest[0]) for d in rdims):
            return None  # no pivot dimension: the guard would ask every write to keep
        else:
            shared.append(r)
    if not shared or not own or not _may_keep(w.operands[1], own):
        # nothing to version, or a write that stores a new value in general (the guard
        # would fail and the batch would be work thrown away)
        return None
    return w, shared, own


def _may_keep(value: Value, own: list) -> bool:
    """The written value is the old element on some path: ``select(c, x, old)`` (or a
    select nested in an arm),
    ``select(c, old, x)``, ``min(old, x)``, ``max(x, old)`` (``old`` an own read)."""
    op = value.owner
    if not isinstance(op, Operation):
        return False
    olds = {r.result for r in own}
    if op.name == "tensor.select":  # an elif chain: selects nested in an arm
        return any(o in olds or _may_keep(o, own) for o in op.operands[1:])
    if op.name in ("tensor.min", "tensor.max", "tensor.fmin", "tensor.fmax"):
        return any(o in olds for o in op.operands)
    return False


def _guard(b: Builder, info, loop, w: Operation, shared: list, ok_in: Value) -> Value:
    """``ok_in and (not conflict or noop)`` for one iteration, built before ``w``."""
    a = w.operands[0]
    wdims = _point_dims(w, 2)
    new = w.operands[1]
    old = b.one("tensor.slice", a, *w.operands[2:], spec=w.attrs["spec"], unchecked=True)
    noop = b.one("tensor.eq", new, old)
    if new.type.dtype[0] == "f":
        one = b.constant(1.0, new.type.dtype)
        noop = b.one("tensor.and", noop, b.one("tensor.eq", b.one("tensor.copysign", one, new),
                                               b.one("tensor.copysign", one, old)))
    conflict = None
    for r in shared:
        cond = None
        for wd, rd in zip(wdims, _point_dims(r, 1)):
            if _inside(info, rd, loop):
                continue
            if isinstance(wd, int) and isinstance(rd, int):
                eq = b.constant(wd == rd, "i1")
                cond = eq if cond is None else b.one("tensor.and", cond, eq)
                continue
            if isinstance(wd, int):
                wd = b.constant(wd, rd.type.dtype)
            if isinstance(rd, int):
                rd = b.constant(rd, wd.type.dtype)
            if rd.type != wd.type:
                rd = b.one("tensor.convert", rd, dtype=wd.type.dtype)
            eq = b.one("tensor.eq", wd, rd)
            cond = eq if cond is None else b.one("tensor.and", cond, eq)
        if cond is None:
            cond = b.constant(True, "i1")
        conflict = cond if conflict is None else b.one("tensor.or", conflict, cond)
    fine = b.one("tensor.or", b.one("tensor.not", conflict), noop)
    return b.one("tensor.and", ok_in, fine)


def _add_slot(m: Operation, init: Value) -> Value:
    """Give loop ``m`` one more carried i1 slot (initial ``init``); returns its block arg."""
    m.operands.append(init)
    m.results.append(Value(_BOOL, m, len(m.results)))
    return m.regions[0].block.add_arg(_BOOL)


def _constant_trips(info, nest) -> bool:
    """Every loop of the nest runs at least once with constant bounds and unit step (a
    guard nest evaluates the body at ``lb`` when it pins a loop to an index outside it)."""
    for m in nest:
        lb, ub, step = info.loop_bounds(m)
        if step != 1 or not (lb.is_const and ub.is_const) or ub.const <= lb.const:
            return False
    return True


def _inline(m: Operation, iv: Value) -> None:
    """Replace loop ``m`` by one run of its body at loop variable ``iv``."""
    blk = m.regions[0].block
    blk.args[0].replace_all_uses_with(iv)
    for arg, init in zip(blk.args[1:], m.operands[3:]):
        arg.replace_all_uses_with(init)
    term = blk.terminator
    for op in list(blk.ops[:-1]):
        op.move_before(m)
    m.replace_with(list(term.operands))


def _guard_nest(b: Builder, info, loop: Operation, which: int, true: Value,
                raise_nest) -> Value | None:
    """``ok`` for the shared read number ``which``, evaluated only where it can conflict:
    a copy of the nest without its write, each loop whose variable is a write subscript
    that the read pins (``W_d == R_d``, ``R_d`` outside the nest) run once at ``R_d``
    (at ``lb`` when ``R_d`` is outside its range, where ``W_d == R_d`` is false), the
    other loops raised as a reduction of ``ok``. None when a loop does not raise."""
    vmap: dict = {}
    clone = clone_op(loop, vmap)
    loop.parent.insert_before(loop, clone)
    cnest = _nest(clone)
    scope = _Scope(info, vmap, loop)
    w, shared, _ = _plan(scope, cnest)
    r = shared[which]
    ok = true
    for m in cnest:
        ok = _add_slot(m, ok)
    for outer, inner in zip(cnest, cnest[1:]):
        outer.regions[0].block.terminator.operands.append(inner.results[1])
    with b.before(loop):
        okv = b.one("tensor.and", true, clone.results[1])  # follows the nest's ok result
    body = cnest[-1].regions[0].block
    with b.before(w):
        body.terminator.operands.append(_guard(b, scope, loop, w, [r], ok))
    for x in shared:
        x.operands[0] = clone.operands[3]
    wdims = _point_dims(w, 2)
    w.result.replace_all_uses_with(w.operands[0])
    w.erase()
    pinned = set()
    for wd, rd in zip(wdims, _point_dims(r, 1)):
        m = next((m for m in cnest if isinstance(wd, Value)
                  and wd is m.regions[0].block.args[0]), None)
        if m is None or m in pinned or _inside(scope, rd, loop):
            continue
        pinned.add(m)
        lb, ub = m.operands[0], m.operands[1]
        with b.before(m):
            if isinstance(rd, int):
                rd = b.constant(rd, lb.type.dtype)
            elif rd.type != lb.type:
                rd = b.one("tensor.convert", rd, dtype=lb.type.dtype)
            inside = b.one("tensor.and", b.one("tensor.ge", rd, lb), b.one("tensor.lt", rd, ub))
            at = b.one("tensor.select", inside, rd, lb)
        _inline(m, at)
    rest = [m for m in cnest if m not in pinned]
    if rest and not raise_nest(rest):
        return None
    return okv


def version(info, loop: Operation, raise_nest) -> str | None:
    """Version the nest headed by ``loop`` (see the module docstring); ``raise_nest(loops)``
    raises the given loops innermost first and returns False (having left them unraised or
    partly raised inside the outermost) when one does not raise. Returns a description, or
    None when nothing changed."""
    nest = _nest(loop)
    plan = None if nest is None or not _constant_trips(info, nest) else _plan(info, nest)
    if plan is None:
        return None
    block = loop.parent
    first = block.ops.index(loop)
    b = Builder(block)
    b.loc = loop.loc
    with b.before(loop):
        true = b.constant(True, "i1")
    ok, done = true, True
    for which in range(len(plan[1])):
        okr = _guard_nest(b, info, loop, which, true, raise_nest)
        if okr is None:
            done = False
            break
        with b.before(loop):
            ok = b.one("tensor.and", ok, okr)
    # result = B if ok else <the original nest>: the batch in the then branch (it updates
    # the incoming array in place there), the loop moved into the else branch
    then, other = Block(), Block()
    iff = Operation("loop.if", [ok], [r.type for r in loop.results], {},
                    [Region(then), Region(other)], loop.loc)
    block.insert_before(loop, iff)
    for old, new in zip(loop.results, iff.results):
        old.replace_all_uses_with(new)
    loop._detach()
    other.append(loop)
    other.append(Operation("loop.yield", list(loop.results), []))
    vmap: dict = {}
    clone = clone_op(loop, vmap)
    then.append(clone)
    then.append(Operation("loop.yield", [clone.results[0]], []))
    cnest = _nest(clone)
    for x in _plan(_Scope(info, vmap, loop), cnest)[1]:
        x.operands[0] = clone.operands[3]  # the shared reads see the initial array
    if done and raise_nest(cnest):
        return f"a batch of {len(cnest)} loop{'s' if len(cnest) > 1 else ''} under a " \
               "run-time guard on the iterations that may conflict, the loops kept as " \
               "the fallback"
    # undo: the loop back in place, everything built in front of it erased
    loop._detach()
    block.insert_before(iff, loop)
    for old, new in zip(iff.results, loop.results):
        old.replace_all_uses_with(new)
    for op in reversed(block.ops[first:block.ops.index(loop)]):
        op.erase(drop_uses=True)
    return None


class _Scope:
    """``inside(v, loop)`` for values of the clone: a clone value is inside the clone nest
    exactly when its original is inside the original nest."""

    def __init__(self, info, vmap, loop):
        self.info = info
        self.back = {new: old for old, new in vmap.items()}
        self.loop = loop

    def inside(self, v, _loop):
        return self.info.inside(self.back.get(v, v), self.loop)
