"""Mark the ``loop.for`` ops whose iterations may run in any order: ``parallel = true``.

The proof is analysis/dependence.py's: a loop it classifies *independent* or *reduction*
gets ``parallel = true`` and ``combiners``, one entry per carried value saying how the
values of iterations run apart are put together:

- ``"shared"``: an array that no two iterations touch at one element (or that passes
  through unchanged): every iteration writes the one buffer;
- ``"last"``: a scalar the body never reads (or passes through unchanged): the value of the
  last iteration (the init if none ran);
- the op folding a reduction (ops/control.py ``FOLDS``: ``"tensor.add"``, ``"tensor.mul"``,
  ``"tensor.max"``, ``"tensor.fmax"``, ... ``"tensor.bitxor"``): ``s = s op v``
  (of a scalar, or elementwise of a whole array), folded by that op; floating ``add`` and
  ``mul`` folded in another order round differently;
- ``"first_error"`` / ``"error_payload"``: the run-time check flags of checks_to_values
  (analysis/error_slots.py): the first failure in iteration order wins.

Loops with an element reduction (``s[e] += v`` at one element of a larger array) or a
``max``/``min`` written as a comparison on floats (``m if m > x else x``: not associative
when NaNs occur) are left unmarked. The attribute is a fact about the loop; backends that
do not run loops in parallel ignore it (the interpreter and XLA run it in order), the
native backend runs the outermost marked loop on its thread pool
(backends/native/rules_parallel.py).

A frontend that knows more than the dependence test states it with ``disjoint = true`` on
the loop: no two iterations touch one element of an array the loop writes (solvent.kernel's
block loop, where the launch proved each block writes its own elements; the subscripts there
come from ``blockIdx * blockDim + threadIdx`` and often look non-affine here). Such a loop is
marked with the combiners the test finds, and ``shared`` for every carried array the test
could not clear; a carried scalar the test cannot combine still leaves it unmarked.

Option ``enabled`` (default: the environment variable ``SOLVENT_PARALLEL``, "0" turns it
off) lets a benchmark compare both.
"""
from __future__ import annotations

import dataclasses
import os

from ..analysis.affine import LoopInfo
from ..analysis.dependence import INDEPENDENT, REDUCTION, classify_loop
from ..analysis.reductions import chain
from ..ir.core import Function, Operation
from .base import Pass

ENV = "SOLVENT_PARALLEL"
DISJOINT = "disjoint"   # a frontend's guarantee, see the module docstring
_FOLD = {"sum": "tensor.add", "product": "tensor.mul", "all": "tensor.and",
         "any": "tensor.or", "xor": "tensor.xor", "bitand": "tensor.bitand",
         "bitor": "tensor.bitor", "bitxor": "tensor.bitxor"}


_COMPARES = ("tensor.gt", "tensor.ge", "tensor.lt", "tensor.le")


def _enabled_default() -> bool:
    return os.environ.get(ENV, "1") != "0"


@dataclasses.dataclass(frozen=True)
class MarkParallelOptions:
    enabled: bool = dataclasses.field(default_factory=_enabled_default)


def _chain_ops(info: LoopInfo, loop: Operation, k: int) -> set:
    """Names of the ops of slot ``k``'s reduction chain, inner loops' chains included."""
    block = loop.regions[0].block
    c = chain(info, block.terminator.operands[k], block.args[1 + k])
    names = set()
    for v in (c[1] if c else []):
        op = v.owner
        if op.name == "loop.for":
            names |= _chain_ops(info, op, v.index)
        elif op.name in _COMPARES or op.name == "tensor.select" and op.operands[0] in c[1]:
            names.add("compare")
        elif op.name != "tensor.select":
            names.add(op.name)
    return names


def _combiner(info: LoopInfo, loop: Operation, k: int, slot: str | None) -> str | None:
    v = loop.operands[3 + k]
    array = v.type.rank > 0
    if slot in ("same", "shared"):
        return "shared" if array else "last"
    if slot == "last" and array:
        return None   # an array filled anew by every iteration: the native pool folds scalars
    if slot in ("last", "first_error", "error_payload"):
        return slot
    if slot is None or slot.startswith("element "):
        return None
    kind = slot.split(" ", 1)[-1]
    if kind in _FOLD:
        return _FOLD[kind]
    if kind not in ("max", "min"):
        return None
    ops = _chain_ops(info, loop, k)
    if ops in ({f"tensor.{kind}"}, {f"tensor.f{kind}"}):
        return ops.pop()
    if ops <= {f"tensor.{kind}", "compare"} and v.type.dtype[0] != "f":
        return f"tensor.{kind}"   # exact on integers, whatever the order
    return None


def combiners(info: LoopInfo, loop: Operation) -> list | None:
    """The ``combiners`` attribute for ``loop``, or None when it is not provably parallel."""
    if loop.name != "loop.for":
        return None
    report = classify_loop(info, loop)
    n = len(loop.operands) - 3
    disjoint = loop.attrs.get(DISJOINT) is True
    if len(report.slots) != n or not disjoint and report.kind not in (INDEPENDENT, REDUCTION):
        return None
    out = [_combiner(info, loop, k, s) for k, s in enumerate(report.slots)]
    if disjoint:   # the frontend's word for the arrays the test could not clear
        out = [c if c is not None or v.type.rank == 0 else "shared"
               for c, v in zip(out, loop.operands[3:])]
    return None if None in out else out


class MarkParallel(Pass):
    name = "mark_parallel"
    Options = MarkParallelOptions

    def run(self, fn: Function) -> Function:
        if not self.options.enabled:
            return fn
        info = LoopInfo(fn)
        for loop in info.loops:
            if "parallel" in loop.attrs:
                continue   # set by a frontend
            comb = combiners(info, loop)
            if comb is not None:
                loop.attrs["parallel"] = True
                loop.attrs["combiners"] = comb
        return fn


def clear(fn: Function) -> None:
    """Drop every loop's parallel marks (before a transformation that changes loops)."""
    for op in fn.walk():
        clear_op(op)


def clear_op(op) -> None:
    """Drop ``op``'s parallel marks."""
    op.attrs.pop("parallel", None)
    op.attrs.pop("combiners", None)
    op.attrs.pop(DISJOINT, None)
