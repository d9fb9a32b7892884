"""If-conversion: a small data-dependent ``loop.if`` becomes straight-line code and selects.

Identity: ``if c: yield f() else: yield g()``  ==  ``select(c, f(), g())`` when both
branches are pure and cheap (no loops, small values), which holds after functionalization.
A branch that yields an updated array ``update_slice(x, v, idx)`` while the other yields
``x`` or ``update_slice(x, w, idx)`` (same index) is sunk: the select picks the element, not
the array: ``update_slice(x, select(c, v, w or x[idx]), idx)``. This keeps a scalar loop
with ``if v > t: y[i] = ...`` at O(1) work per iteration instead of copying ``y``.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation
from ..ir.types import TensorType

# A branch may hold at most this many ops, each producing at most SMALL elements
# (update_slice results that are sunk are exempt).
MAX_OPS = 48
SMALL = 64
_EXPENSIVE = {"tensor.dot_general", "tensor.solve", "tensor.inv", "tensor.cholesky",
              "tensor.det", "tensor.gather", "tensor.scatter", "tensor.scatter_add"}


def _sinkable(op: Operation | None) -> bool:
    return op is not None and op.name == "tensor.update_slice"


def _convertible(op: Operation) -> bool:
    from ..ir.registry import get
    for region in op.regions:
        ops = region.block.ops[:-1]
        if len(ops) > MAX_OPS:
            return False
        yielded = set(region.block.ops[-1].operands)
        for inner in ops:
            if inner.regions or not get(inner.name).pure or inner.name in _EXPENSIVE:
                return False
            for r in inner.results:
                if r.type.size > SMALL and not (_sinkable(inner) and r in yielded):
                    return False
    return True


def _speculated(name, attrs: dict) -> dict:
    """Attributes of an op that now runs whether or not its branch was taken: an element
    access with a run-time index is marked ``unchecked`` (the IR's total semantics: the index
    is clamped), so a backend that raises IndexError for a bad index does not raise for an
    access the program would not have made."""
    attrs = dict(attrs)
    if name in ("tensor.slice", "tensor.update_slice") and \
            any(it[0] == "i" for it in attrs.get("spec", ())):
        attrs["unchecked"] = True
    return attrs


def _clone_into(block: Block, ops, vmap: dict, pos: int) -> int:
    for op in ops:
        new = Operation(op.name, [vmap.get(o, o) for o in op.operands],
                        [r.type for r in op.results], _speculated(op.name, op.attrs), None,
                        op.loc)
        new.parent = block
        block.ops.insert(pos, new)
        pos += 1
        for a, b in zip(op.results, new.results):
            vmap[a] = b
    return pos


def _insert(block: Block, pos: int, name, operands, attrs, result_type, loc):
    op = Operation(name, operands, [result_type], _speculated(name, attrs), None, loc)
    op.parent = block
    block.ops.insert(pos, op)
    return op.result, pos + 1


def _owner(v):
    return v.owner if isinstance(v.owner, Operation) else None


def _convert(block: Block, op: Operation, replace: dict) -> None:
    pos = block.ops.index(op)
    cond = op.operands[0]
    outs = []
    vmaps = []
    for region in op.regions:
        vmap: dict = {}
        pos = _clone_into(block, region.block.ops[:-1], vmap, pos)
        outs.append([vmap.get(v, v) for v in region.block.ops[-1].operands])
        vmaps.append(vmap)
    results = []
    for a, b in zip(*outs):
        if a is b:
            results.append(a)
            continue
        ua, ub = _owner(a), _owner(b)
        ua = ua if _sinkable(ua) else None
        ub = ub if _sinkable(ub) else None
        base = None
        if ua and ub and ua.operands[0] is ub.operands[0] and ua.attrs == ub.attrs and \
                ua.operands[2:] == ub.operands[2:]:
            base, spec, dyn, va, vb = ua.operands[0], ua.attrs["spec"], ua.operands[2:], \
                ua.operands[1], ub.operands[1]
        elif ua and ua.operands[0] is b:
            base, spec, dyn, va = b, ua.attrs["spec"], ua.operands[2:], ua.operands[1]
            vb, pos = _insert(block, pos, "tensor.slice", [b] + list(dyn), {"spec": spec},
                              va.type, op.loc)
        elif ub and ub.operands[0] is a:
            base, spec, dyn, vb = a, ub.attrs["spec"], ub.operands[2:], ub.operands[1]
            va, pos = _insert(block, pos, "tensor.slice", [a] + list(dyn), {"spec": spec},
                              vb.type, op.loc)
        if base is not None:
            sel, pos = _insert(block, pos, "tensor.select", [cond, va, vb], {}, va.type, op.loc)
            r, pos = _insert(block, pos, "tensor.update_slice", [base, sel] + list(dyn),
                             {"spec": spec}, base.type, op.loc)
        else:
            r, pos = _insert(block, pos, "tensor.select", [cond, a, b], {},
                             TensorType(a.type.shape, a.type.dtype), op.loc)
        results.append(r)
    for old, new in zip(op.results, results):
        replace[old] = new
    block.ops.remove(op)


def _run(block: Block, replace: dict) -> None:
    for op in list(block.ops):
        op.operands = [replace.get(o, o) for o in op.operands]
        for region in op.regions:
            _run(region.block, replace)
        if op.name == "loop.if" and _convertible(op):
            _convert(block, op, replace)


def if_to_select(fn: Function) -> Function:
    _run(fn.body, {})
    return fn
