"""Cotangent slots read before they are written: a gradient-only cleanup of reverse steps.

The reverse step of ``y[:, j] += y[:, j - 1]`` emits, on the carried cotangent ``ct``:
``c = ct[:, j]``; ``ct1 = ct`` with column ``j`` zeroed; ``ct2 = ct1`` with ``ct1[:, j - 1] +
c`` in column ``j - 1``; ``ct3 = ct2`` with ``ct2[:, j] + c`` in column ``j``. Each read of a
newer array after an in-place write of the older one makes XLA copy the whole carried array
every step (a read it does not order before the update), quadratic work in plain jax too
(``benchmarks/grad_ratio.py``: 90 ms against 0.26 ms for n = 375). The same three
identities the forward recomputation uses (``analysis/forwarding.py``), applied to the gradient
program, leave ``ct2 = ct`` with ``ct[:, j - 1] + ct[:, j]`` in column ``j - 1``: every read
of ``ct`` comes before its one write.

Rewrites, to a fixpoint (slot relations as in ``analysis/forwarding.py``: same index values, or
provably different slots):

* read-after-write: ``update(x, v, I)[J]`` is ``v`` when ``J`` is ``I``, ``x[J]`` when ``J``
  misses ``I``;
* write-after-write: ``update(update(x, a, I) ... , b, I)``, the writes between missing
  ``I`` and the inner one used only there: the inner write is dropped;
* silent write: ``update(x, x'[I], I)`` where ``x`` holds at ``I`` what ``x'`` does (writes
  between missing ``I``) is ``x``; ``0 + v`` (a zero fill forwarded) is ``v``.

Why it is sound here and not in general: every checked index in a gradient program repeats
one the forward pass checked on the same value (rules emit accesses at the primal's
indices, which the primal's own checks raised on before any reverse step), so dropping a
write never drops the only check of an index. The rewrite is kept only when it lowers the
number of reads issued after a write of the same array that do not feed the write
(``late_reads``); otherwise the program is left as it was.
"""
from __future__ import annotations

from ..ir.core import Function, Operation
from ..ir.parser import parse_function
from ..ir.printer import print_function
from ..analysis.forwarding import _differ, _points, _same
from ..ir.rewrite import is_zeros
from .base import Pass
from .dce import dce


def _misses(u: Operation, read: Operation, owners) -> bool:
    """The slots ``read`` (a slice or update) touches miss those the update ``u`` writes."""
    us, rs = u.attrs["spec"], read.attrs["spec"]
    if len(us) != len(rs) or any(it[0] in ("n", "r") for it in us + rs):
        return False
    shape = u.results[0].type.shape
    return any(_differ(_points(p, u), _points(q, read), n, owners)
               for p, q, n in zip(us, rs, shape))


def _dyn(op):
    return list(op.operands[1:] if op.name == "tensor.slice" else op.operands[2:])


def _same_slots(u: Operation, other: Operation) -> bool:
    return _same(u, other.attrs["spec"], _dyn(other))


def _uses(fn: Function) -> dict:
    users: dict = {}
    for op in fn.walk():
        for v in op.operands:
            users.setdefault(v, []).append(op)
    return users


def _read_after_write(op, owners) -> bool:
    src = op.operands[0]
    moved = False
    while True:
        u = src.owner
        if not isinstance(u, Operation) or u.name != "tensor.update_slice":
            break
        if _same_slots(u, op) and not any(it[0] in ("n", "r") for it in op.attrs["spec"]):
            v = u.operands[1]
            if v.type == op.results[0].type:
                op.replace_with([v])
                return True
            break
        if not _misses(u, op, owners):
            break
        src = u.operands[0]
        moved = True
    if moved:
        op.operands[0] = src
    return moved


def _write_after_write(op, users, owners) -> bool:
    x = op.operands[0]
    while True:
        u = x.owner
        if not isinstance(u, Operation) or u.name != "tensor.update_slice" or \
                len(users.get(x, ())) != 1:
            return False
        if _same_slots(u, op):
            u.replace_with([u.operands[0]])
            return True
        if not _misses(u, op, owners):
            return False
        x = u.operands[0]


def _silent_write(op, owners) -> bool:
    v = op.operands[1]
    r = v.owner
    if not isinstance(r, Operation) or r.name != "tensor.slice" or not _same_slots(op, r):
        return False
    x = op.operands[0]
    while x is not r.operands[0]:
        u = x.owner
        if not isinstance(u, Operation) or u.name != "tensor.update_slice" or \
                not _misses(u, op, owners):
            return False
        x = u.operands[0]
    op.replace_with([op.operands[0]])
    return True


def _zero_add(op) -> bool:
    for z, v in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        if is_zeros(z) and v.type == op.results[0].type:
            op.replace_with([v])
            return True
    return False


def _rewrite(fn: Function) -> None:
    owners = {r.block: o for o in fn.walk() for r in o.regions}
    changed = True
    while changed:
        changed = False
        users = _uses(fn)
        for op in list(fn.walk()):
            if op.parent is None:
                continue
            if op.name == "tensor.slice":
                hit = _read_after_write(op, owners)
            elif op.name == "tensor.update_slice":
                hit = _write_after_write(op, users, owners) or _silent_write(op, owners)
            elif op.name == "tensor.add" and is_float_value(op):
                hit = _zero_add(op)
            else:
                continue
            if hit:
                changed = True
                users = _uses(fn)
        dce(fn)


def is_float_value(op) -> bool:
    return op.results[0].type.dtype[0] in "fc"


def late_reads(fn: Function) -> int:
    """Reads of an array by ops of the block where it is updated in place that the update's
    value does not depend on: each may make a backend copy the array."""
    users = _uses(fn)
    count = 0
    for u in fn.walk():
        if u.name != "tensor.update_slice":
            continue
        x, blk = u.operands[0], u.parent
        feeds, todo = set(), list(u.operands[1:])
        while todo:
            v = todo.pop()
            o = v.owner
            if isinstance(o, Operation) and o.parent is blk and o not in feeds:
                feeds.add(o)
                todo.extend(o.operands)
        count += sum(1 for o in users.get(x, ()) if o is not u and o.parent is blk
                     and o not in feeds)
    return count


def forward_slots(fn: Function) -> Function:
    """A fresh copy of ``fn`` (printed and parsed: the rewriting driver that runs next needs
    the ops' block links exact), with its cotangent slots read before written when that
    removes late reads."""
    g = parse_function(print_function(fn))
    before = late_reads(g)
    if before:
        h = parse_function(print_function(g))
        _rewrite(h)
        if late_reads(h) < before:
            return h
    return g


class ForwardSlots(Pass):
    """``forward_slots`` as a pass: the first of ``pipeline.GRADIENT_ORDER``."""
    name = "forward_slots"

    def run(self, fn: Function) -> Function:
        return forward_slots(fn)
