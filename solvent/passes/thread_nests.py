"""The machinery of barrier lowering (passes/lower_barriers.py states what it does and its
identity): a nest of loops over a block's threads, split at its barriers into runs, the
``loop.for``/``loop.if`` that hold barriers interchanged with it, values crossing a barrier
kept in per-thread buffers or recomputed."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import DivergentBarrierError
from ..ir.builder import Builder
from ..ir.core import Block, Operation, Region, Value, clone_op
from ..ir.registry import IRError, get
from ..ir.types import RefType, TensorType
from ..ops.simt import COALESCED, JUMP_GUARD, ROLE, THREADS

BARRIER = "simt.barrier"
SPLIT = ("loop.for", "loop.while", "loop.if")   # interchanged with the thread nest when they hold barriers
REMAT_OPS = 16   # at most this many ops recomputed for one value instead of a buffer


def _constant(v):
    op = v.owner
    if isinstance(op, Operation) and op.name == "tensor.constant":
        return op.attrs["value"]
    return None


def _holds_barrier(op: Operation) -> bool:
    return any(o.name == BARRIER for o in op.walk())


def _line(op: Operation) -> str:
    first = next((o for o in op.walk() if o.name == BARRIER), op)
    return str(first.attrs.get("line", "?"))


def _is_thread_loop(op) -> bool:
    return op.name == "loop.for" and op.attrs.get(ROLE) == THREADS


@dataclass
class Nest:
    """A perfect nest of thread loops (outermost first); ``ivs`` are the original loops'
    induction variables, which the runs' new nests replace.

    A part of a nest (``part``): the loop over x alone, inside loops over y and z made for
    it (a coalesced loop's body: ``for ty: for k: for tx``); ``fixed`` are those loops'
    induction variables, which index the per-thread buffers before ``ivs``, and ``root`` the
    whole nest (which allocates the buffers). ``guards``: conditions a thread must meet to
    run the code of this nest's runs (a kernel's ``return``: the rest runs only in the
    threads that did not return), each a ``Guard``."""
    outer: Operation
    loops: list
    extents: list
    ivs: list
    start: int = 0   # the outer loop's place in its block: per-thread buffers go there
    fixed: list = field(default_factory=list)
    root: "Nest | None" = None
    guards: list = field(default_factory=list)
    # the per-thread buffers that hold values a loop carries (demote): one each
    carried: set = field(default_factory=set)

    @staticmethod
    def of(outer: Operation) -> "Nest":
        loops, extents, ivs = [], [], []
        loop = outer
        while True:
            line = _line(loop)
            lb, ub, step = (_constant(v) for v in loop.operands[:3])
            if lb != 0 or step != 1 or not isinstance(ub, int):
                raise IRError(f"barrier at line {line}: its thread loop is not range(n) for a "
                              "constant n")
            if len(loop.operands) > 3 or loop.results:
                raise IRError(f"barrier at line {line}: its thread loop carries values")
            loops.append(loop)
            extents.append(ub)
            ivs.append(loop.regions[0].block.args[0])
            body = loop.regions[0].block.ops[:-1]
            inner = [o for o in body if _is_thread_loop(o)]
            rest = [o for o in body if not _is_thread_loop(o)]
            if len(inner) != 1 or any(o.regions or not get(o.name).pure for o in rest):
                break
            loop = inner[0]
        nest = Nest(outer, loops, extents, ivs, outer.parent.ops.index(outer))
        # the ops between the loops of the nest (constants of its bounds) move into the
        # innermost body: the runs' nests get bounds of their own
        innermost = loops[-1].regions[0].block
        at = 0
        for lp in loops[:-1]:
            for o in [o for o in lp.regions[0].block.ops[:-1] if not _is_thread_loop(o)]:
                lp.regions[0].block.ops.remove(o)
                innermost.insert(at, o)
                at += 1
        return nest

    def new_nest(self, anchor: Operation, narrow=None, outer_only: bool = False) -> Block:
        """A nest like this one (fresh loops and induction variables) inserted before
        ``anchor``; returns its innermost body (ending with its yield; with guards, the
        body of an ``if`` on them there) and maps the original induction variables to the
        new ones in ``self.last_ivs``. ``narrow``: the bounds (lower, upper) of a one-loop
        nest instead of 0 and its extent. ``outer_only``: the loops over y and z alone,
        without guards (``part``)."""
        loops = self.loops[:-1] if outer_only else self.loops
        b = Builder(anchor.parent)
        b.loc = self.outer.loc
        with b.before(anchor):
            bounds = [(b.constant(0, "i64"), b.constant(n, "i64"), b.constant(1, "i64"))
                      for n in self.extents[:len(loops)]]
            if narrow is not None:
                lo, hi = narrow
                bounds = [(lo, b.one("tensor.min", hi, bounds[0][1]), bounds[0][2])]
        blocks = []
        for iv in self.ivs[:len(loops)]:
            blk = Block()
            blocks.append((blk, blk.add_arg(iv.type, iv.hint)))
        self.last_ivs = dict(zip(self.ivs, [a for _, a in blocks]))
        inner = None
        for (blk, _), lp, bd in reversed(list(zip(blocks, loops, bounds))):
            if inner is not None:
                blk.append(inner)
            blk.append(Operation("loop.yield", [], [], {}, None, lp.loc))
            inner = Operation("loop.for", list(bd), [], dict(lp.attrs), [Region(blk)], lp.loc)
        anchor.parent.insert_before(anchor, inner)
        body = blocks[-1][0]
        if self.guards and not outer_only:
            body = self._guarded(body, [a for _, a in blocks])
        return body

    def _guarded(self, body: Block, new_ivs: list) -> Block:
        """The body of ``if <every guard holds>`` at the end of ``body``, in a thread of the
        new nest (``new_ivs``)."""
        root = self.root or self
        ivmap = dict(zip(root.ivs, list(self.fixed) + list(new_ivs)))
        b = Builder(body)
        b.loc = self.outer.loc
        with b.before(body.ops[-1]):
            cond = None
            for g in self.guards:
                v = g.value(b, self, ivmap)
                cond = v if cond is None else b.one("tensor.and", cond, v)
            then, other = Block(), Block()
            for blk in (then, other):
                blk.append(Operation("loop.yield", [], [], {}, None, self.outer.loc))
            b.create("loop.if", [cond], {}, regions=[Region(then), Region(other)])
        return then

    def part(self, fixed: list) -> "Nest":
        """The loop over x of this nest, inside new loops over y and z whose induction
        variables are ``fixed``."""
        return replace(self, loops=self.loops[-1:], extents=self.extents[-1:],
                       ivs=self.ivs[-1:], fixed=list(fixed), root=self.root or self)

    def guarded(self, guard: "Guard") -> "Nest":
        return replace(self, guards=self.guards + [guard], root=self.root or self)

    def index(self) -> list:
        return list(self.fixed) + list(self.ivs)

    def buffer(self, dtype: str, fill=None) -> Value:
        """A per-thread buffer (one element per thread of the nest) allocated before the
        outermost loop, zeros or the scalar ``fill`` (a constant)."""
        if self.root is not None:
            return self.root.buffer(dtype, fill)
        b = Builder(self.outer.parent)
        b.loc = self.outer.loc
        # before everything lowering puts before the nest (the nests and interchanged ops,
        # which may already stand there)
        with b.at(self.outer.parent, self.start):
            v = b.constant(0 if fill is None else fill, dtype)
            full = b.one("tensor.broadcast_to", v, shape=list(self.extents))
            return b.one("array.alloc", full)

    def spec(self):
        return [["i", k] for k in range(len(self.fixed) + len(self.ivs))]

    def read(self, b: Builder, buf: Value, index=None) -> Value:
        return b.one("array.read", buf, *(index or self.index()), spec=self.spec())

    def write(self, b: Builder, v: Value, buf: Value) -> None:
        b.create("array.write", [v, buf, *self.index()], {"spec": self.spec()})


@dataclass
class Guard:
    """A per-thread condition (a kernel's ``return``: the threads that did not return) as a
    nest's runs compute it in each thread: ``source`` is a value defined outside the nest,
    a buffer (``buffer=True``), or the result of ``chain`` (pure ops recomputed from the
    thread indices)."""
    source: Value
    buffer: bool = False
    chain: list | None = None

    def value(self, b: Builder, nest: Nest, ivmap: dict) -> Value:
        if self.buffer:
            return nest.read(b, self.source, list(ivmap.values()))
        if self.chain is None:
            return self.source
        vmap = dict(ivmap)
        for op in self.chain:
            new = clone_op(op, vmap)
            b.block.insert(b.index, new)
            b.index += 1
        return vmap[self.source]


def lower_nest(nest: Nest) -> None:
    """Replace ``nest`` by its lowered form (barrier-free nests and interchanged ops)."""
    split(nest.loops[-1].regions[0].block, nest, nest.outer)
    nest.outer.erase(drop_uses=True)


def split(block: Block, nest: Nest, anchor: Operation) -> None:
    """The thread-level statements of ``block`` (its ops but the terminator) as block-level
    code before ``anchor``."""
    top = block is nest.loops[-1].regions[0].block
    inside = {id(o) for o in block.walk()}
    for op in list(block.ops[:-1]):
        if _is_thread_loop(op) and _holds_barrier(op):
            raise IRError(f"barrier at line {_line(op)}: inside a loop over threads that is "
                          "not part of the nest around it")
        if _is_exit_guard(op):
            if op.results or len(op.regions[1].block.ops) > 1:
                raise IRError(f"barrier at line {_line(op)}: after a return, under an if "
                              "that yields values")
        elif op.name in SPLIT and _holds_barrier(op):
            if op.results or op.name == "loop.while":
                from .register_to_memory import demote
                demote(op, nest, top, inside)
        elif op.name != BARRIER and op.regions and _holds_barrier(op):
            raise IRError(f"barrier at line {_line(op)}: inside {op.name}, which is not "
                          "interchanged with the loop over threads (only loop.for and loop.if)")
    segs: list = [[]]   # a run: [ops]; an interchanged op: the op
    for op in block.ops[:-1]:
        if op.name == BARRIER:
            segs.append([])
        elif op.name in SPLIT and _holds_barrier(op):
            segs += [op, []]
        else:
            segs[-1].append(op)
    seg_of: dict = {}
    for k, s in enumerate(segs):
        for t in (s if isinstance(s, list) else [s]):
            for inner in t.walk():
                seg_of[id(inner)] = k
    # block-level code computed for an interchanged op (its bounds or condition), emitted
    # right before it
    pending = {id(s): _scratch() for s in segs if not isinstance(s, list)}
    guards: dict = {}   # exit guard -> its Guard
    _keep_crossing(segs, seg_of, nest, pending, guards)
    tail = _block_level_yield(block, seg_of, nest)
    for op in [o for o in block.ops if o.name == BARRIER]:
        op.erase()
    for s in segs:
        if isinstance(s, list):
            _drop_dead(s)
            if not s:
                continue
            inner = nest.new_nest(anchor, _narrowed(s, nest, anchor))
            moved = set()
            for t in s:
                block.ops.remove(t)
                inner.insert(len(inner.ops) - 1, t)
                moved |= {id(o) for o in t.walk()}
            for iv, new in nest.last_ivs.items():
                for u, i in list(iv.live_uses()):
                    if id(u) in moved:
                        u.operands[i] = new
        elif _is_exit_guard(s):
            # the rest of the kernel after a return: its runs run in the threads that did
            # not return (the guard), at the place of the if
            g = guards.get(id(s)) or Guard(s.operands[0])
            split(s.regions[0].block, nest.guarded(g), anchor)
            s.erase(drop_uses=True)
            for o in g.chain or []:
                o.operands = []
        else:
            scratch = pending[id(s)]
            for o in scratch.ops[:-1]:
                scratch.ops.remove(o)
                anchor.parent.insert_before(anchor, o)
            block.ops.remove(s)
            if s.attrs.get(COALESCED) and len(nest.loops) > 1 and not nest.fixed:
                _coalesced(s, nest, anchor)
                continue
            anchor.parent.insert_before(anchor, s)
            # a while's condition is computed once per block (lower_barriers.uniform)
            for r in s.regions[1:] if s.name == "loop.while" else s.regions:
                split(r.block, nest, r.block.ops[-1])
    for o in tail:
        anchor.parent.insert_before(anchor, o)


def _is_exit_guard(op: Operation) -> bool:
    """The frontend's ``if`` around the statements after a possible ``continue`` of the
    loop over threads (a kernel's ``return``, simt/nest.py), when it holds barriers."""
    return op.name == "loop.if" and bool(op.attrs.get(JUMP_GUARD)) and _holds_barrier(op)


def _coalesced(loop: Operation, nest: Nest, anchor: Operation) -> None:
    """``loop`` (coalesce.py's, its body ending with the barrier coalesce.py added) inside
    new loops over the threads along y and z before ``anchor``, its body a nest over the
    threads along x (``for ty: for k: for tx``): the values each row of threads keeps (a
    tiled matmul's accumulators) stay in a few cache lines over the whole loop."""
    body = nest.new_nest(anchor, outer_only=True)
    fixed = [nest.last_ivs[iv] for iv in nest.ivs[:-1]]
    body.insert(len(body.ops) - 1, loop)
    outer = dict(zip(nest.ivs[:-1], fixed))
    for op in list(loop.walk()):
        for i, v in enumerate(op.operands):
            if v in outer:
                op.operands[i] = outer[v]
    split(loop.regions[0].block, nest.part(fixed), loop.regions[0].block.ops[-1])


def _block_level_yield(block: Block, seg_of: dict, nest: Nest) -> list:
    """The values the block's terminator passes on (a loop's values carried at block level)
    that a run computes: recomputed for the block, after the runs (the ops returned)."""
    term = block.ops[-1]
    scratch = _scratch()
    for i, v in enumerate(list(term.operands)):
        if not (isinstance(v.owner, Operation) and id(v.owner) in seg_of):
            continue
        chain, on_iv = _chain(v, set(seg_of), nest)
        if chain is None or on_iv:
            raise IRError(f"barrier: a value carried by the loop around it (line "
                          f"{term.loc.line if term.loc else '?'}) is computed per thread")
        term.operands[i] = _clone(chain, v, scratch.ops[-1])
    return scratch.ops[:-1]


def _narrowed(run: list, nest: Nest, anchor: Operation):
    """(lower, upper) bounds of the threads that do anything in a run of a one-loop nest
    that is ``if t < u: body`` (``u`` the same in every thread) or ``if t == c``: the if is
    unwrapped, the loop runs over those threads alone (a reduction tree's ``if tx < s``:
    half the threads fewer each round); else None. The pure ops before the if are used by
    its body alone (recomputed index values)."""
    if len(nest.ivs) != 1 or not run:
        return None
    iff = run[-1]
    if iff.name != "loop.if" or iff.results or len(iff.regions[1].block.ops) != 1:
        return None
    lead = run[:-1]
    lead_ids = {id(o) for o in lead}
    if any(o.regions or not get(o.name).pure for o in lead):
        return None
    cond = iff.operands[0].owner
    iv = nest.ivs[0]
    if not (isinstance(cond, Operation) and cond.name in ("tensor.lt", "tensor.eq")
            and cond.operands[0] is iv and id(cond) in lead_ids):
        return None
    bound = cond.operands[1]
    if isinstance(bound.owner, Operation) and id(bound.owner) in lead_ids:
        c = _constant(bound)
        if c is None:
            return None
    if any(u is not iff for u, _ in cond.results[0].live_uses()):
        return None
    b = Builder(anchor.parent)
    b.loc = iff.loc
    with b.before(anchor):
        if cond.name == "tensor.eq":
            c = _constant(bound)
            if not isinstance(c, int):
                return None
            lo, hi = b.constant(max(c, 0), "i64"), b.constant(c + 1, "i64")
        else:
            lo = b.constant(0, "i64")
            hi = b.constant(_constant(bound), "i64") if id(bound.owner) in lead_ids \
                else bound
    if hi.type != lo.type:
        return None
    body = iff.regions[0].block
    at = run.index(iff)
    for o in list(body.ops[:-1]):
        body.ops.remove(o)
        iff.parent.insert_before(iff, o)
        run.insert(at, o)
        at += 1
    run.remove(iff)
    iff.erase(drop_uses=True)
    _drop_dead(run)
    return lo, hi


def _drop_dead(run: list) -> None:
    """Pure ops of a run whose results nothing uses (a carried value's update recomputed
    for the block): a nest of nothing but them is not emitted."""
    for op in reversed(list(run)):
        if not op.regions and get(op.name).pure and not any(r.has_uses for r in op.results):
            run.remove(op)
            op.erase()


def _scratch() -> Block:
    blk = Block()
    blk.append(Operation("loop.yield", [], []))
    return blk


def _keep_crossing(segs, seg_of, nest: Nest, pending, guards) -> None:
    """Values a run defines that a later segment uses: recomputed there, or kept per thread
    in a buffer (written after the definition, read where used)."""
    inside = set(seg_of)
    for k, s in enumerate(segs):
        if not isinstance(s, list):
            continue
        for t in list(s):
            for r in t.results:
                users: dict = {}
                for u, i in r.live_uses():
                    j = seg_of.get(id(u), k)
                    if j != k:
                        users.setdefault(j, []).append((u, i))
                if users:
                    _carry(r, t, s, users, segs, nest, inside, pending, guards)


def _carry(r, t, run, users, segs, nest, inside, pending, guards):
    chain, on_iv = _chain(r, inside, nest)
    buf = None
    for j, uses in users.items():
        x = segs[j]
        at_block = [(u, i) for u, i in uses if not isinstance(x, list) and u is x]
        nested = [(u, i) for u, i in uses if not (not isinstance(x, list) and u is x)]
        if at_block and _is_exit_guard(x):
            # the condition of the rest after a return: computed in every thread of the
            # runs there (recomputed from a copy of its ops as they are now, or kept per
            # thread)
            if chain is not None:
                snap = _scratch()
                guards[id(x)] = Guard(_clone(chain, r, snap.ops[-1]), chain=snap.ops[:-1])
            else:
                buf = buf or _spill(r, t, nest, run)
                guards[id(x)] = Guard(buf, buffer=True)
        elif at_block:
            if chain is None and nest.guards:
                raise IRError(f"barrier at line {_line(x)}: under a condition computed per "
                              "thread after a return")
            if chain is not None and on_iv:
                raise DivergentBarrierError(
                    f"barrier at line {_line(x)}: the bounds or condition of the statement "
                    "around it depend on the thread index: threads of one block would not all "
                    "reach the same barrier", x.loc,
                    "make the condition the same for all threads of a block, or move the "
                    "barrier out of it")
            scratch = pending[id(x)]
            if chain is not None:
                v = _clone(chain, r, scratch.ops[-1])
            else:
                buf = buf or _spill(r, t, nest, run)
                v = _agreed(buf, nest, scratch.ops[-1], x)
            for u, i in at_block:
                u.operands[i] = v
        if not nested:
            continue
        if isinstance(x, list):
            starts = [x[0]]
        else:
            starts = [reg.block.ops[0] for reg in x.regions
                      if {id(u) for u, _ in nested} & {id(o) for o in reg.block.walk()}]
        if chain is None:
            buf = buf or _spill(r, t, nest, run)
        for first in starts:
            blk = first.parent
            before = blk.ops.index(first)
            b = Builder(blk)
            b.loc = first.loc
            with b.before(first):
                v = _clone(chain, r, first) if chain is not None else nest.read(b, buf)
            added = blk.ops[before:blk.ops.index(first)]
            if isinstance(x, list):
                x[:0] = added
                here = {id(o) for top in x for o in top.walk()}
            else:
                here = {id(o) for o in blk.walk()}
            for u, i in nested:
                if id(u) in here:
                    u.operands[i] = v


def _chain(v: Value, inside: set, nest: Nest, args: set = frozenset(),
           own: set = frozenset()):
    """(the ops to recompute ``v`` from, in order; whether they read a thread index), or
    (None, _) when ``v`` reads memory, a region's result or more than REMAT_OPS ops, or a
    block argument in ``own`` but not in ``args``."""
    order: list = []
    seen: set = set()
    ivs = set(map(id, nest.ivs))
    on_iv = [False]

    def go(x) -> bool:
        if id(x) in ivs:
            on_iv[0] = True
            return True
        if id(x) in own:
            return id(x) in args
        op = x.owner
        if not isinstance(op, Operation) or id(op) not in inside:
            return True   # defined outside the nest: the same in every thread
        if id(op) in seen:
            return True
        if op.regions or not get(op.name).pure or \
                any(isinstance(o.type, RefType) for o in op.operands):
            return False
        seen.add(id(op))
        if not all(go(o) for o in op.operands):
            return False
        order.append(op)
        return len(order) <= REMAT_OPS

    return (order if go(v) else None), on_iv[0]


def _clone(chain, v, anchor) -> Value:
    vmap: dict = {}
    for op in chain:
        new = clone_op(op, vmap)
        anchor.parent.insert_before(anchor, new)
    return vmap[v]


def _spill(r: Value, top: Operation, nest: Nest, run: list) -> Value:
    """A buffer for ``r``, written right after ``top`` (in its run)."""
    if not (isinstance(r.type, TensorType) and r.type.rank == 0):
        raise IRError(f"barrier: a value of type {r.type} (line "
                      f"{top.loc.line if top.loc else '?'}) is used across it; only scalars "
                      "are kept per thread")
    buf = nest.buffer(r.type.dtype)
    b = Builder(top.parent)
    b.loc = top.loc
    with b.after(top):
        nest.write(b, r, buf)
    run.insert(run.index(top) + 1, top.parent.ops[top.parent.ops.index(top) + 1])
    return buf


def _agreed(buf: Value, nest: Nest, anchor: Operation, x: Operation) -> Value:
    """Thread 0's value of the buffer, read once for the block, after a nest checking that
    every thread holds the same (``DivergentBarrierError`` at run time otherwise)."""
    b = Builder(anchor.parent)
    b.loc = x.loc
    with b.before(anchor):
        zeros = [b.constant(0, "i64") for _ in nest.ivs]
        first = nest.read(b, buf, zeros)
    body = nest.new_nest(anchor)
    b = Builder(body)
    b.loc = x.loc
    with b.before(body.ops[-1]):
        mine = b.one("array.read", buf, *nest.last_ivs.values(), spec=nest.spec())
        b.create("error.check", [b.one("tensor.eq", mine, first)],
                 {"kind": "DivergentBarrierError",
                  "message": f"threads of one block disagree on a condition around a barrier "
                             f"(line {_line(x)}): they would not all reach the same barrier"})
    return first
