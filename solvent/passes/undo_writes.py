"""Undo writes (gradient programs): an array a loop body updates in a small window and also
needs unchanged afterwards is updated in place and the window written back afterwards,
instead of copied whole on every trip.

A reverse step restores the state its trip found (``state``), recomputes the trip from it
(which writes into it: cholesky's ``L[j, j] = d``), and carries ``state`` on to the step
before. ``r = update_slice(state, v, idx)`` can then not reuse ``state``'s buffer (a later
op reads ``state``), so every trip copied the whole array (cholesky 150x150: 180 KB per
reverse step, for one written element).

Identity: for a chain ``r_1 = update_slice(x, v_1, i_1)``, ``r_k = update_slice(r_{k-1},
v_k, i_k)`` (the same static spec and index values in each write and in its read)::

    x == update_slice(... update_slice(r_m, old_m, i_m) ..., old_1, i_1)
    where old_k = slice(r_{k-1}, i_k) read just before write k (r_0 = x)

so the uses of ``x`` after the chain's last use may read the restored value instead. Then
nothing reads ``x`` after the first write and nothing reads ``r_m`` after the restore: the
native bufferizer does both in place (``backends.native.bufferize``), costing twice the
written windows instead of the array.

Applied where the written windows hold fewer than half the array's elements, to arrays
owned by a loop body (its carried values and values it defines: an outer value is never
updated in place in a loop). It re-reads values it already holds, so it runs late in
``pipeline.GRADIENT_ORDER`` (gradient programs only), after the passes that would fold the
restore back into ``x``.
"""
from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import Block, Function, Operation, Value
from ..ir.rewrite import index_attrs
from .base import Pass


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class UndoWrites(Pass):
    name = "undo_writes"

    def run(self, fn: Function) -> Function:
        owners: dict = {}
        for o in fn.walk():
            for r in o.regions:
                owners[id(r.block)] = o
        self._owners = owners
        for o in list(fn.walk()):
            if o.name in ("loop.for", "loop.while"):
                for r in o.regions:
                    self._block(r.block)
        return fn

    def _ancestor_in(self, block: Block, op: Operation) -> Operation | None:
        while op is not None and op.parent is not block:
            if op.parent is None:
                return None
            op = self._owners.get(id(op.parent))
        return op

    def _positions(self, block: Block, v: Value) -> list[int]:
        pos = {id(o): i for i, o in enumerate(block.ops)}
        out = []
        for user, _ in v.live_uses():
            top = self._ancestor_in(block, user)
            if top is not None:
                out.append(pos[id(top)])
        return out

    def _block(self, block: Block) -> None:
        i = 0
        while i < len(block.ops):
            op = block.ops[i]
            if op.name == "tensor.update_slice" and self._rewrite(block, i, op):
                i = block.ops.index(op)
            i += 1

    def _rewrite(self, block: Block, p: int, u: Operation) -> bool:
        x = u.operands[0]
        if not (x.type.rank and x.type.static) or sum(o is x for o in u.operands) != 1:
            return False
        if not (x.owner is block or (isinstance(x.owner, Operation) and x.owner.parent is block)):
            return False
        later = [q for q in self._positions(block, x) if q > p]
        if not later:
            return False  # already written in place
        chain = [u]
        while True:  # r_k's only later use is the next write of the chain
            r = chain[-1].results[0]
            qs = self._positions(block, r)
            nxt = [o for o, k in r.live_uses() if o.parent is block and k == 0 and
                   o.name == "tensor.update_slice" and sum(a is r for a in o.operands) == 1]
            if len(nxt) != 1:
                break
            at = block.ops.index(nxt[0])
            if any(q > at for q in qs):
                break
            chain.append(nxt[0])
        r = chain[-1].results[0]
        uses_r = self._positions(block, r)
        last = max(uses_r, default=block.ops.index(chain[-1]))
        if block.ops[last] is block.terminator or min(later) <= last:
            return False  # x is read while the chain's value is live, or r is yielded
        written = sum(_size(c.operands[1].type.shape) for c in chain)
        if 2 * written >= _size(x.type.shape):
            return False
        last_op = block.ops[last]  # positions shift as the reads are inserted
        b = Builder(block)
        olds = []
        for c in chain:
            with b.before(c):
                b.loc = c.loc
                olds.append(b.create("tensor.slice", [c.operands[0]] + list(c.operands[2:]),
                                     index_attrs(c)).result)
        if any(old.type != c.operands[1].type for old, c in zip(olds, chain)):
            for old in olds:  # a value broadcast into its window: not undone this way
                old.owner.erase()
            return False
        with b.after(last_op):
            v = r
            for c, old in zip(reversed(chain), reversed(olds)):
                b.loc = c.loc
                v = b.create("tensor.update_slice", [v, old] + list(c.operands[2:]),
                             index_attrs(c)).result
        restore_at = block.ops.index(v.owner)
        for user, k in list(x.live_uses()):
            top = self._ancestor_in(block, user)
            if top is not None and block.ops.index(top) > restore_at:
                user.operands[k] = v
        return True
