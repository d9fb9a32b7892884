"""The parallel structure of a CUDA-style kernel (solvent/simt) in the IR.

A lowered kernel's loops say what they run over with the attribute ``simt`` on their
``loop.for``: ``"blocks"`` for the loop over the grid's blocks (one per grid dimension when
the grid has several), ``"threads"`` for a loop over the threads of one block.

``simt.barrier`` is ``cuda.syncthreads()``: every thread of the block finishes the code before
it before any thread runs the code after it. Its memory effects are the union of the code
around it (it reads and writes every array), so no pass moves an access across it or drops
it (``pure=False``); it stands only inside a loop over threads (``placement``), and no backend
runs it: barrier lowering (passes/lower_barriers.py, loop fission at the barrier, first in the
pipeline) removes it, and the interpreter refuses one it meets instead of running the
threads in order past it.

Which implementation runs when: a kernel launched through ``solvent.kernel`` is translated
as one nest of thread loops per block with its barriers in it (simt/nest.py), and
passes/lower_barriers.py lowers them (fission; a ``for``/``while``/``if`` around a barrier
interchanged with the thread nest; values kept per thread; a ``return`` ends the thread:
later runs run in the threads that did not return). The coalesced forms of
simt/coalesce.py can take that path too (``launch.lower(coalesced_on_ir=True)``: a
coalesced loop runs inside the loops over y and z, with the threads along x inside it), but
by default keep the AST lowering, which ran faster (matmul_tiled; backprop_layer, whose
``return`` the IR path takes, ran slower there too). Kernels that path does not take yet (a
``return`` inside a loop, a ``while`` whose condition may differ between threads) keep the
lowering on the Python AST (simt/fission.py), whose IR holds no barrier; ``explain`` says
which ran. Barrier elimination is still done on the AST (simt/barriers.py) for both.
"""
from __future__ import annotations

from ..ir.registry import IRError, OpDef, expect, register

ROLE = "simt"            # the loop.for attribute
BLOCKS = "blocks"
THREADS = "threads"
# on a loop.for inside a thread nest whose body ends with a barrier simt/coalesce.py added:
# lower_barriers runs it inside the loops over threads along y and z, with only the threads
# along x inside it (``for ty: for k: for tx``)
COALESCED = "coalesced"
# on the loop.if a kernel's translator makes around the statements after a possible
# break/continue (frontend/statements.py): simt/nest.py writes a kernel's ``return`` as a
# ``continue`` of the loop over threads, and lower_barriers runs what such an if holds in
# the threads that did not return (a GPU's exited threads take no part in later barriers)
JUMP_GUARD = "after_jump"


def _barrier_infer(types, attrs):
    expect(not types, "simt.barrier takes no operands")
    expect(isinstance(attrs.get("line", 0), int), "simt.barrier's line is an int")
    return []


def _inside_threads(parents) -> str | None:
    for op in parents:
        if op.name == "loop.for" and op.attrs.get(ROLE) == THREADS:
            return None
    return "a barrier stands only inside a loop over a block's threads (simt = \"threads\")"


def _barrier_interp(op, args, ctx):
    raise IRError(f"simt.barrier (line {op.attrs.get('line', '?')}) reached the interpreter: "
                  "barriers are lowered by fission before a backend runs the kernel")


register(OpDef(
    name="simt.barrier",
    doc="cuda.syncthreads(): the block's threads all finish the code before it before any "
        "runs the code after it; reads and writes every array",
    infer=_barrier_infer, level="array", pure=False, placement=_inside_threads,
), interp=_barrier_interp)
