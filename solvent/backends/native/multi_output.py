"""Multi-output fusion: elementwise ops and whole-array reductions over one shape, computed in
one loop nest that writes (or folds) several results.

Single-consumer fusion (``bufferize.Plan._fuse``) computes a value inside the loop of the one
op that reads it. A value read by two ops that end in two different results (a run-time
check's error code and the result it guards; an adjoint read by four sums and a gradient)
was written out in full and read back by each. Here such ops join a *group*: every member
iterates over the same static shape ``S`` and reads the other members it reads at its own
index (through elementwise steps of shape ``S``). The group runs as one loop over ``S``
where its last member stood; a member read only by members of its group (*internal*) is
computed inside that loop and never written; the others (*sinks*) are stored into their
buffers (elementwise) or folded: a ``reduce_*`` over all axes to a scalar, or over the
trailing axes (a row sum), in a register (per row), over other axes (a column sum) in its
result buffer, set to the identity before the loop. An op that reads a buffer or a fused
value the group reads at its own index, but no member, joins as a *sibling* (a gradient's
cotangent read by several sums and products: one pass over it). A reshape of a result is
lowered after the loop, as a scalar step is, instead of closing the group.

Identity: for elementwise ops ``y_j = f_j(...)`` over ``S`` and reductions ``r = fold(g)``,
computing at each index ``k`` of ``S`` in C order every member's element ``k`` (from the
elements ``k`` of the members it reads) and then storing or folding the sinks' elements
gives the same values as one loop per op in program order, provided every buffer the group
reads holds the same contents there as at the member's own place. So the group is closed
(takes no later member) before:

* an op outside it reading a member (directly, inside a region, or through a fused value
  other than an elementwise one, which is read only where its consumer reads it): that op
  needs the member computed already;
* an op that may write into a buffer the group reads (an in-place update, a loop, an
  elementwise op writing into its operand's buffer);
* a member reading a member at another index (a broadcast) or reading a reduction of the
  group (a scalar known only after the loop);
* a candidate writing into a buffer that an op deferred after the loop reads (``w = -v``
  into ``v``'s buffer after ``v.reshape(n, 1)`` was deferred: the reshape would read ``w``).

A sink writing into a buffer the group reads (``bufferize``: an elementwise op into its
dead operand's buffer) is a member only while the group reads that buffer at the loop's own
index: element ``k`` is stored after every read of element ``k`` (loads come before stores
in the loop body) and no later index reads it.
"""
from __future__ import annotations

import math

from llvmlite import ir

from ...ir.core import Block, Operation

REDUCTIONS = frozenset(f"tensor.reduce_{k}" for k in
                       ("sum", "prod", "max", "min", "any", "all"))


class Group:
    """Members of one fused loop over ``shape``, in program order; ``sinks`` are those whose
    results leave the loop (written or folded), the rest are computed inside it only."""
    __slots__ = ("shape", "members", "sinks", "reads", "writes", "deferred", "late_reads")

    def __init__(self, shape):
        self.shape = shape
        self.members: list[Operation] = []
        self.sinks: list[Operation] = []
        # scalar ops reading the group's results, lowered right after its loop
        self.deferred: list[Operation] = []
        # buffer id (or ("fused", id of a value computed where it is read)) -> read only
        # at the loop's own index
        self.reads: dict = {}
        self.writes: set[int] = set()      # operand buffers its sinks write into
        # buffers the deferred ops read after the loop (members' results among them): a
        # candidate writing into one of them may not join (its store would come first)
        self.late_reads: set = set()

    @property
    def last(self) -> Operation:
        return self.sinks[-1]

    def __repr__(self):
        return f"<Group {self.shape} {[m.name for m in self.members]}>"


def _is_array(v) -> bool:
    return len(v.type.shape) > 0


def _shape(op: Operation):
    """The shape a candidate member iterates over, or None for an op that is no candidate:
    an elementwise op or a reduction of all axes to a scalar, of static shape."""
    from .rules_elementwise import ELEMENTWISE
    if len(op.results) != 1 or op.regions:
        return None
    r = op.results[0]
    if op.name == "tensor.pow" and r.type.dtype[0] != "f":
        return None   # a loop over the exponent's bits per element: it keeps LLVM from
        # vectorizing any loop it is in, so it gets its own
    from .bufferize import SUM_OF_PRODUCTS, sum_of_products
    if op.name in ELEMENTWISE:
        if sum_of_products(op) >= SUM_OF_PRODUCTS:
            return None   # summed in place by gemm (bufferize.SUM_OF_PRODUCTS)
        t = r.type
    elif op.name in REDUCTIONS and op.operands[0].type.rank > 0 and r.type.static:
        t = op.operands[0].type
    else:
        return None
    return t.shape if t.rank > 0 and t.static else None


def find_groups(plan, block: Block) -> None:
    """Form the groups of ``block`` (after single-consumer fusion): internal members go into
    ``plan.fused``, each sink maps to its group in ``plan.groups``."""
    from .rules_elementwise import ELEMENTWISE
    fused = plan.fused
    group_of: dict[Operation, Group] = {}    # every candidate seen -> its group
    deferred_of: dict[Operation, Group] = {}  # a scalar op -> the group it waits for
    open_groups: list[Group] = []
    memo: dict = {}

    def reads(op: Operation, within=None):
        """(members read: op -> at the reader's own index, buffers read: id -> at the
        reader's own index) of ``op``'s operands, looking through fused values; ``within``:
        the shape ``op`` iterates over (None: no read counts as aligned)."""
        members: dict = {}
        bufs: dict = {}
        for inner in op.walk():
            for o in inner.operands:
                al = within is not None and inner is op and o.type.shape == within
                _value(o, al, members, bufs)
        return members, bufs

    def _value(v, aligned, members, bufs):
        o = v.owner
        if isinstance(o, Operation) and (o in group_of or o in deferred_of):
            members[o] = members.get(o, True) and aligned
            return
        if isinstance(o, Operation) and o in fused:
            if o not in memo:
                m2, b2 = {}, {}
                el = o.name in ELEMENTWISE
                shape = o.results[0].type.shape
                for x in o.operands:
                    _value(x, el and x.type.shape == shape, m2, b2)
                memo[o] = (m2, b2)
            m2, b2 = memo[o]
            # the fused value itself, as a key of its own: two readers of one computed
            # value may share a loop as siblings (it is computed once per index there)
            bufs[("fused", id(o))] = bufs.get(("fused", id(o)), True) and aligned
            for k, a in m2.items():
                members[k] = members.get(k, True) and a and aligned
            for k, a in b2.items():
                bufs[k] = bufs.get(k, True) and a and aligned
            return
        if _is_array(v) and v in plan.of:
            k = id(plan.of[v])
            bufs[k] = bufs.get(k, True) and aligned

    def close(g):
        if g in open_groups:
            open_groups.remove(g)

    for op in block.ops:
        if op in fused and op.name in ELEMENTWISE:
            continue   # read where its consumer reads it: the consumer decides
        shape = _shape(op) if op not in fused and op not in plan.unfilled else None
        if shape is not None and op.name in REDUCTIONS:
            members, bufs = reads(op, op.operands[0].type.shape)
        else:
            members, bufs = reads(op, shape)
        touched = {}
        for m, aligned in members.items():
            g = group_of[m] if m in group_of else deferred_of[m]
            if g in open_groups:
                ok = aligned and m.name not in REDUCTIONS and m in group_of and \
                    g.shape == shape
                touched[g] = touched.get(g, True) and ok
        if len(touched) > 1 and _scalar_step(op):
            # a scalar of several open groups' results (an error code combining a row
            # check's and a column check's): the others are closed here (their loops stand
            # where their last sinks are, before this op) and it waits for the largest,
            # which stays open for the ops after it
            keep = max(touched, key=lambda g: (math.prod(g.shape), open_groups.index(g)))
            for g in list(touched):
                if g is not keep:
                    close(g)
                    del touched[g]
        if len(touched) == 1 and (_scalar_step(op) or _view_copy(op) or _finished_step(
                plan, op, next(iter(touched)), group_of, deferred_of)):
            # a scalar computed from the group's results (a sum's conversion), a reshape
            # of one (a row sum's (n, 1) view), or elementwise work on finished results
            # only (``s + 0.0`` on a row sum): lowered after the group's loop instead of
            # closing the group here
            g = next(iter(touched))
            g.deferred.append(op)
            deferred_of[op] = g
            g.late_reads |= {k for k in bufs if not isinstance(k, tuple)}
            g.late_reads |= {id(plan.of[m.results[0]]) for m in members
                             if m.results[0] in plan.of}
            continue
        # the buffer this op writes that existed before it (an operand's, reused)
        wrote = id(plan.of[op.results[0]]) if shape is not None and (
            op in plan.reused or op in plan.into_slot) else None
        for g in list(open_groups):
            if touched.get(g) is False:
                close(g)
            elif wrote is not None and wrote in g.reads and not (
                    g in touched and g.reads[wrote]):
                close(g)
            elif wrote is not None and wrote in g.late_reads:
                # ``v = x * 2; a = v.reshape(2, 1); w = -v`` with w into v's buffer: the
                # reshape, deferred after the loop, would read w
                close(g)
            elif shape is None and plan._writes(op) and plan._writes_into(op, set(g.reads)):
                close(g)
        if shape is None:
            for g in touched:
                close(g)
            continue
        joined = [g for g in touched if g in open_groups]
        if not touched:
            sib = _sibling(open_groups, shape, bufs)
            if sib is not None:
                joined = [sib]
        new = Group(shape)
        for g in joined:
            new.members += g.members
            for k, a in g.reads.items():
                new.reads[k] = new.reads.get(k, True) and a
            new.writes |= g.writes
            new.deferred += g.deferred
            new.late_reads |= g.late_reads
            close(g)
        new.members.append(op)
        new.members.sort(key=block.ops.index)
        for k, a in bufs.items():
            new.reads[k] = new.reads.get(k, True) and a
        if wrote is not None:
            new.writes.add(wrote)
        for m in new.members:
            group_of[m] = new
        for d in new.deferred:
            deferred_of[d] = new
        open_groups.append(new)
    seen = set()
    for g in group_of.values():
        if id(g) in seen:
            continue
        seen.add(id(g))
        if len(g.members) > 1:
            _settle(plan, block, g, group_of)
        else:   # no group: its scalar readers stay where they are
            g.deferred.clear()


def _sibling(open_groups: list, shape, bufs: dict):
    """The open group over ``shape`` that reads, at its own index, a buffer (or a fused
    value) the candidate reads at its own index (the last such group), or None. The candidate reads no member
    (else it joins through them), so it joins as a sibling: the buffer is read once for both
    (a gradient's cotangent read by several sums and products, one pass instead of one per
    reader). The closing rules above have kept only groups it may join: its loop moves the
    members down to the candidate's place, as any join does."""
    for g in reversed(open_groups):
        if g.shape == shape and any(a and g.reads.get(k) for k, a in bufs.items()):
            return g
    return None


def _view_copy(op: Operation) -> bool:
    """A reshape: it writes only its own result buffer from its operand's, so it may run
    later unchanged (a reader of it that is not deferred closes the group first)."""
    return op.name == "tensor.reshape" and not op.regions and op.results[0].type.static


def _finished_step(plan, op: Operation, g: Group, group_of: dict, deferred_of: dict) -> bool:
    """An elementwise op or a reduction over another shape than ``g``'s whose arrays are
    all results of ``g``'s members or of ops deferred to it (directly or through fused
    elementwise values): after the loop they are finished and nothing between can change
    them (a reader of a member closes the group first), so the op may run there unchanged,
    as a scalar step does (a column sum's ``+ 0.0``, ``sqrt`` and its domain check's
    ``reduce_any``). It must not write into a buffer that existed before it unless that
    buffer is one of its operands' (a result of the group, which the loop no longer reads
    once it is past)."""
    from .rules_elementwise import ELEMENTWISE
    if op.regions or len(op.results) != 1:
        return False
    if op.name in ELEMENTWISE:
        over = op.results[0].type.shape
    elif op.name in REDUCTIONS:
        over = op.operands[0].type.shape
    else:
        return False
    if over == g.shape:
        return False

    def finished(v, depth=0) -> bool:
        w = v.owner
        if not isinstance(w, Operation) or depth > 32:
            return False
        if group_of.get(w) is g or deferred_of.get(w) is g:
            return True
        return w in plan.fused and w.name in ELEMENTWISE and all(
            finished(o, depth + 1) for o in w.operands if _is_array(o)) and any(
            _is_array(o) for o in w.operands)

    arrays = [o for o in op.operands if _is_array(o)]
    if not arrays or not all(finished(o) for o in arrays):
        return False
    if op in plan.reused or op in plan.into_slot:
        buf = plan.of.get(op.results[0])
        if not any(plan.of.get(o) is buf for o in arrays):
            return False
    return True


def _scalar_step(op: Operation) -> bool:
    """A scalar elementwise op: it reads registers only, so it may run later unchanged."""
    from .rules_elementwise import ELEMENTWISE
    return op.name in ELEMENTWISE and not op.regions and len(op.results) == 1 and \
        op.results[0].type.rank == 0


def _settle(plan, block: Block, g: Group, group_of: dict) -> None:
    """Split ``g``'s members into internal ones (fused) and sinks."""
    from .rules_elementwise import ELEMENTWISE
    mine = set(g.members)
    users: dict = {}   # value -> ops of the block using it (inside their regions too)
    for u in block.ops:
        for inner in u.walk():
            for o in inner.operands:
                users.setdefault(o, []).append(u)

    def inside(v, depth=0) -> bool:
        """Whether every reader of ``v`` is a member, or a fused elementwise value all of
        whose readers are (recursively)."""
        us = users.get(v, [])
        if not us or depth > 64:
            return False
        for u in us:
            if u in mine:
                continue
            if u in plan.fused and u.name in ELEMENTWISE and u not in group_of and \
                    inside(u.results[0], depth + 1):
                continue
            return False
        return True
    for m in g.members:
        if m.name not in REDUCTIONS and inside(m.results[0]):
            plan.fused.add(m)
            plan.reused.discard(m)
        else:
            g.sinks.append(m)
    at = block.ops.index
    # those after the loop's place are lowered at their own places as usual
    g.deferred = sorted((d for d in g.deferred if at(d) < at(g.last)), key=at)
    for s in g.sinks + g.deferred:
        plan.groups[s] = g


def emit_group(ctx, g: Group) -> None:
    """Lower group ``g`` where its last sink stands: one loop nest over ``g.shape``."""
    from .context import Lazy
    from .rules_elementwise import RULES as EW, operand_at
    from .rules_reduce import combiner, identity
    b = ctx.b
    shape = g.shape

    def sink_lazy(op):
        scalar = EW[op.name].scalar
        return Lazy(lambda idx: scalar(ctx, op, [operand_at(ctx, o, idx, shape)
                                                 for o in op.operands]),
                    shape, op.results[0].type.dtype)

    for m in g.sinks:
        if m.name not in REDUCTIONS:
            ctx.env[m.results[0]] = sink_lazy(m)
    outs, accs = {}, {}
    rows: dict = {}     # lead -> the sinks folding axes lead.. in a register per element
    for s in g.sinks:
        if s.name in REDUCTIONS:
            dt = s.operands[0].type.dtype
            kind = s.name[len("tensor.reduce_"):]
            acc = ctx.slot(dt)
            lead = _trailing(s)
            if lead is None:   # other axes: the result buffer is the accumulator
                outs[s] = ctx.out(s)
                ctx.loop_nest(outs[s].shape, lambda o, s=s, kind=kind, dt=dt: ctx.store(
                    outs[s], o, identity(kind, dt)))
            elif lead == 0:
                b.store(identity(kind, dt), acc)
            else:
                outs[s] = ctx.out(s)
                rows.setdefault(lead, []).append(s)
            accs[s] = (acc, combiner(kind), dt, kind, lead)
        else:
            outs[s] = ctx.out(s)

    def body(idx):
        vals = [ctx.element(ctx.get(s.operands[0] if s in accs else s.results[0]), idx)
                for s in g.sinks]
        for s, v in zip(g.sinks, vals):
            if s in accs:
                acc, combine, dt, _, lead = accs[s]
                if lead is None:
                    o = _result_index(s, idx)
                    ctx.store(outs[s], o, combine(ctx, dt, ctx.load(outs[s], o), v))
                else:
                    b.store(combine(ctx, dt, b.load(acc), v), acc)
            else:
                ctx.store(outs[s], idx, v)

    def level(d, idx):
        """The loops over dims d.. of ``shape`` (ctx.loop_nest's, with the register
        accumulators of reductions over dims d.. set before them and stored after)."""
        if d == len(shape):
            body(idx)
            return
        for s in rows.get(d, ()):
            acc, _, dt, kind, _ = accs[s]
            b.store(identity(kind, dt), acc)
        ctx.counted_loop(shape[d], lambda i: level(d + 1, idx + [i]))
        for s in rows.get(d, ()):
            ctx.store(outs[s], _result_index(s, idx + [0] * (len(shape) - d)),
                      b.load(accs[s][0]))
    where = f" at {g.last.loc}" if g.last.loc is not None else ""
    ctx.notes.append(
        f"one loop over {list(shape)} computes {len(g.sinks)} results ("
        + ", ".join(s.name[len('tensor.'):] for s in g.sinks) + f") and "
        f"{len(g.members) - len(g.sinks)} values read only inside it{where}")
    outer, ctx.current = ctx.current, g.last
    # a value read by several members (or by several steps of a fused chain) is computed
    # once per index: the body is straight-line code, so the first computation dominates
    # every later read in it
    ctx.element_memo = {}
    if not any(n == 0 for n in shape):
        level(0, [])
    else:   # no element folded: a row reduction's result is its identity throughout
        for lead in rows:
            for s in rows[lead]:
                _, _, dt, kind, _ = accs[s]
                ctx.loop_nest(outs[s].shape, lambda o, s=s, kind=kind, dt=dt: ctx.store(
                    outs[s], o, identity(kind, dt)))
    ctx.current, ctx.element_memo = outer, None
    for s in g.sinks:
        ctx.env[s.results[0]] = _opaque(ctx, b.load(accs[s][0])) if s not in outs \
            else outs[s]
    for op in g.deferred:
        ctx.lower_op(op)


def _trailing(op: Operation):
    """The first reduced dim of a reduction over the trailing dims ``lead..`` (0: all of
    them, to a scalar), or None for other axes."""
    rank = op.operands[0].type.rank
    axes = sorted(op.attrs["axes"])
    lead = rank - len(axes)
    if axes != list(range(lead, rank)):
        return None
    if lead == 0 and op.results[0].type.rank:
        return None   # all dims, keepdims: a (1, ..., 1) buffer, folded in place
    return lead


def _result_index(op: Operation, idx):
    """The result element of reduction ``op`` that element ``idx`` of its operand folds
    into."""
    axes = set(op.attrs["axes"])
    if op.attrs["keepdims"]:
        return [0 if a in axes else i for a, i in enumerate(idx)]
    return [i for a, i in enumerate(idx) if a not in axes]


def _opaque(ctx, v):
    """``v`` through an empty inline assembly statement: the code after the loop cannot look
    back into the fold. Without it LLVM rewrote ``smin(acc, k) < 0`` after the loop as
    ``acc < 0`` on the previous step's accumulator (``k`` is known non-negative), a use of
    the running value outside the loop that keeps the loop vectorizer off the whole loop
    (arc_distance_loops: the error index's fold beside sin, cos and atan2)."""
    b = ctx.b
    t = v.type
    i64 = ir.IntType(64)
    if isinstance(t, ir.IntType) and t.width <= 64:
        x = v if t.width == 64 else b.zext(v, i64)
        back = (lambda y: y) if t.width == 64 else (lambda y: b.trunc(y, t))
    elif isinstance(t, ir.DoubleType):
        x, back = b.bitcast(v, i64), (lambda y: b.bitcast(y, t))
    elif isinstance(t, ir.FloatType):
        x = b.zext(b.bitcast(v, ir.IntType(32)), i64)
        back = (lambda y: b.bitcast(b.trunc(y, ir.IntType(32)), t))
    else:
        return v
    asm = ir.InlineAsm(ir.FunctionType(i64, [i64]), "", "=r,0")
    return back(b.call(asm, [x]))
