"""Versioned raising: a loop nest whose dependence vanishes when some writes change nothing.

Floyd-Warshall's ``k`` loop updates ``d[i, j] = min(d[i, j], d[i, k] + d[k, j])`` over the
``i, j`` nest. The nest reads row and column ``k`` while it writes every element, so the
dependence test rightly finds it carried. But the writes into row ``k`` (``i == k``) store
``min(d[k, j], d[k, k] + d[k, j])``: the old value whenever ``d[k, k] >= 0``. When every
write into an element that another iteration reads stores the value already there, the
nest computes what its batched form computes. This file raises such a nest under a run-time
guard and keeps the loop as the fallback::

    B, ok = <the nest batched: shared reads read the nest's initial array; ok = AND over
             the iterations of (not conflict or the write stores the old value)>
    result = B if ok else <the original loop nest>

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
noop(p))``, computed in the batched form on the initial array.

**Identity** (``ok`` true => sequential order == batched form). Induction over the
iterations in order: before iteration ``p`` every element ``p`` reads holds its initial
value. Its own element ``W(p)`` is written by ``p`` alone (injective write). An element
``x`` read by a shared read and written by an earlier iteration ``q`` (``x = W(q)``) makes
``q`` conflict, so ``q`` wrote the value already there. Hence ``p`` reads what the batched
form reads, computes the same value and, if it conflicts, writes the old value again; the
final array is the batched ``B``. When ``ok`` is false the original loops run: the result
is always the loop's. The batched form is the ordinary raise (raise_loops.py) of the nest
with its shared reads redirected to the initial array; if any loop of it does not raise,
nothing changes.
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


def version(info, loop: Operation, raise_nest) -> str | None:
    """Version the nest headed by ``loop`` (see the module docstring); ``raise_nest(loops)``
    raises the given loops innermost first and returns False (having left them unraised or
    partly raised inside the outermost) when one does not raise. Returns a description, or
    None when nothing changed."""
    nest = _nest(loop)
    if nest is None or _plan(info, nest) is None:
        return None
    b = Builder(loop.parent)
    b.loc = loop.loc
    with b.before(loop):
        true = b.constant(True, "i1")
    vmap: dict = {}
    clone = clone_op(loop, vmap)
    loop.parent.insert_before(loop, clone)
    cnest = _nest(clone)
    scope = _Scope(info, vmap, loop)
    w, shared, _ = _plan(scope, cnest)
    # the ok slot threaded through the nest
    ok = true
    for m in cnest:
        arg = _add_slot(m, ok)
        ok = arg
    for outer, inner in zip(cnest, cnest[1:]):
        outer.regions[0].block.terminator.operands.append(inner.results[1])
    body = cnest[-1].regions[0].block
    with b.before(w):
        ok_next = _guard(b, scope, loop, w, shared, ok)
    body.terminator.operands.append(ok_next)
    for r in shared:
        r.operands[0] = clone.operands[3]  # the shared reads see the initial array
    # result = B if ok else <the original nest>: the loop moves into the else branch
    then, other = Block(), Block()
    then.append(Operation("loop.yield", [clone.results[0]], []))
    iff = Operation("loop.if", [clone.results[1]], [r.type for r in loop.results], {},
                    [Region(then), Region(other)], loop.loc)
    loop.parent.insert_before(loop, iff)
    for old, new in zip(loop.results, iff.results):
        old.replace_all_uses_with(new)
    loop._detach()
    other.append(loop)
    other.append(Operation("loop.yield", list(loop.results), []))
    if raise_nest(cnest):
        _sink(iff, then)
        return f"a batch of {len(cnest)} loop{'s' if len(cnest) > 1 else ''} under a " \
               "run-time guard, the loops kept as the fallback"
    # undo: the loop back in place, the clone (or what its raise left) erased
    loop._detach()
    iff.parent.insert_before(iff, loop)
    for old, new in zip(iff.results, loop.results):
        old.replace_all_uses_with(new)
    iff.erase(drop_uses=True)
    if clone.parent is not None:
        clone.erase(drop_uses=True)
    true.owner.erase(drop_uses=True)
    return None


def _sink(iff: Operation, then: Block) -> None:
    """Move the ops in front of ``iff`` that only the then branch uses into it: the batch
    runs only when the guard holds, and builds its result where the branch yields it (in
    place of the incoming array, which the native backend donates to the branch)."""
    block = iff.parent
    inside = set(then.ops)
    for op in reversed(block.ops[:block.ops.index(iff)]):
        if op.regions or not op.results or any(
                u not in inside for r in op.results for u, _ in r.live_uses()):
            continue
        op._detach()
        then.insert(0, op)
        inside.add(op)


class _Scope:
    """``inside(v, loop)`` for values of the clone: a clone value is inside the clone nest
    exactly when its original is inside the original nest."""

    def __init__(self, info, vmap, loop):
        self.info = info
        self.back = {new: old for old, new in vmap.items()}
        self.loop = loop

    def inside(self, v, _loop):
        return self.info.inside(self.back.get(v, v), self.loop)
