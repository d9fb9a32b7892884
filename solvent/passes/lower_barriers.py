"""Barrier lowering on the IR (Polygeist's fission and interchange, seed 003). A nest of loops
over a block's threads (``loop.for`` with ``simt = "threads"``, one per thread dimension)
whose body holds ``simt.barrier`` ops becomes block-level code without barriers:

- fission: the body is split at each barrier into one thread nest per barrier-free run,

      nest %t { R0; simt.barrier; R1 }  ->  nest %t { R0; write v -> S[t] }
                                            nest %t { v = read S[t]; R1 }

- interchange: a ``loop.for``, ``loop.while`` or ``loop.if`` of the body that holds barriers
  runs once for the block instead of once per thread, with the thread nest moved inside it
  (its body is then lowered the same way, recursively):

      nest %t { R0; loop.for %k = a to b { B }; R1 }
        ->  nest %t { R0 };  loop.for %k = a' to b' { nest %t { B } };  nest %t { R1 }

  Its bounds or condition (``a'``, ``b'``) are computed once for the block: they must be the
  same in every thread. One computed from the thread index alone is refused at compile time
  (``DivergentBarrierError``); one that reads memory or values carried per thread is kept
  per thread and checked at run time: all threads must agree (``DivergentBarrierError``
  otherwise), else the threads would not all reach the same barrier. A while's condition
  must be computed from values the same in every thread (else refused).

Values a run defines and a later run (or interchanged statement) reads are kept per thread:
thread_nests.py's buffers of one element per thread (zeros), written at the end of the run
that defines them and read at the start of the runs that use them; a value computed from the
thread indices, constants and values defined outside the nest alone (``tx = t % 16``,
``n = A.shape[0]``) is recomputed where it is used instead. The values a loop carries and an
``if`` yields, when it holds barriers, live in such buffers too (register to memory): read
at the start of the body, written before its end; but a value a loop carries that is the
same in every thread (initial value and update computed without memory or a thread index:
a reduction tree's ``s //= 2``) stays carried by the loop, at block level. A run that is
``if t < u: body`` (``u`` the same in every thread) or ``if t == c`` loops over those threads
alone. A ``cuda.local.array`` is per-thread memory already (simt/nest.py allocates it per
block with one row per thread).

Identity: every thread runs its statements in order; all threads finish a run before any
starts the next, which is what the barrier between the runs guarantees; a loop or if whose
bounds or condition are the same in every thread runs the same trips in each.

What it refuses (``IRError`` naming the barrier's line; solvent.kernel then lowers the kernel
on its AST, simt/fission.py): a thread loop that is not ``range(n)`` for a constant ``n`` or
that carries values, a barrier inside a region op other than those three, a while whose
condition is not the same in every thread, a value other than a scalar kept across a barrier
(an array allocated per thread inside the nest).
"""
from __future__ import annotations

from ..ir.core import Function, Operation
from ..ir.registry import IRError
from ..ops.simt import ROLE, THREADS
from .base import Pass
from .thread_nests import BARRIER, Nest, lower_nest


class LowerBarriers(Pass):
    name = "lower_barriers"
    tensor_only = False   # runs on the array level, before functionalize

    def run(self, fn: Function) -> Function:
        self.idle = not any(op.name == BARRIER for op in fn.walk())
        if self.idle:
            return fn
        while True:
            outer = _next_nest(fn)
            if outer is None:
                break
            lower_nest(Nest.of(outer))
        left = next((op for op in fn.walk() if op.name == BARRIER), None)
        if left is not None:
            raise IRError(f"barrier at line {left.attrs.get('line', '?')}: not inside a loop "
                          "over a block's threads")
        return fn


def _next_nest(fn: Function) -> Operation | None:
    """The first outermost thread loop that holds a barrier."""
    def visit(block):
        for op in block.ops:
            if op.name == "loop.for" and op.attrs.get(ROLE) == THREADS:
                if any(o.name == BARRIER for o in op.walk()):
                    return op
                continue
            for r in op.regions:
                hit = visit(r.block)
                if hit is not None:
                    return hit
        return None
    return visit(fn.body)
