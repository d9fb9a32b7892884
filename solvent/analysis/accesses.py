"""The accesses of a loop to one carried array, read off the tensor IR.

A carried tensor's versions inside the loop body form one class: the block argument, every
``tensor.update_slice`` result built on a version, ``select`` results with a version as an
arm, nested ``loop.for``/``loop.while`` block arguments and results that start from a
version, and ``loop.if`` results that yield one. Each use of a version is an access:
``tensor.slice`` reads the elements of its index spec, ``tensor.update_slice`` writes them,
any other use (a whole-array op, the value written into another array) reads the whole
array, and a version replaced by an unrelated value (a yield of a fresh tensor, a ``select``
against one) writes the whole array. A version that flows into a different carried slot (arrays
trading places) or through a ``loop.while`` is a flow the analysis does not follow: reported
as a problem, which the classifier turns into "carried".

Each dimension of an access is a point (an affine element), a strided range (a slice), or
unknown with the reason (a non-affine subscript, an index that may be negative and wrap, or
one NumPy would reject as out of bounds: see affine.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Operation
from .affine import Affine, LoopInfo


@dataclass
class Dim:
    """One dimension of an access: ``point`` (element ``form``), ``range`` (elements
    ``form + step*t`` for ``t`` in ``[0, count)``) or ``unknown`` (with ``reason``)."""

    kind: str
    form: Affine | None = None
    count: int = 1
    step: int = 1
    reason: str = ""


@dataclass
class Access:
    op: Operation
    write: bool
    dims: list[Dim]
    text: str

    @property
    def line(self):
        return self.op.loc.line if self.op.loc is not None else None


def _dims_of(info: LoopInfo, loop: Operation, spec: list, dyn: list, shape) -> list[Dim]:
    dims = []
    d = 0
    for it in spec:
        k = it[0]
        if k == "n":
            continue
        n = shape[d]
        d += 1
        if k == "c":
            dims.append(Dim("point", Affine(it[1])))
        elif k == "s":
            start, stop, step = it[1:]
            dims.append(Dim("range", Affine(start), len(range(start, stop, step)), step))
        elif k == "i":
            dims.append(_point(info, loop, info.affine(dyn[it[1]]), n))
        elif k == "d":
            form = info.affine(dyn[it[1]])
            bad = info.nonaffine_reasons(form, loop)
            size = it[2]
            if bad:
                dims.append(Dim("unknown", reason=_why(info, form, bad)))
                continue
            lo, hi = info.bounds(form)
            if lo is None or hi is None or lo < 0 or hi > n - size:
                dims.append(Dim("unknown", reason=f"slice start {info.render(form)} may be "
                                                  "clamped into the dimension"))
            else:
                dims.append(Dim("range", form, size, 1))
        elif k == "r":
            dims.append(Dim("unknown", reason="a slice whose length is known only at run time"))
        else:
            dims.append(Dim("unknown", reason=f"index item {it}"))
    return dims


def _why(info, form, bad) -> str:
    v, reason = bad[0]
    whole = form.const == 0 and form.terms == {v: 1}
    where = "" if whole else f" in {info.render(form)}"
    return f"{info.name(v)}{where} is a {reason}"


def _point(info: LoopInfo, loop: Operation, form: Affine, n: int) -> Dim:
    """The element an integer index selects, with NumPy's single wrap of negative values."""
    bad = info.nonaffine_reasons(form, loop)
    if bad:
        return Dim("unknown", reason=_why(info, form, bad))
    lo, hi = info.bounds(form)
    text = info.render(form)
    if lo is not None and lo >= 0:
        if hi is not None and hi >= n:
            return Dim("unknown", reason=f"index {text} reaches {hi}, outside a dimension of "
                                         f"{n} (NumPy raises, solvent clamps)")
        return Dim("point", form)
    if hi is not None and hi < 0 and lo is not None and lo >= -n:
        return Dim("point", form + Affine(n))  # always negative: wraps once, uniformly
    return Dim("unknown", reason=f"index {text} may be negative (NumPy wraps it)")


def _full(shape) -> list[Dim]:
    return [Dim("range", Affine(0), n, 1) for n in shape]


@dataclass
class _ArrayUse:
    name: str
    accesses: list[Access]
    problem: str | None = None  # a flow the analysis cannot follow


def collect(info: LoopInfo, loop: Operation, k: int) -> _ArrayUse:
    """Every access to carried tensor ``k`` of ``loop`` inside its body."""
    block = loop.regions[0].block
    seed = block.args[1 + k]
    shape = seed.type.shape
    name = info.array_name(seed)
    ops = [op for op in block.walk()]
    cls = {seed}
    changed = True
    while changed:
        changed = False
        for op in ops:
            new = []
            if op.name == "tensor.update_slice" and op.operands[0] in cls:
                new.append(op.result)
            elif op.name == "tensor.select" and (op.operands[1] in cls or op.operands[2] in cls):
                new.append(op.result)
            elif op.name == "loop.for":
                for j, init in enumerate(op.operands[3:]):
                    if init in cls:
                        new += [op.regions[0].block.args[1 + j], op.results[j]]
            elif op.name == "loop.while":
                for j, init in enumerate(op.operands):
                    if init in cls:
                        new += [op.regions[0].block.args[j], op.regions[1].block.args[j],
                                op.results[j]]
            elif op.name == "loop.yield" and op is not block.terminator:
                parent = info.parent_op(op)
                if parent is not None and parent.name == "loop.if":
                    new += [parent.results[j] for j, o in enumerate(op.operands) if o in cls]
            for v in new:
                if v not in cls:
                    cls.add(v)
                    changed = True
    use = _ArrayUse(name, [])
    for op in ops:
        touched = [j for j, o in enumerate(op.operands) if o in cls]
        if not touched:
            continue
        spec = op.attrs.get("spec")
        if op.name == "tensor.slice":
            use.accesses.append(Access(op, False, _dims_of(info, loop, spec, op.operands[1:],
                                                           shape),
                                       info.render_access(seed, spec, op.operands[1:])))
        elif op.name == "tensor.update_slice":
            if 0 in touched:
                use.accesses.append(Access(op, True, _dims_of(info, loop, spec,
                                                              op.operands[2:], shape),
                                           info.render_access(seed, spec, op.operands[2:])))
            if 1 in touched:
                use.accesses.append(Access(op, False, _full(shape), f"{name} (whole array)"))
        elif op.name == "tensor.select":
            if not (op.operands[1] in cls and op.operands[2] in cls):
                use.accesses.append(Access(op, True, _full(shape), f"{name} (replaced whole)"))
        elif op.name == "loop.yield":
            parent = info.parent_op(op)
            if op is block.terminator:
                for j in touched:
                    if j != k:
                        use.problem = (f"{name} flows into another carried value: the "
                                       "arrays trade places between iterations")
            elif parent is not None and parent.name == "loop.for":
                for j in touched:
                    if parent.operands[3 + j] not in cls:
                        use.problem = f"{name} flows into another carried value of a " \
                                      "nested loop"
            elif parent is not None and parent.name == "loop.if":
                other = parent.regions[1 if op.parent is parent.regions[0].block else 0]
                for j in touched:
                    if other.block.terminator.operands[j] not in cls:
                        use.accesses.append(Access(op, True, _full(shape),
                                                   f"{name} (replaced whole)"))
            else:
                use.problem = f"{name} flows through {parent.name if parent else '?'}"
        elif op.name in ("loop.for", "loop.while"):
            # the chain continues in the nested loop; its yield must keep it (checked above)
            if op.name == "loop.for":
                term = op.regions[0].block.terminator
                for j in touched:
                    if j >= 3 and term.operands[j - 3] not in cls:
                        use.accesses.append(Access(op, True, _full(shape),
                                                   f"{name} (replaced whole)"))
                if any(j < 3 for j in touched):
                    use.accesses.append(Access(op, False, _full(shape), f"{name} (whole)"))
            else:
                use.problem = f"{name} is carried by a while loop inside"
        elif op.name == "loop.condition":
            use.accesses.append(Access(op, False, _full(shape), f"{name} (whole array)"))
        else:
            use.accesses.append(Access(op, False, _full(shape),
                                       f"{name} (whole array, by {op.name})"))
    term = block.terminator
    if term.operands[k] not in cls:
        use.accesses.append(Access(term, True, _full(shape), f"{name} (replaced whole)"))
    return use
