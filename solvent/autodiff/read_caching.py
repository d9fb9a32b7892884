"""Cache the reads, not the state: a taped loop's trip records the slices of its carried
arrays that the reverse step reads, when that takes fewer bytes than undoing the writes.

A taped ``loop.for`` whose body changes a carried array only through ``update_slice``
records, per trip, the old contents of every slot it overwrites; the reverse loop carries
the array and undoes the writes trip by trip, so that each reverse step can recompute the
trip's intermediates from the array as the trip found it. When the reverse step reads that
array only at a few slices (LU without pivoting: the pivot, its row and its column, while
the trip overwrites the whole trailing block), recording those slices' values instead
leaves the rebuilt array without readers: ``drop_dead_carries`` removes it from the reverse
loop, and ``prune_tapes`` the slots' tape from the forward loop.

Identity relied on: the slice a reverse step recomputes from the rebuilt array equals the
slice the forward trip computed from the array itself (the undo restores exactly the trip's
array), so reading the recorded value changes no result.

``state_reads(g, t)`` names the slices a first build's reverse steps still read (those DCE
kept) among the top-level slices of a taped loop body whose source is a carried array or a
write into one; ``vjp_function`` builds again recording them, and keeps the build whose
tapes take fewer bytes (a read of the rebuilt array that is not a slice keeps the undo
alive, and the recorded slices would only add bytes).
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation
from .checkpoint import nbytes


def _state(body: Block) -> set:
    """The carried arrays of a loop body and the ``update_slice`` writes made into them."""
    out = {a for a in body.args[1:] if a.type.rank}
    for o in body.ops:
        if o.name == "tensor.update_slice" and o.operands[0] in out:
            out.add(o.results[0])
    return out


def state_reads(g: Function, t) -> frozenset:
    """Original ``tensor.slice`` ops of taped loop bodies, reading a carried array (or a
    write into one), whose copies in the reverse steps of ``g`` are still live."""
    live = set(g.walk())
    states: dict = {}
    out = set()
    for clone, orig in t.step_reads.items():
        if clone not in live or not isinstance(orig.parent, Block):
            continue
        loop = t.owners.get(orig.parent)
        if loop is None or loop not in t.taped_loops:
            continue
        body = loop.regions[0].block
        if body not in states:
            states[body] = _state(body)
        src = orig.operands[0]
        if src in states[body] and orig.results[0].type.static and \
                nbytes(orig.results[0].type) < nbytes(src.type):
            out.add(orig)
    return frozenset(out)


def tape_bytes(g: Function, t) -> int:
    """Bytes of the tape buffers of ``g``'s taped loops (the loops ``g`` still holds)."""
    live = set(g.walk())
    return sum(nbytes(r.type) for loop, nres in t.taped if loop in live
               for r in loop.results[nres:])
