"""Recognizing reductions: a carried value updated only as ``s = s op value``.

A carried value ``s`` (a loop block argument, the *seed*) is a reduction with operator ``op``
when the value the loop yields for it is built from ``s`` by a chain of ops, each of which

- is an associative, commutative binary op (``add`` -> sum, ``mul`` -> product, ``max``,
  ``min``, ``fmax``, ``fmin``, logical/bitwise and/or/xor) with exactly one operand that
  depends on ``s``, all of the same operator; ``s - v`` counts as a sum (``s + (-v)``);
- or is ``select(c, a, b)`` whose condition does not depend on ``s`` and whose arms are
  chains of the same operator (``if c: s += v`` after if-conversion: one arm is ``s``);
- or is an inner ``loop.for`` whose carried slot starting from the chain is itself a
  reduction with the same operator (``for j: s += A[i, j]`` inside the ``i`` loop);

and no value of the chain (``s`` included) has any other use: nothing else in the iteration
may observe the partial result. Under these conditions the final value is
``s0 op v_1 op v_2 ... op v_n`` in iteration order, and reordering the iterations only
reassociates and commutes ``op``: exact for integers, logical ops, max and min; for floating
``sum`` and ``product`` it changes the rounding (recorded as a note on the reduction).
"""
from __future__ import annotations

from ..ir.core import Block, Operation, Value
from ..ir.types import TensorType
from .affine import LoopInfo

ASSOC = {
    "tensor.add": "sum", "tensor.sub": "sum", "tensor.mul": "product",
    "tensor.max": "max", "tensor.min": "min", "tensor.fmax": "max", "tensor.fmin": "min",
    "tensor.and": "all", "tensor.or": "any", "tensor.xor": "xor",
    "tensor.bitand": "bitand", "tensor.bitor": "bitor", "tensor.bitxor": "bitxor",
}


def depends(info: LoopInfo, v: Value, seed: Value) -> bool:
    """Does ``v`` (transitively) depend on ``seed``?"""
    return v in dependents(info, seed)


def dependents(info: LoopInfo, seed: Value) -> set:
    """Every value that depends on ``seed``, found by one forward scan of the block that
    defines it. A region op whose operands or nested ops use a dependent value has all its
    block arguments and results counted dependent (conservative). Cached on ``info``."""
    cache = info.__dict__.setdefault("_dependents", {})
    if seed in cache:
        return cache[seed]
    block = seed.owner if isinstance(seed.owner, Block) else seed.owner.parent
    dep = {seed}

    def touches(op) -> bool:
        return any(o in dep for inner in op.walk() for o in inner.operands)

    def scan(blk) -> None:
        for op in blk.ops:
            if not op.regions:
                if any(o in dep for o in op.operands):
                    dep.update(op.results)
                continue
            for r in op.regions:
                scan(r.block)
            if touches(op):
                for r in op.regions:
                    dep.update(r.block.args)
                for r in op.regions:
                    scan(r.block)
                dep.update(op.results)

    if block is not None:
        scan(block)
    cache[seed] = dep
    return dep


def _combine(a, b):
    if a is None or b is None:
        return None
    if a == "id":
        return b
    if b == "id" or a == b:
        return a
    return None


def chain(info: LoopInfo, v: Value, seed: Value):
    """(operator or "id", chain values from the seed up to ``v``) when ``v`` is built from
    ``seed`` as described above."""
    if v is seed:
        return "id", []
    if isinstance(v.owner, Block):
        return None
    op = v.owner
    if op.name in ASSOC:
        dep = [k for k, o in enumerate(op.operands) if depends(info, o, seed)]
        if len(dep) != 1 or (op.name == "tensor.sub" and dep != [0]):
            return None
        sub = chain(info, op.operands[dep[0]], seed)
        if sub is None:
            return None
        kind = _combine(sub[0], ASSOC[op.name])
        return (kind, sub[1] + [v]) if kind else None
    if op.name == "tensor.select":
        c, a, b = op.operands
        if depends(info, c, seed):
            return _compare_select(info, op, v, seed)
        ca, cb = chain(info, a, seed), chain(info, b, seed)
        if ca is None or cb is None:
            return None
        kind = _combine(ca[0], cb[0])
        return (kind, ca[1] + cb[1] + [v]) if kind else None
    if op.name == "loop.for":
        k = v.index
        init = op.operands[3 + k]
        others = [o for j, o in enumerate(op.operands) if j != 3 + k]
        if any(depends(info, o, seed) for o in others):
            return None
        for inner in op.walk():  # the inner body may see the seed only through its slot
            if inner is not op and any(not info.inside(o, op) and depends(info, o, seed)
                                       for o in inner.operands):
                return None
        inner_kind = loop_reduction(info, op, k)
        sub = chain(info, init, seed)
        if inner_kind is None or sub is None:
            return None
        kind = _combine(sub[0], inner_kind)
        return (kind, sub[1] + [v]) if kind else None
    return None


_PICKS_LARGER = {"tensor.gt": True, "tensor.ge": True, "tensor.lt": False, "tensor.le": False}


def _compare_select(info: LoopInfo, op: Operation, v: Value, seed: Value):
    """``select(p > q, p, q)`` and its mirrors over the chain value and an independent value:
    a max or a min (Python's ``max(m, x)`` after if-conversion)."""
    c, u, w = op.operands
    cmp = c.owner
    if isinstance(cmp, Block) or cmp.name not in _PICKS_LARGER:
        return None
    p, q = cmp.operands
    if not ((u is p and w is q) or (u is q and w is p)) or p is q:
        return None
    dep = [x for x in (p, q) if depends(info, x, seed)]
    if len(dep) != 1 or takes_nan(info, v, seed):
        return None
    sub = chain(info, dep[0], seed)
    if sub is None:
        return None
    larger = _PICKS_LARGER[cmp.name] == (u is p)
    kind = _combine(sub[0], "max" if larger else "min")
    # the compare is a use of the chain value: list it with the select
    return (kind, sub[1] + [c, v]) if kind else None


def takes_nan(info: LoopInfo, v: Value, seed: Value) -> bool:
    """Is ``v`` a float ``select(p > q, p, q)`` (or a mirror) that keeps the value built
    from ``seed`` when the comparison holds and takes the other one when it does not
    (Python's ``max(x, m)``, ``m if m > x else x``)? Such a pick takes a NaN, and the next
    value replaces it: no reordered max/min gives that (``if x > m: m = x`` never takes a
    NaN)."""
    op = v.owner
    if isinstance(op, Block) or op.name != "tensor.select":
        return False
    c, u, w = op.operands
    cmp = c.owner
    if isinstance(cmp, Block) or cmp.name not in _PICKS_LARGER or \
            not ((u is cmp.operands[0] and w is cmp.operands[1]) or
                 (u is cmp.operands[1] and w is cmp.operands[0])):
        return False
    t = u.type
    return isinstance(t, TensorType) and t.dtype[0] in "fc" and depends(info, u, seed) \
        and not depends(info, w, seed)


def reduction_kind(info: LoopInfo, top: Value, seed: Value, consumer: Operation):
    """The operator when ``top`` is a reduction chain from ``seed`` whose values are used
    only by the next op of the chain, and ``top`` only (once) by ``consumer``; None otherwise
    (also for a pass-through ``top is seed``)."""
    c = chain(info, top, seed)
    if c is None or c[0] == "id":
        return None
    kind, values = c
    allowed = {id(v.owner) for v in values}
    for val in [seed] + values:
        for u in info.uses.get(val, []):
            if val is top:
                if u is not consumer:
                    return None
            elif id(u) not in allowed:
                return None
    if sum(1 for o in consumer.operands if o is top) != 1:
        return None
    return kind


def loop_reduction(info: LoopInfo, loop: Operation, k: int):
    """Operator of ``loop``'s carried slot ``k`` as a reduction, "id" when it passes through
    unchanged, None otherwise."""
    block = loop.regions[0].block
    seed = block.args[1 + k]
    term = block.terminator
    top = term.operands[k]
    if top is seed:
        return "id"
    return reduction_kind(info, top, seed, term)


def dead_slot(info: LoopInfo, loop: Operation, k: int) -> bool:
    """Is carried slot ``k`` of ``loop`` dead: nobody uses the loop's result, and what the
    body computes from the slot feeds nothing but the slot's own next value? (The variable
    of an inner Python loop leaking into the loop around it looks like this: ``j`` after
    ``for j in range(i + 1)`` is carried through the ``k`` loop and never read after it.)
    Such a slot may hold anything; the loop's other results do not depend on it."""
    if info.uses.get(loop.results[k]):
        return False
    block = loop.regions[0].block
    dep = dependents(info, block.args[1 + k])
    term = block.terminator
    for v in dep:
        for u in info.uses.get(v, []):
            if u is term:
                if any(o is v and j != k for j, o in enumerate(u.operands)):
                    return False
            elif not all(r in dep for r in u.results) or (u.regions and not u.results):
                return False
    return True


def rounding_note(kind: str, t) -> str:
    if kind in ("sum", "product") and isinstance(t, TensorType) and t.dtype[0] in "fc":
        return "floating-point reassociation changes the rounding"
    if kind in ("max", "min") and isinstance(t, TensorType) and t.dtype[0] in "fc":
        return "exact in any order for non-NaN inputs"
    return "exact in any order"
