"""Register to memory for barrier lowering (passes/lower_barriers.py states what it does
and its identity): the values a ``loop.for``/``loop.while``/``loop.if`` holding barriers
carries or yields live in per-thread buffers (thread_nests.Nest.buffer) while it is
interchanged with the thread nest, but those the same in every thread, which stay carried
at block level. A value an enclosing loop carries, read from its buffer right before an
inner loop that carries it on (a tiled matmul's ``acc`` over tiles and over ``k``), stays in
that one buffer: no copy in before the inner loop, none out after it."""
from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import Block, Operation, Region, Value
from ..ir.registry import IRError
from ..ir.types import TensorType
from .thread_nests import Nest, _chain, _constant, _line


def demote(op: Operation, nest: Nest, top: bool, inside: set) -> None:
    """Register to memory: the values ``op`` (a loop.for, loop.while or loop.if holding
    barriers) carries or yields live in per-thread buffers, but those the same in every
    thread (``uniform``), which it keeps carrying at block level; ``op`` is replaced by one
    without the others. ``top``: ``op`` runs once per run of the nest (a constant initial
    value is then the buffer's fill). ``inside``: the ops of the thread-level code."""
    if op.name == "loop.if":
        return _demote_if(op, nest)
    parent = op.parent
    b = Builder(parent)
    b.loc = op.loc
    n_lead = 3 if op.name == "loop.for" else 0
    inits = list(op.operands[n_lead:])
    body = op.regions[-1].block
    keep = uniform(op, nest, inside)
    for i, v in enumerate(inits):
        if not (isinstance(v.type, TensorType) and v.type.rank == 0) and i not in keep:
            raise IRError(f"barrier at line {_line(op)}: the loop around it carries an array")
    bufs, shared = {}, set()
    carried_bufs = (nest.root or nest).carried
    for i, v in enumerate(inits):
        if i in keep:
            continue
        same = _read_back(v, op, nest)
        if same is not None:
            # the value an enclosing loop carries, as read from its buffer: this loop
            # carries it in the same buffer (no copy in, none out)
            bufs[i] = same
            shared.add(i)
            continue
        c = _constant(v) if top else None
        bufs[i] = nest.buffer(v.type.dtype, c)
        carried_bufs.add(id(bufs[i]))
        if c is None:
            with b.before(op):
                nest.write(b, v, bufs[i])
    regions = []
    for reg in op.regions:
        old = reg.block
        new_blk = Block()
        lead = old.args[:1] if op.name == "loop.for" else []
        for a in lead:
            a.replace_all_uses_with(new_blk.add_arg(a.type, a.hint))
        carried = old.args[len(lead):]
        for i in sorted(keep):
            a = carried[i]
            a.replace_all_uses_with(new_blk.add_arg(a.type, a.hint))
        bb = Builder(old)
        bb.loc = op.loc
        with bb.at_start(old):
            for i, buf in bufs.items():
                carried[i].replace_all_uses_with(nest.read(bb, buf))
        term = old.ops[-1]
        if term.name == "loop.yield":
            for i, buf in bufs.items():
                # written where the value is computed: before a barrier that ends the
                # body (only this thread reads it, at the start of the next trip)
                v = term.operands[i]
                if _is_read_of(v, buf, nest):
                    continue   # unchanged
                at = v.owner if isinstance(v.owner, Operation) and v.owner.parent is old \
                    else None
                with (bb.after(at) if at is not None else bb.before(term)):
                    nest.write(bb, v, buf)
            term.operands = [term.operands[i] for i in sorted(keep)]
        for o in list(old.ops):
            old.ops.remove(o)
            new_blk.append(o)
        regions.append(Region(new_blk))
    operands = list(op.operands[:n_lead]) + [inits[i] for i in sorted(keep)]
    new = Operation(op.name, operands, [op.results[i].type for i in sorted(keep)],
                    dict(op.attrs), regions, op.loc)
    parent.insert_before(op, new)
    for k, i in enumerate(sorted(keep)):
        op.results[i].replace_all_uses_with(new.results[k])
    with b.after(new):
        for i, buf in bufs.items():
            op.results[i].replace_all_uses_with(nest.read(b, buf))
    op.erase(drop_uses=True)
    for i in shared:
        _drop_write_back(inits[i], new, bufs[i], nest)


def _is_read_of(v: Value, buf: Value, nest: Nest) -> bool:
    """``v`` is this thread's element of ``buf`` as read by ``array.read``."""
    op = v.owner
    return isinstance(op, Operation) and op.name == "array.read" and \
        op.operands[0] is buf and list(op.operands[1:]) == nest.index()


def _writes_to(op: Operation, buf: Value) -> bool:
    return any(o.name == "array.write" and o.operands[1] is buf for o in op.walk())


def _read_back(v: Value, op: Operation, nest: Nest) -> Value | None:
    """The buffer of a value an enclosing loop carries when ``v`` is this thread's element
    of it, read in ``op``'s block before ``op`` with no write to it in between; else None."""
    read = v.owner
    if not (isinstance(read, Operation) and read.name == "array.read"):
        return None
    buf = read.operands[0]
    if id(buf) not in (nest.root or nest).carried or not _is_read_of(v, buf, nest) or \
            read.parent is not op.parent:
        return None
    ops = op.parent.ops
    between = ops[ops.index(read) + 1:ops.index(op)]
    if any(_writes_to(o, buf) for o in between):
        return None
    return buf


def _drop_write_back(init: Value, loop: Operation, buf: Value, nest: Nest) -> None:
    """After a loop that carried a value in its enclosing loop's buffer: the read of its
    result and the write of it back into that buffer, right after it, do nothing."""
    blk = loop.parent
    at = blk.ops.index(loop)
    for o in blk.ops[at + 1:]:
        if o.name == "array.read" and _is_read_of(o.results[0], buf, nest):
            uses = o.results[0].live_uses()
            if len(uses) == 1 and uses[0][0].name == "array.write" and \
                    uses[0][0].operands[1] is buf and \
                    list(uses[0][0].operands[2:]) == nest.index() and \
                    uses[0][0].parent is blk and \
                    not any(_writes_to(x, buf) for x in
                            blk.ops[blk.ops.index(o) + 1:blk.ops.index(uses[0][0])]):
                uses[0][0].erase()
                o.erase()
            break
        if _writes_to(o, buf):
            break
    read = init.owner
    if isinstance(read, Operation) and read.parent is not None and not init.has_uses:
        read.erase()


def uniform(op: Operation, nest: Nest, inside: set) -> set:
    """Positions of the values the loop ``op`` carries that are the same in every thread:
    the initial value and the update are computed without a thread index or memory from
    constants, values defined outside the thread nest and other such carried values."""
    n_lead = 3 if op.name == "loop.for" else 0
    inits = list(op.operands[n_lead:])
    body = op.regions[-1].block
    lead = 1 if op.name == "loop.for" else 0
    own = {id(a) for r in op.regions for a in r.block.args}
    keep = {i for i, v in enumerate(inits) if isinstance(v.type, TensorType)
            and _block_level(v, inside, nest, set(), own)}
    body_ops = {id(o) for o in body.ops}
    while True:
        args = {id(a) for i, a in enumerate(body.args[lead:]) if i in keep}
        if lead:
            args.add(id(body.args[0]))
        ok = {i for i in keep
              if _block_level(body.ops[-1].operands[i], inside | body_ops, nest, args, own)}
        if ok == keep:
            break
        keep = ok
    if op.name == "loop.while":
        # the condition is computed once per block: from those values alone
        cond = op.regions[0].block
        args = {id(a) for i, a in enumerate(cond.args) if i in keep}
        ops = {id(o) for o in cond.ops}
        c = cond.ops[-1].operands[0]
        if not _block_level(c, inside | ops, nest, args, own):
            raise IRError(f"barrier at line {_line(op)}: the condition of the while around "
                          "it is not computed from values the same in every thread alone")
    return keep


def _block_level(v: Value, inside: set, nest: Nest, args: set, own: set = frozenset()) -> bool:
    """``v`` is computed from values the same in every thread (``args``: such block
    arguments of ``op``'s regions; ``own``: all of them) without memory or a thread index."""
    chain, on_iv = _chain(v, inside, nest, args, own)
    return chain is not None and not on_iv


def _demote_if(op: Operation, nest: Nest) -> None:
    parent = op.parent
    b = Builder(parent)
    b.loc = op.loc
    bufs = [nest.buffer(r.type.dtype) if isinstance(r.type, TensorType) and r.type.rank == 0
            else None for r in op.results]
    if any(buf is None for buf in bufs):
        raise IRError(f"barrier at line {_line(op)}: an if around it yields an array")
    for reg in op.regions:
        yld = reg.block.ops[-1]
        bb = Builder(reg.block)
        bb.loc = op.loc
        with bb.before(yld):
            for v, buf in zip(list(yld.operands), bufs):
                nest.write(bb, v, buf)
        yld.operands = []
    new = Operation(op.name, list(op.operands), [], dict(op.attrs), op.regions, op.loc)
    op.regions = []
    parent.insert_before(op, new)
    with b.after(new):
        for r, buf in zip(op.results, bufs):
            r.replace_all_uses_with(nest.read(b, buf))
    op.erase(drop_uses=True)
