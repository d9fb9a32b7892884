"""Products that add themselves into an accumulator: ``s = acc + A @ B`` where the sum is
written in place into ``acc``'s buffer (``out += w[:, :, k] @ x[:, k:k + n]``, ``C += A @
B``) becomes one BLAS gemm with beta = 1 whose C is that buffer, and the add does nothing.

Identity: gemm computes ``C <- A B + 1 * C`` element by element, which is the add's value,
in the buffer the add would have written. It holds when the product is read by the add
only; the add writes into ``acc``'s buffer (``Plan.reused``) and is computed at its own
position (not fused into a consumer, not in a multi-output loop) and ``acc`` is held in
that buffer (not a fused value: the add's computation would be skipped with it); every op
between the
product and the add is fused (computed in its consumer, none of which lies between: an op
between that runs would see ``acc`` already summed); and neither product operand reads
``acc``'s buffer (BLAS's C must not alias A or B), directly or through a fused value
(a window, a transpose). Only products that are one gemm call are taken: real float32 or
float64, static shapes, no batch dims, both free sizes above 1, at least 512 multiply-adds
(``rules_linalg._dot``'s threshold); never a syrk (it fills one triangle). An accumulator
``s * x`` computed in the add (``C *= beta; C += A @ B``) is held as ``x`` and ``s`` is
gemm's beta: ``C <- A B + s C`` is the add's value, element by element (up to where the
rounding of ``s * C`` falls).

Saves a temporary the size of the result and one pass over it (written by the product,
then read by the add). ``Plan.accumulate`` maps each such product to its add.
"""
from __future__ import annotations

from ...ir.core import Block, Operation


def _size(v, dims):
    n = 1
    for d in dims:
        n *= v.type.shape[d]
    return n


def gemm_once(op: Operation) -> bool:
    """Whether ``rules_linalg._dot`` lowers ``op`` as one gemm call or, below its
    ``INLINE_BELOW`` multiply-adds (or without BLAS), as one inline loop nest: both take
    gemm's beta (see the module doc)."""
    a, b = op.operands
    if a.type.dtype not in ("f32", "f64") or not (a.type.static and b.type.static) \
            or op.attrs["lhs_batch"]:
        return False
    lc, rc = op.attrs["lhs_contract"], op.attrs["rhs_contract"]
    m = _size(a, [d for d in range(a.type.rank) if d not in lc])
    n = _size(b, [d for d in range(b.type.rank) if d not in rc])
    return m > 1 and n > 1


def _buffers_read(plan, v, seen=None) -> set:
    """Ids of the buffers value ``v`` reads: its own, or through fused ops their operands'."""
    seen = set() if seen is None else seen
    owner = v.owner
    if isinstance(owner, Operation) and owner in plan.fused:
        for o in owner.operands:
            if id(o) not in seen:
                seen.add(id(o))
                _buffers_read(plan, o, seen)
        return seen
    if v in plan.of:
        seen.add(id(plan.of[v]))
    return seen


def _lazy(plan, v, in_groups) -> bool:
    """Whether ``v`` is computed where it is read rather than held in its buffer (a fused
    value, a multi-output loop's member): ``C * beta + A @ B`` fused into the add, whose
    buffer then still holds C."""
    return isinstance(v.owner, Operation) and (v.owner in plan.fused or v.owner in in_groups)


def _scaled(plan, acc, add):
    """(x, s) for an accumulator ``s * x`` computed in the add (a fused tensor.mul of a
    scalar, read by the add only): the buffer holding ``x`` takes ``A @ B + s * x`` as
    gemm's C with beta = s (``C *= beta; C += A @ B``); (acc, None) otherwise."""
    from .rules_linalg import blas_scaled
    m = acc.owner
    if not (isinstance(m, Operation) and m in plan.fused and blas_scaled(m)):
        return acc, None
    uses = acc.live_uses()
    if len(uses) != 1 or uses[0][0] is not add:
        return acc, None
    p, q = m.operands
    for sc, x in ((p, q), (q, p)):
        if sc.type.rank == 0 and x.type == acc.type:
            return x, sc
    return acc, None


def find_accumulations(plan, block: Block) -> None:
    in_groups = {m for g in plan.groups.values() for m in g.members}
    ops = block.ops
    for pos, op in enumerate(ops):
        for region in op.regions:
            find_accumulations(plan, region.block)
        if op.name != "tensor.add" or op not in plan.reused or op in plan.fused \
                or op in in_groups:
            continue
        r = op.results[0]
        for acc, d in (op.operands, op.operands[::-1]):
            dot = d.owner
            held, beta = _scaled(plan, acc, op)
            if not (isinstance(dot, Operation) and dot.name == "tensor.dot_general"
                    and dot.parent is block and d.type == r.type and acc.type == r.type
                    and plan.of.get(held) is plan.of[r] and gemm_once(dot)
                    and dot not in in_groups and not _lazy(plan, held, in_groups)):
                continue
            users = [u for u in ops if any(o is d for w in u.walk() for o in w.operands)]
            if users != [op]:
                continue
            k = ops.index(dot)
            if not all(between in plan.fused for between in ops[k + 1:pos]):
                continue
            target = id(plan.of[r])
            if any(target in _buffers_read(plan, o) for o in dot.operands):
                continue
            plan.accumulate[dot] = op
            if beta is not None:
                plan.accumulate_beta[dot] = beta
            plan.dropped.add(plan.of[d].id)   # the product's own buffer: never allocated
            plan.of[d] = plan.of[r]
            break
