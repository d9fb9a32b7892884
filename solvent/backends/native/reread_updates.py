"""Values read back from the array they were just written into, for native code: the
inverse of ``passes/patterns/read_after_update.py``, applied before bufferization.

The tensor passes forward ``update_slice(x, v, S)[S]`` to ``v`` (and a read inside ``S``
to a slice of ``v``): right for XLA, which fuses either way, and what lets dce drop a
scratch array nothing else reads. Natively it costs a buffer and a pass: ``v`` then has two
readers, the update and the later read, so it is written out into its own buffer and
copied into ``x``'s, where with one reader it is computed straight into ``x``'s slots
(jacobi_1d_loops, 3.5 -> 5.3 ms per call; fdtd_2d_loops 7 -> 19 ms). Here every reader of
``v`` after the update reads ``v``'s elements from the updated array instead.

Identities, with ``y = update_slice(x, v, S)``:

* ``v -> y[S]`` (same spec, same index values, same clamping: the slots the update wrote);
* ``v[T] -> y[S + T]`` for a static ``S`` whose slices have step 1 and a static ``T`` of
  positive steps (``S + T``: ``T``'s positions shifted by ``S``'s starts; the axes ``S``
  indexes by a constant kept as those constants).

Only where ``v`` is an elementwise op's result in the update's block and every other reader
of ``v`` comes after the update in that block, with only pure ops between (a barrier of a
kernel's thread nest lets other threads write the array): then ``v`` is left with the
update as its only reader."""
from __future__ import annotations

from ...ir.core import Function, Operation
from ...ir.registry import get
from ...ir.rewrite import Pattern, apply_patterns, index_attrs, pure_between
from ...passes.patterns._samples import unary_chain
from ...passes.patterns.read_after_update import disjoint, positions, static_spec


def _shifted(s_spec, t_spec):
    """The spec of ``y`` that reads ``v[T]`` (``v`` written at ``S``), else None."""
    out, t = [], list(t_spec)
    for s in s_spec:
        if s[0] == "c":
            out.append(["c", s[1]])
            continue
        if s[0] != "s" or s[3] != 1 or not t:
            return None
        it = t.pop(0)
        if it[0] == "c":
            out.append(["c", s[1] + it[1]])
        elif it[0] == "s" and it[3] > 0:
            out.append(["s", s[1] + it[1], s[1] + it[2], it[3]])
        else:
            return None
    return None if t else out


def _reread(op: Operation, rw) -> bool:
    y, v = op.result, op.operands[1]
    f = v.owner
    if not isinstance(f, Operation) or f.parent is not op.parent or not v.type.rank or \
            not get(f.name).elementwise or f.regions or v.type.dtype != y.type.dtype:
        return False
    where = {id(o): k for k, o in enumerate(op.parent.ops)}
    users = [u for u, _ in v.live_uses() if u is not op]
    if not users or any(where.get(id(u), -1) < where[id(op)] for u in users):
        return False   # (a reader before the update, or in another block)
    last = max(where[id(u)] for u in users)
    if not pure_between(op.parent.ops, where[id(op)], last):
        return False   # (a kernel's barrier: other threads may write the array meanwhile)
    plans = []
    for u in users:
        if u.name == "tensor.slice" and u.operands[0] is v and len(u.operands) == 1 and \
                len(op.operands) == 2 and static_spec(op.attrs["spec"]) and \
                static_spec(u.attrs["spec"]) and not u.attrs.get("unchecked") and \
                not any(o is v for o in u.operands[1:]):
            spec = _shifted(op.attrs["spec"], u.attrs["spec"])
            if spec is None:
                return False
            plans.append((u, spec))
        else:
            plans.append((u, None))
    for u, spec in plans:
        rw.at(u)
        if spec is not None:
            rw.replace_op(u, [rw.one("tensor.slice", y, spec=spec)])
        else:
            back = rw.one("tensor.slice", y, *op.operands[2:], **index_attrs(op))
            for i, o in enumerate(u.operands):
                if o is v:
                    u.operands[i] = back
            rw.changed.append(u)
    return True


def _read_beside(op: Operation, rw) -> bool:
    """x[T] -> update_slice(x, v, S)[T] for the one update of ``x`` before the read in its
    block, with only pure ops between, static ``S`` and ``T`` disjoint on some axis."""
    x = op.operands[0]
    if len(op.operands) != 1 or not static_spec(op.attrs["spec"]) or not x.type.rank:
        return False
    block = op.parent
    where = {id(o): k for k, o in enumerate(block.ops)}
    ups = [u for u, i in x.live_uses() if u.name == "tensor.update_slice" and i == 0
           and u.parent is block and where.get(id(u), len(block.ops)) < where[id(op)]]
    if len(ups) != 1:
        return False
    up = ups[0]
    if len(up.operands) != 2 or not static_spec(up.attrs["spec"]) or not any(
            disjoint(positions(a), positions(b))
            for a, b in zip(op.attrs["spec"], up.attrs["spec"])) or \
            not pure_between(block.ops, where[id(up)], where[id(op)]):
        return False
    op.operands[0] = up.result
    rw.changed.append(op)
    return True


def _sum_both(b, p, q):
    """sum(p) + sum(q) of two 2-D values: one result that reads both."""
    return b.one("tensor.add", *(b.one("tensor.reduce_sum", v, axes=[0, 1], keepdims=False)
                                 for v in (p, q)))


def _written_then_read(b, x):
    """y = x with rows 1: replaced by exp of themselves; then exp(rows)[::2, 1:] (a read
    of v inside S) and exp(rows) itself (v read whole) both read after the update."""
    n, m = x.type.shape
    rows = [["s", min(1, n), n, 1], ["s", 0, m, 1]]
    v = b.one("tensor.exp", b.one("tensor.slice", x, spec=rows))
    y = b.create("tensor.update_slice", [x, v], {"spec": rows}).result
    k = v.type.shape[0]
    part = b.one("tensor.slice", v, spec=[["s", 0, k, 2], ["s", min(1, m), m, 1]])
    return _sum_both(b, part, b.one("tensor.add", v, b.one("tensor.slice", y, spec=rows)))


def _row_then_rest(b, x):
    """y = x with row 0 set to 2; then x's rows 1: read (ey[0, :] = c; ey[1:, :] -= ...)."""
    n, m = x.type.shape
    k = min(1, n)
    two = b.one("tensor.broadcast_to", b.constant(2.0, "f64"), shape=[k, m])
    y = b.create("tensor.update_slice", [x, two], {"spec": [["s", 0, k, 1], ["s", 0, m, 1]]}
                 ).result
    rest = b.one("tensor.slice", x, spec=[["s", k, n, 1], ["s", 0, m, 1]])
    return _sum_both(b, rest, y)


REREAD_UPDATES = [
    Pattern("reread-from-update", "tensor.update_slice", _reread,
            "v -> update_slice(x, v, S)[S] and v[T] -> update_slice(x, v, S)[S + T] for the "
            "readers of an elementwise v after the update (static S of step-1 slices, T of "
            "positive steps, for the second)",
            sample=unary_chain(_written_then_read, "f64", rank=2)),
    Pattern("read-beside-update", "tensor.slice", _read_beside,
            "x[T] -> update_slice(x, v, S)[T] for a read after the update with T and S "
            "static and disjoint on some axis (the slots T picks are x's in both)",
            sample=unary_chain(_row_then_rest, "f64", rank=2)),
]


def reread_updates(fn: Function) -> int:
    """Apply ``REREAD_UPDATES`` to ``fn``; returns the rewrite count."""
    return apply_patterns(fn, REREAD_UPDATES)
