"""Barrier lowering on the IR: a loop over a block's threads (``loop.for`` with
``simt = "threads"``) whose body holds ``simt.barrier`` ops is split at them into one thread
loop per barrier-free run (Polygeist's fission, seed 003):

    loop.for %t {simt = "threads"} { R0; simt.barrier; R1 }
      ->  loop.for %t {simt = "threads"} { R0; write v -> S[t] }
          loop.for %t {simt = "threads"} { v = read S[t]; R1 }

A value one run defines and a later run reads is kept per thread across the barrier: a
buffer of one element per thread (``S``, allocated before the loops, zeros) written at the
end of the run that defines it and read at the start of the runs that use it. The induction
variable is each new loop's own.

Identity: every thread runs its statements in order; all threads finish a run before any
starts the next, which is what the barrier between the runs guarantees.

What it takes (anything else is refused with an ``IRError`` naming the barrier's line): the
thread loop runs ``range(n)`` for a constant ``n``, carries no values, and its barriers stand
directly in its body; values kept across a barrier are scalars. Barriers inside a ``for``,
``while`` or ``if`` within the thread loop need that statement interchanged with the thread
loop first, which solvent/simt/fission.py does on the kernel's Python AST; kernels launched
through ``solvent.kernel`` are lowered there today, before translation, so their IR holds no
barrier when this pass runs (see ops/simt.py).
"""
from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import Block, Function, Operation, Region
from ..ir.registry import IRError
from ..ir.types import RefType, TensorType
from ..ops.simt import ROLE, THREADS
from .base import Pass

BARRIER = "simt.barrier"


class LowerBarriers(Pass):
    name = "lower_barriers"
    tensor_only = False   # runs on the array level, before functionalize

    def run(self, fn: Function) -> Function:
        loops, barriers = [], 0
        for op in fn.walk():
            if op.name == BARRIER:
                barriers += 1
            elif op.name == "loop.for" and op.attrs.get(ROLE) == THREADS and \
                    any(o.name == BARRIER for o in op.regions[0].block.ops):
                loops.append(op)
        self.idle = not barriers
        for loop in loops:
            _fission(loop)
        left = next((op for op in fn.walk() if op.name == BARRIER), None) if barriers else None
        if left is not None:
            raise IRError(f"barrier at line {left.attrs.get('line', '?')}: inside control "
                          "flow within its thread loop; interchanging that statement with "
                          "the thread loop is not done on the IR (simt/fission.py does it "
                          "on the kernel's source)")
        return fn


def _constant(v):
    op = v.owner
    if isinstance(op, Operation) and op.name == "tensor.constant":
        return op.attrs["value"]
    return None


def _fission(loop: Operation) -> None:
    body = loop.regions[0].block
    first = next(o for o in body.ops if o.name == BARRIER)
    line = first.attrs.get("line", "?")
    lb, ub, step = (_constant(v) for v in loop.operands[:3])
    if lb != 0 or step != 1 or not isinstance(ub, int):
        raise IRError(f"barrier at line {line}: its thread loop is not range(n) for a "
                      "constant n")
    if len(loop.operands) > 3 or loop.results:
        raise IRError(f"barrier at line {line}: its thread loop carries values")
    iv = body.args[0]
    runs: list[list[Operation]] = [[]]
    for op in body.ops[:-1]:   # the loop.yield ends the body
        if op.name == BARRIER:
            runs.append([])
        else:
            runs[-1].append(op)
    run_of = {}
    for k, run in enumerate(runs):
        for top in run:
            for inner in top.walk():
                run_of[id(inner)] = k
    # values a run defines that a later run reads: kept per thread
    kept: dict = {}   # value -> (defining run, buffer)
    b = Builder(loop.parent)
    b.loc = loop.loc
    for k, run in enumerate(runs):
        for top in run:
            for inner in top.walk():
                for r in inner.results:
                    if any(run_of.get(id(u), k) > k for u, _ in r.live_uses()):
                        if not (isinstance(r.type, TensorType) and r.type.rank == 0):
                            raise IRError(f"barrier at line {line}: a value of type {r.type} "
                                          "is used across it; only scalars are kept per "
                                          "thread")
                        kept[r] = k
    with b.before(loop):
        buffers = {}
        for v in kept:
            zero = b.constant(0, v.type.dtype)
            zeros = b.one("tensor.broadcast_to", zero, shape=[ub])
            buffers[v] = b.one("array.alloc", zeros)
    new_loops = []
    for k, run in enumerate(runs):
        blk = Block()
        t = blk.add_arg(iv.type, iv.hint)
        nb = Builder(blk)
        nb.loc = loop.loc
        for v, d in kept.items():   # reloads of the values earlier runs keep
            if d < k and any(run_of.get(id(u)) == k for u, _ in v.live_uses()):
                got = nb.one("array.read", buffers[v], t, spec=[["i", 0]])
                for u, i in list(v.live_uses()):
                    if run_of.get(id(u)) == k:
                        u.operands[i] = got
        for top in run:
            body.ops.remove(top)
            blk.append(top)
        for u, i in list(iv.live_uses()):
            if run_of.get(id(u)) == k:
                u.operands[i] = t
        for v, d in kept.items():
            if d == k:
                nb.create("array.write", [v, buffers[v], t], {"spec": [["i", 0]]})
        nb.create("loop.yield", [])
        new_loops.append(Operation("loop.for", list(loop.operands[:3]), [], dict(loop.attrs),
                                   [Region(blk)], loop.loc))
    for new in new_loops:
        loop.parent.insert_before(loop, new)
    loop.erase(drop_uses=True)
