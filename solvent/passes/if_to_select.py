"""If-conversion: a small data-dependent ``loop.if`` becomes straight-line code and selects.

Identity: ``if c: yield f() else: yield g()``  ==  ``select(c, f(), g())`` when both
branches are pure and cheap (no loops, small values), which holds after functionalization.
A branch that yields an updated array ``update_slice(x, v, idx)`` while the other yields
``x`` or ``update_slice(x, w, idx)`` (same index) is sunk: the select picks the element, not
the array: ``update_slice(x, select(c, v, w or x[idx]), idx)``. This keeps a scalar loop
with ``if v > t: y[i] = ...`` at O(1) work per iteration instead of copying ``y``.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.builder import Builder
from ..ir.core import Block, Function, Operation
from ..ir.registry import get
from ..ops.indexspec import speculated_attrs
from .base import Pass

# A branch may hold at most this many ops, each producing at most SMALL elements
# (update_slice results that are sunk are exempt).
MAX_OPS = 48
SMALL = 64


def _sinkable(op: Operation | None) -> bool:
    return op is not None and op.name == "tensor.update_slice"


def _convertible(op: Operation, max_ops: int = MAX_OPS, small: int = SMALL) -> bool:
    for region in op.regions:
        ops = region.block.ops[:-1]
        if len(ops) > max_ops:
            return False
        yielded = set(region.block.ops[-1].operands)
        for inner in ops:
            if inner.regions or not get(inner.name).pure or get(inner.name).cost == "expensive":
                return False
            for r in inner.results:
                if not r.type.static:   # a run-time shape: its size is unknown here
                    return False
                if r.type.size > small and not (_sinkable(inner) and r in yielded):
                    return False
    return True


def _convert(op: Operation) -> None:
    """Replace ``op`` (a convertible loop.if) by its branches' ops, cloned before it, and
    selects of their results."""
    b = Builder(op.parent)
    cond = op.operands[0]
    with b.before(op):
        b.loc = op.loc
        outs, clones = [], []
        for region in op.regions:
            vmap: dict = {}
            for inner in region.block.ops[:-1]:
                new = b.create(inner.name, [vmap.get(o, o) for o in inner.operands],
                               speculated_attrs(inner.name, inner.attrs),
                               result_types=[r.type for r in inner.results])
                new.loc = inner.loc
                clones.append(new)
                vmap.update(zip(inner.results, new.results))
            outs.append([vmap.get(v, v) for v in region.block.ops[-1].operands])
        results = [_merge(b, cond, a, c) for a, c in zip(*outs)]
    op.replace_with(results)
    # a sunk update (the select picks the element) leaves the branch's whole-array update
    # unused; erased now, or an enclosing if would count it as a large speculated value
    for new in reversed(clones):
        if not any(r.has_uses for r in new.results):
            new.erase()


def _merge(b: Builder, cond, a, c):
    """select(cond, a, c), sunk into an update_slice when both sides update one array."""
    if a is c:
        return a
    ua, uc = _owner(a), _owner(c)
    ua = ua if _sinkable(ua) else None
    uc = uc if _sinkable(uc) else None
    if ua and uc and ua.operands[0] is uc.operands[0] and ua.attrs == uc.attrs and \
            list(ua.operands[2:]) == list(uc.operands[2:]):
        base, spec, dyn, va, vc = ua.operands[0], ua.attrs["spec"], list(ua.operands[2:]), \
            ua.operands[1], uc.operands[1]
        both = True  # both branches wrote that element
    elif ua and ua.operands[0] is c:
        both = False  # c may be another update (of an other element): only a wrote this one
        base, spec, dyn, va = c, ua.attrs["spec"], list(ua.operands[2:]), ua.operands[1]
        vc = b.create("tensor.slice", [c] + dyn,
                      speculated_attrs("tensor.slice", {"spec": spec})).result
    elif uc and uc.operands[0] is a:
        both = False
        base, spec, dyn, vc = a, uc.attrs["spec"], list(uc.operands[2:]), uc.operands[1]
        va = b.create("tensor.slice", [a] + dyn,
                      speculated_attrs("tensor.slice", {"spec": spec})).result
    else:
        return b.one("tensor.select", cond, a, c)
    sel = b.one("tensor.select", cond, va, vc)
    attrs = {"spec": spec} if both else speculated_attrs("tensor.update_slice", {"spec": spec})
    return b.create("tensor.update_slice", [base, sel] + dyn, attrs).result


def _owner(v):
    return v.owner if isinstance(v.owner, Operation) else None


def _run(block: Block, max_ops: int, small: int) -> None:
    for op in list(block.ops):
        for region in op.regions:
            _run(region.block, max_ops, small)
        if get(op.name).region_branch and _convertible(op, max_ops, small):
            _convert(op)


def if_to_select(fn: Function, max_ops: int = MAX_OPS, small: int = SMALL) -> Function:
    _run(fn.body, max_ops, small)
    return fn


@dataclass(frozen=True)
class IfToSelectOptions:
    max_ops: int = MAX_OPS   # ops per branch at most
    small: int = SMALL       # elements per value at most (sunk array updates exempt)


class IfToSelect(Pass):
    name = "if_to_select"
    Options = IfToSelectOptions

    def run(self, fn: Function) -> Function:
        return if_to_select(fn, self.options.max_ops, self.options.small)
