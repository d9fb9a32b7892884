"""Reverse-mode differentiation of a tensor-level IR function into a new IR function.

``vjp_function(fn, wrt)`` takes an optimized, functionalized ``Function`` and emits, through
the ``Builder``, a new ``Function`` that computes the primal results *and* the cotangents of
the arguments ``wrt`` given one cotangent argument per float result:

    @f_vjp(*fn.args, *ct_results) -> (*fn.results, *ct_args[wrt])

(with the most trips of each taped while loop after the cotangents, and, for a function with
run-time checks, their error code and payload moved to the very end, as the IR's convention
for checks as values wants).

The gradient is itself an ordinary solvent program: the verifier accepts it, the passes
optimize it again (cse, dce), every backend runs it.

How it is built:

* **Activity analysis**: a value is *varied* when it depends on a ``wrt`` argument (a fixed
  point through loop-carried values); a value is *active* when it is varied and of a float
  dtype. Only active values receive cotangents; integer and boolean values, constants and
  values that do not depend on ``wrt`` never enter the reverse pass.
* **Forward pass**: the primal program, cloned. A ``loop.for`` with a compile-time trip
  count ``n`` whose results are active records, in extra carried values, a *tape* per
  carried value: a tensor of shape ``(n, ...)`` written with ``update_slice`` at the start of
  each iteration (so an array slot overwritten inside the loop keeps its old value on the
  tape). A ``loop.while`` counts its trips in an extra carried counter and records a tape of
  a fixed capacity (``emit_counted_while``); the gradient returns the most trips any while
  took (a while inside another loop records its tape in the reverse step that recomputes
  it; the reverse loops and ifs around it carry the maximum out), and a run that needed more
  than the capacity is repeated with a larger one; a ``loop.for`` with a run-time trip
  count is taped the same way. A long loop may instead keep a few snapshots of its state
  and recompute the rest on the binomial schedule (``checkpoint.py``, ``emit_revolve_for``).
* **Reverse pass**: the ops in reverse order, each op's rule from the VJP table
  (``ir.registry.register_vjp``) emitting IR; cotangents of a value used several times are
  summed. A loop becomes a reverse loop over its trips: each reverse step reads the carried
  values of trip ``k`` from the tape, recomputes the body's intermediates from them, and runs
  the body's reverse pass; cotangents of values defined before the loop and used inside it
  are carried by the reverse loop. Without a tape (no capacity given) a reverse step
  recomputes the carried values of trip ``k`` by running the body ``k`` times from the
  loop's initial values: correct for data-dependent trip counts, with ``O(n^2)`` work in the
  trip count (``report["recomputed_loops"]`` counts them). ``loop.if`` becomes an ``if`` on
  the same condition whose branches recompute and reverse their own branch.
"""
from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import Block, Function, Operation, Region, Value
from ..ir.registry import _VJPS, get
from ..ir.types import TensorType, is_complex, is_float
from ..passes.dce import dce
from ..passes.mark_parallel import clear as clear_parallel
from . import emit as E
from .checkpoint import Schedule, nbytes, snapshots
from ..analysis.forwarding import forwarded_read
from .prune import drop_dead_carries, prune_tapes
from .read_caching import state_reads, tape_bytes
from .rules_complex import COMPLEX_RULES

LOOPS = ("loop.for", "loop.while", "loop.if")


class DifferentiationError(Exception):
    """A program (or argument) that solvent cannot differentiate; the message says where."""


class Scope:
    """Original value -> value in the emitted function, with the enclosing scopes' maps."""

    def __init__(self, parent: "Scope | None" = None):
        self.parent = parent
        self.map: dict = {}
        self.tapes: dict = {}  # original loop op -> what its reverse pass reads
        # in a reverse step: an inner loop whose tape the step read from the outer tape ->
        # {result index: its value (the array as the trip left it)} (``emit_block``)
        self.preset: dict = {}
        # original loop op -> {carried index: the array with the loop's writes undone}, as
        # its reverse pass left it (``_reverse_range``)
        self.undone: dict = {}

    def __getitem__(self, v: Value) -> Value:
        s = self
        while s is not None:
            if v in s.map:
                return s.map[v]
            s = s.parent
        raise KeyError(f"no value for {v} in the emitted function (autodiff bug)")

    def __setitem__(self, v, new):
        self.map[v] = new


def _static_int(v: Value):
    op = v.owner
    if isinstance(op, Operation) and op.name == "tensor.constant":
        return int(op.attrs["value"])
    return None


def _update_chain(body: Block, arg: Value, y: Value):
    """The ``update_slice`` ops, in program order, that turn the block argument ``arg`` into
    the yielded ``y`` (each writing into the previous one's result, all in ``body``), or
    None when ``y`` is not made so."""
    chain = []
    while y is not arg:
        o = y.owner
        if not isinstance(o, Operation) or o.name != "tensor.update_slice" or o.parent is not body:
            return None
        chain.append(o)
        y = o.operands[0]
    return chain[::-1]


_COUNT = TensorType((), "i64")  # a while loop's trip count


def _max_of(b: Builder, vs: list) -> Value:
    m = vs[0]
    for v in vs[1:]:
        m = b.one("tensor.max", m, v)
    return m


def _at(b: Builder, table: Value, k: Value) -> Value:
    """``table[k]``."""
    return b.create("tensor.slice", [table, k], {"spec": [["i", 0]]}).result


def _full_spec(shape):
    return [["s", 0, d, 1] for d in shape]


def _write_tapes(b: Builder, tapes, writes, k) -> list:
    """Each tape with its trip ``k`` row set to the value recorded."""
    return [b.create("tensor.update_slice", [t, w, k],
                     {"spec": [["i", 0]] + _full_spec(w.type.shape)}).result
            for t, w in zip(tapes, writes)]


# integer scalar ops a write's index may be rebuilt with in a reverse step instead of taped
_INDEX_OPS = frozenset({"tensor.constant", "tensor.add", "tensor.sub", "tensor.mul",
                        "tensor.neg", "tensor.convert", "tensor.floordiv", "tensor.min",
                        "tensor.max"})


# a product whose every element sums at least this many terms is taped, not recomputed
COSTLY_CONTRACTION = 8


def _costly_product(op: Operation) -> bool:
    """``op`` is a dot_general of a long contraction: its reverse step reads it from the
    tape (one element written per result element) instead of recomputing it (``K``
    multiply-adds each)."""
    if op.name != "tensor.dot_general" or not isinstance(op.results[0].type, TensorType):
        return False
    x = op.operands[0]
    k = 1
    for d in op.attrs["lhs_contract"]:
        k *= x.type.shape[d]
    return k >= COSTLY_CONTRACTION


def varied_values(fn: Function, wrt: list[int]) -> set:
    """Every value that depends on the arguments ``wrt`` (a fixed point over loops)."""
    varied = {fn.args[k] for k in wrt}
    changed = True

    def mark(v):
        nonlocal changed
        if v not in varied:
            varied.add(v)
            changed = True

    while changed:
        changed = False
        for op in fn.walk():
            if op.name == "loop.for":
                body = op.regions[0].block
                ys = body.terminator.operands
                for i, init in enumerate(op.operands[3:]):
                    if init in varied or ys[i] in varied:
                        mark(body.args[1 + i]); mark(op.results[i])
            elif op.name == "loop.while":
                cond, body = op.regions
                ys = body.block.terminator.operands
                for i, init in enumerate(op.operands):
                    if init in varied or ys[i] in varied:
                        mark(cond.block.args[i]); mark(body.block.args[i]); mark(op.results[i])
            elif op.name == "loop.if":
                for r in op.regions:
                    for i, y in enumerate(r.block.terminator.operands):
                        if y in varied:
                            mark(op.results[i])
            elif not op.regions and any(o in varied for o in op.operands):
                for r in op.results:
                    mark(r)
    return varied


class Transformer:
    def __init__(self, fn: Function, wrt: list[int], checkpoints=None,
                 while_capacity: int | None = None, live_per_trip: dict | None = None,
                 cache_reads=frozenset()):
        self.fn = fn
        # slices of a taped loop's carried arrays whose values each trip records, so that
        # its reverse step reads them instead of rebuilding the array (``read_caching.py``)
        self.cache_reads = cache_reads
        self.step_reads: dict = {}  # slice op a reverse step emitted -> the original slice
        self.taped_loops: set = set()  # original loop.for ops emitted by emit_taped_for
        # original loop.for -> the bytes a trip of its tape takes once the tapes no reverse
        # step reads are pruned (a taped build measures them); None: the carried values'
        # bytes (every carried value counted as recorded)
        self.live_per_trip = live_per_trip
        self.taped_orig: dict = {}  # emitted taped loop.for -> the original loop
        self.varied = varied_values(fn, wrt)
        self.taped: list = []  # (emitted taped loop, number of primal results)
        self.checkpoints = checkpoints  # the policy (checkpoint.snapshots)
        self.while_capacity = while_capacity  # trips a while loop's tape holds
        self.while_trips: list = []  # trip counts the gradient returns (see trip_sinks)
        # where a taped while loop reports its trip count: one list per region being built
        # (the innermost last); a reverse loop or if that holds taped whiles carries the
        # maximum of their counts out as one more result, reported to the enclosing region
        self.trip_sinks: list = [self.while_trips]
        self.recomputed = 0  # loops reversed by re-running them from the start (O(n^2))
        self.schedules: dict = {}  # original loop.for -> its checkpoint.Schedule, or None
        self.fn_block: Block | None = None  # the emitted function's body (its arguments)
        self.tables: dict = {}  # (trips, snapshots) -> the schedule's table arguments
        self.table_values: list = []  # the arrays the gradient's table arguments take
        self.step_blocks: set = set()  # the blocks of reverse steps and reversed branches
        self.walkable: dict = {}  # update_slice ops they recompute -> originals (forwarding)
        self.owners = {r.block: o for o in fn.walk() for r in o.regions}
        self.printed: set = set()  # io.print ops cloned once already (clone_op)
        # original taped loop -> number of its tapes, each also carried as the last trip's
        # value after the tapes (``_lasts``)
        self.lasts: dict = {}
        self.recording: list = []  # the loops whose trips _record_trip records, outermost first

    def active(self, v: Value) -> bool:
        return v in self.varied and isinstance(v.type, TensorType) and (
            is_float(v.type.dtype) or is_complex(v.type.dtype))

    # --- forward: cloning -------------------------------------------------------------------
    def clone_op(self, op: Operation, scope: Scope, b: Builder) -> Operation | None:
        if op.name == "io.print":
            # the forward sweep is built first: later copies (a reverse step recomputing
            # its trip, a checkpoint segment run again) must not print the line again
            if op in self.printed:
                return None
            self.printed.add(op)
        if op.name == "tensor.slice":
            src = scope[op.operands[0]]
            dyn = [scope[o] for o in op.operands[1:]]
            b.loc = op.loc
            # past the writes a reverse step recomputed
            src, v = forwarded_read(src, dyn, op, self.walkable, self.owners)
            if v is None:
                # the value just written, if it is; a speculated read stays unchecked (its
                # index may be out of bounds where the program did not use it)
                v = E.slice_(b, src, dyn, op.attrs["spec"], op.attrs)
                if b.block in self.step_blocks:
                    self.step_reads[v.owner] = op
            scope[op.results[0]] = v
            return v.owner
        regions = []
        for r in op.regions:
            inner = Scope(scope)
            blk = Block()
            for a in r.block.args:
                inner[a] = blk.add_arg(a.type, a.hint)
            for o in r.block.ops:
                self.clone_op(o, inner, Builder(blk))
            regions.append(Region(blk))
        new = Operation(op.name, [scope[o] for o in op.operands], [r.type for r in op.results],
                        op.attrs, regions, op.loc)
        b.block.append(new)
        if op.name == "tensor.update_slice" and b.block in self.step_blocks:
            self.walkable[new] = op  # in a reverse step: dead once its reads are forwarded
        for r, n in zip(op.results, new.results):
            scope[r] = n
        return new

    def emit_block(self, block: Block, scope: Scope, b: Builder) -> None:
        """Clone ``block``'s ops but its terminator; its loops with active results record
        what their reverse pass needs."""
        for op in block.ops[:-1]:
            if op.results and all(r in scope.map for r in op.results):
                continue  # read from a tape (a costly product of the trip)
            if op in scope.preset:  # its tape read from the outer loop's: not recorded again
                self.clone_op(op, scope, b)   # (dead unless its other results are read)
                for idx, v in scope.preset[op].items():
                    scope[op.results[idx]] = v
                continue
            if op.name in ("loop.for", "loop.while") and any(self.active(r) for r in op.results):
                sched = self._schedule(op) if op.name == "loop.for" else None
                if sched is not None:
                    self.emit_revolve_for(op, scope, b, sched)
                elif op.name == "loop.for" and (self._trips(op) is not None or
                                                self.while_capacity is not None):
                    self.emit_taped_for(op, scope, b)
                elif op.name == "loop.while":
                    self.emit_counted_while(op, scope, b, self.while_capacity)
                else:
                    self.clone_op(op, scope, b)
            else:
                self.clone_op(op, scope, b)

    def _schedule(self, op) -> Schedule | None:
        """``op``'s checkpointing schedule when the policy asks for one."""
        if op in self.schedules:
            return self.schedules[op]
        n = self._trips(op)
        sched = None
        if n is not None and self.live_per_trip is not None:
            per_trip = self.live_per_trip.get(op, 0)
            c = snapshots(n, per_trip, self.checkpoints) if per_trip else None
            if c is not None:
                sched = Schedule(n, c)
        elif n is not None:
            body = op.regions[0].block
            ys = body.terminator.operands
            per_trip = 0
            for i, c in enumerate(body.args[1:]):
                chain = _update_chain(body, c, ys[i]) if c.type.rank else None
                per_trip += nbytes(c.type) if chain is None else sum(
                    nbytes(u.operands[1].type) + sum(nbytes(d.type) for d in u.operands[2:])
                    for u in chain)
            c = snapshots(n, per_trip, self.checkpoints)
            if c is not None:
                sched = Schedule(n, c)
        self.schedules[op] = sched
        return sched

    def _tables(self, sched: Schedule) -> tuple:
        """The schedule's tables as arguments of the gradient program (one set per
        (trips, snapshots))."""
        key = (sched.n, sched.c)
        if key not in self.tables:
            vals = []
            for name in ("store_slot", "restore_pos", "restore_slot"):
                arr = getattr(sched, name)
                vals.append(self.fn_block.add_arg(TensorType(arr.shape, "i64"), name))
                self.table_values.append((name, arr))
            self.tables[key] = tuple(vals)
        return self.tables[key]

    def emit_revolve_for(self, op: Operation, scope: Scope, b: Builder, sched) -> None:
        """The loop writing, at the start of trip ``i``, its carried values into the
        snapshot slot ``store_slot[i]`` of one buffer per carried value (of ``sched.slots``
        states): the reverse loop restores and advances from them (``_revolve_state``)."""
        body = op.regions[0].block
        carried = body.args[1:]
        store = self._tables(sched)[0]
        blk, ib, inner, k = self._loop_head(op, scope)
        buf_types = [TensorType((sched.slots,) + c.type.shape, c.type.dtype) for c in carried]
        bufs = [blk.add_arg(t, "snapshots") for t in buf_types]
        new_bufs = _write_tapes(ib, bufs, [inner[c] for c in carried], _at(ib, store, k))
        for o in body.ops[:-1]:
            self.clone_op(o, inner, ib)
        ib.create("loop.yield", [inner[y] for y in body.terminator.operands] + new_bufs)
        new = self._loop_tail(op, scope, b, blk, buf_types)
        scope.tapes[op] = ("revolve", new.results[len(op.results):], sched)

    def _loop_head(self, op: Operation, scope: Scope):
        """The body block of ``op``'s copy (its induction variable and carried values as
        arguments) with the trip number ``k = (iv - lb) // step`` computed: ``(block,
        builder, scope, k)``."""
        lb, step = _static_int(op.operands[0]), _static_int(op.operands[2])
        body = op.regions[0].block
        blk = Block()
        inner = Scope(scope)
        ib = Builder(blk)
        iv = blk.add_arg(body.args[0].type, body.args[0].hint)
        inner[body.args[0]] = iv
        for c in body.args[1:]:
            inner[c] = blk.add_arg(c.type, c.hint)
        dt = iv.type.dtype
        k = ib.one("tensor.sub", iv, scope[op.operands[0]] if lb is None
                   else ib.constant(lb, dt))
        if step != 1:
            k = ib.one("tensor.floordiv", k, scope[op.operands[2]] if step is None
                       else ib.constant(step, dt))
        return blk, ib, inner, k

    def _loop_tail(self, op, scope, b, blk, tape_types) -> Operation:
        """``op``'s copy with body ``blk`` carrying tapes of ``tape_types`` (from zeros)
        after its own values; its results mapped, the loop recorded for ``prune_tapes``."""
        new = Operation("loop.for", [scope[o] for o in op.operands] +
                        [E.zeros(b, t) for t in tape_types],
                        [r.type for r in op.results] + tape_types, op.attrs, [Region(blk)],
                        op.loc)
        b.block.append(new)
        for r, v in zip(op.results, new.results):
            scope[r] = v
        self.taped.append((new, len(op.results)))
        self.taped_orig[new] = op
        return new

    def _peels(self, op: Operation) -> bool:
        """Whether ``op``'s reverse loop peels its last trip's step (``reverse_loop``): an
        active carried value the body never reads."""
        body = op.regions[0].block if op.name == "loop.for" else op.regions[1].block
        carried = body.args[1:] if op.name == "loop.for" else body.args
        read = {v for o in body.walk() for v in o.operands}
        return any(self.active(c) and c not in read for c in carried)

    def _lasts(self, op: Operation, blk: Block, writes: list) -> list:
        """For a loop whose reverse loop peels its last step: the values a trip records,
        also carried as the last trip's (block arguments of ``blk``; the values to yield
        are ``writes``), which the peeled step reads instead of the tape's last row; the
        other steps often read no tape at all (a linear stencil's), which is then pruned:
        no tape rows written, nor zero-filled, per trip."""
        if not self._peels(op):
            return []
        self.lasts[op] = len(writes)
        for w in writes:
            blk.add_arg(w.type, "last")
        return list(writes)

    def _revolve_state(self, op, scope, rb, blk, k, tape, extra) -> list:
        """In the reverse step ``k`` of a checkpointed loop: the carried values of trip
        ``k``, restored from snapshot ``restore_slot[k]`` (trip ``restore_pos[k]``) and
        advanced to trip ``k``, writing each trip passed to its slot. The snapshot buffers
        are carried by the reverse loop (appended to ``extra``)."""
        body = op.regions[0].block
        carried = body.args[1:]
        store, rpos, rslot = self._tables(tape[2])
        bufs = [blk.add_arg(t.type, "snapshots") for t in tape[1]]
        idt = k.type.dtype
        p, a = _at(rb, rpos, k), _at(rb, rslot, k)
        start = [rb.create("tensor.slice", [buf, a], {"spec": [["i", 0]] + _full_spec(
            buf.type.shape[1:])}).result for buf in bufs]
        ablk = Block()
        ab = Builder(ablk)
        i = ablk.add_arg(TensorType((), idt), "i")
        inner = Scope(scope)
        xs = [ablk.add_arg(c.type, c.hint) for c in carried]
        bs = [ablk.add_arg(t.type, "snapshots") for t in bufs]
        for c, x in zip(carried, xs):
            inner[c] = x
        inner[body.args[0]] = self._iv_at(op, scope, ab, i)
        new_bs = _write_tapes(ab, bs, xs, _at(ab, store, i))
        for o in body.ops[:-1]:
            self.clone_op(o, inner, ab)
        ab.create("loop.yield", [inner[y] for y in body.terminator.operands] + new_bs)
        adv = Operation("loop.for", [p, k, rb.constant(1, idt)] + start + bufs,
                        [c.type for c in carried] + [t.type for t in bufs], {},
                        [Region(ablk)], op.loc)
        rb.block.append(adv)
        ncar = len(carried)
        extra.extend(zip(tape[1], bufs, adv.results[ncar:]))
        return adv.results[:ncar]

    def _trips(self, op):
        lb, ub, step = (_static_int(v) for v in op.operands[:3])
        if lb is None or ub is None or step is None or step == 0:
            return None
        return len(range(lb, ub, step))

    def emit_taped_for(self, op: Operation, scope: Scope, b: Builder) -> None:
        """The loop (of a compile-time trip count, or of a run-time one taped as a while
        loop is: in buffers of the capacity, its trip count reported), recording per trip
        ``k`` what its reverse step needs to rebuild the
        carried values of trip ``k``: the whole value, or, for an array the body changes
        only through ``update_slice`` (``u[i] = ...``), the slots it overwrites (their old
        values and the write's indices): the reverse loop then undoes the writes on the
        final array, trip by trip, at the cost of the slots rather than the array."""
        n = self._trips(op)
        body = op.regions[0].block
        self.taped_loops.add(op)
        blk, ib, inner, k = self._loop_head(op, scope)
        if n is None:  # a run-time trip count: a tape of the while loops' capacity
            n = self.while_capacity
            k = ib.one("tensor.min", k, ib.constant(n - 1, k.type.dtype))
            count = self._trip_count(op, scope, b)
            if count.type != _COUNT:
                count = b.one("tensor.convert", count, dtype=_COUNT.dtype)
            self.trip_sinks[-1].append(count)
        self.recording.append(op)
        writes, plan = self._record_trip(body, body.args[1:], inner, ib)
        self.recording.pop()
        tape_types = [TensorType((n,) + w.type.shape, w.type.dtype) for w in writes]
        tapes = [blk.add_arg(t) for t in tape_types]
        lasts = self._lasts(op, blk, writes)
        ib.create("loop.yield", [inner[y] for y in body.terminator.operands] +
                  _write_tapes(ib, tapes, writes, k) + lasts)
        new = self._loop_tail(op, scope, b, blk, tape_types + [w.type for w in lasts])
        scope.tapes[op] = ("tape", new.results[len(op.results):], n, plan)

    def _record_trip(self, body: Block, carried, inner: Scope, ib: Builder):
        """Clone ``body``'s ops (but its terminator) and say what a trip's tape holds:
        ``(writes, plan)``, the values to record and, per carried value, how the reverse
        step rebuilds it (``("full", i)`` or ``("undo", [(update op, old slot's write,
        index writes)])``, then ``("cached", [(value, position)])``: the trip's costly
        products and the slices of ``cache_reads``, which the reverse step reads instead of
        recomputing)."""
        yields = body.terminator.operands
        chains = [_update_chain(body, c, yields[i]) if c.type.rank else None
                  for i, c in enumerate(carried)]
        in_chain = {u for ch in chains if ch for u in ch}
        # an array only an inner loop changes, each of its trips through update_slice: the
        # inner loop is taped, and the trip records the inner tape's undo entries
        nested = {i: y.owner for i, (c, y) in enumerate(zip(carried, yields))
                  if chains[i] is None and self._undoable_inner(body, c, y)}
        olds = {}
        for o in body.ops[:-1]:
            if o in in_chain:  # the slot's old value, read before the write (in place)
                dyn = [inner[d] for d in o.operands[2:]]
                olds[o] = (ib.create("tensor.slice", [inner[o.operands[0]]] + dyn,
                                     E.index_attrs(o)).result, dyn)
            if o in nested.values():
                self.emit_taped_for(o, inner, ib)
            else:
                self.clone_op(o, inner, ib)
        writes, plan = [], []
        copied: dict = {}  # nested loop -> position of its tape's first entry in writes
        for i, c in enumerate(carried):
            chain = chains[i]
            if i in nested:
                # the inner loop's whole tape (each position a row of the trip's tape): the
                # reverse step hands it to the inner loop's reverse pass (``_preset_inner``)
                # instead of running the inner loop again to record it; ``prune_tapes``
                # drops the positions no reverse step reads
                loop = nested[i]
                _, tv, m, inner_plan = inner.tapes[loop][:4]
                base = copied.get(loop)
                if base is None:
                    base = copied[loop] = len(writes)
                    writes.extend(tv)
                entries = [(u, base + pos_old, [p if isinstance(p, tuple) else base + p
                                                for p in pos_idx])
                           for u, pos_old, pos_idx in inner_plan[yields[i].index][1]]
                plan.append(("undo_loop", m, entries, loop, base, len(tv), yields[i].index,
                             inner_plan))
                continue
            if chain is None:
                plan.append(("full", len(writes)))
                writes.append(inner[c])
                continue
            entries = []
            windows = set()
            for u in chain:
                # a write into the window an earlier write of the chain wrote (the same spec
                # and index values: ``best[i + 1, c] = best[i, c]`` then ``best[i + 1, c] =
                # max(...)``) needs no undo: the earlier write's undo, run after it, sets the
                # whole window back to its value before the chain (an ``unchecked`` mark
                # differs only where the checked write raises: the run's values are dropped)
                window = (repr(u.attrs["spec"]), tuple(id(d) for d in u.operands[2:]))
                if window in windows:
                    continue
                windows.add(window)
                old, dyn = olds[u]
                idx = [("re", d) if self._rebuildable(d) else dv
                       for d, dv in zip(u.operands[2:], dyn)]
                entries.append((u, len(writes), self._index_slots(writes, idx)))
                writes.append(old)
                writes.extend(d for d in idx if not isinstance(d, tuple))
            plan.append(("undo", entries))
        cached = []  # (original value, its row's position in writes): read, not recomputed
        for o in body.ops[:-1]:
            if o in self.cache_reads or (_costly_product(o) and
                                         any(self.active(r) for r in o.results)):
                cached.append((o.results[0], len(writes)))
                writes.append(inner[o.results[0]])
        plan.append(("cached", cached))
        return writes, plan

    @staticmethod
    def _index_slots(writes: list, idx: list) -> list:
        """A write's index entries for the undo plan: the tape position of each index the
        trip records (after the old slot's value, at ``len(writes)``), or ``("re", d)``
        for an original index value ``d`` the reverse step rebuilds (``_rebuildable``)."""
        out, pos = [], len(writes) + 1
        for d in idx:
            if isinstance(d, tuple):
                out.append(d)
            else:
                out.append(pos)
                pos += 1
        return out

    def _inside(self, v: Value, loop: Operation) -> bool:
        """Whether ``v`` is defined inside ``loop``'s regions."""
        o = v.owner
        blk = o if isinstance(o, Block) else o.parent
        while blk is not None:
            owner = self.owners.get(blk)
            if owner is None:
                return False
            if owner is loop:
                return True
            blk = owner.parent
        return False

    def _rebuildable(self, d: Value) -> bool:
        """Whether a write's index ``d`` can be rebuilt in the reverse step from the
        induction variables of the loops being recorded (``self.recording``) and values
        defined outside them, through integer scalar ops: then no tape records it
        (knapsack's ``best[i + 1, c]``: ``i + 1`` and ``c``)."""
        if not self.recording:
            return False
        outer = self.recording[0]
        bodies = {lp.regions[0].block: lp for lp in self.recording if lp.name == "loop.for"}
        return self._rebuild_ok(d, outer, bodies, {})

    def _rebuild_ok(self, d: Value, outer: Operation, bodies: dict, memo: dict) -> bool:
        if d in memo:
            return memo[d]
        if not self._inside(d, outer):
            ok = True
        elif isinstance(d.owner, Block):
            ok = d.owner in bodies and d is d.owner.args[0]
        else:
            o = d.owner
            ok = (o.name in _INDEX_OPS and not o.regions and o.parent in bodies and
                  d.type.rank == 0 and d.type.dtype[0] in "iu" and
                  all(self._rebuild_ok(x, outer, bodies, memo) for x in o.operands))
        memo[d] = ok
        return ok

    def _rebuild(self, d: Value, b: Builder, scope: Scope, ivs: dict, memo: dict) -> Value:
        """The index ``d`` (``_rebuildable``) in the reverse step: the induction variables
        from ``ivs`` (original -> emitted), values outside the recorded loops from
        ``scope``, the integer ops between cloned."""
        if d in ivs:
            return ivs[d]
        if d in memo:
            return memo[d]
        try:
            v = scope[d]   # a value outside the recorded loops
        except KeyError:
            v = self._clone_index_op(d.owner, b, scope, ivs, memo)
        memo[d] = v
        return v

    def _clone_index_op(self, o: Operation, b: Builder, scope: Scope, ivs: dict,
                        memo: dict) -> Value:
        new = Operation(o.name, [self._rebuild(x, b, scope, ivs, memo) for x in o.operands],
                        [r.type for r in o.results], o.attrs, [], o.loc)
        b.block.append(new)
        return new.results[0]

    def _undoable_inner(self, body: Block, c: Value, y: Value) -> bool:
        """``y`` (yielded for the carried array ``c``) is made from ``c`` by a loop.for of
        ``body`` with a compile-time trip count whose body changes it only through
        ``update_slice`` (``for c in ...: best[i + 1, c] = ...``), a tape of whose slots
        takes fewer bytes than the array."""
        loop = y.owner
        if not (c.type.rank and isinstance(loop, Operation) and loop.name == "loop.for"
                and loop.parent is body and loop.operands[3 + y.index] is c):
            return False
        m = self._trips(loop)
        inner = loop.regions[0].block
        arg = inner.args[1 + y.index]
        chain = _update_chain(inner, arg, inner.terminator.operands[y.index])
        if not m or not chain:
            return False
        per_trip = sum(nbytes(u.operands[1].type) + sum(nbytes(d.type) for d in u.operands[2:])
                       for u in chain)
        return m * per_trip < nbytes(c.type)

    def emit_counted_while(self, op: Operation, scope: Scope, b: Builder,
                           capacity: int | None = None) -> None:
        """The while loop counting its trips in an extra carried value; with a
        ``capacity``, also recording each trip's tape (as ``emit_taped_for``) in buffers of
        that many trips: the reverse loop then reads them instead of recomputing. The trip
        count is then a result of the gradient program (``self.while_trips``): a run whose
        count exceeds the capacity wrote past it (clamped) and must be repeated with larger
        buffers (``api.Gradient`` does)."""
        cond, body = op.regions
        regions = []
        counter_t = TensorType((), "i64")
        tape_types = []
        for r, is_body in ((cond, False), (body, True)):
            inner = Scope(scope)
            blk = Block()
            ib = Builder(blk)
            for a in r.block.args:
                inner[a] = blk.add_arg(a.type, a.hint)
            cnt = blk.add_arg(counter_t, "trips")
            tapes = [blk.add_arg(t) for t in tape_types]
            term = r.block.terminator
            if is_body and capacity is not None:
                self.recording.append(op)
                writes, plan = self._record_trip(r.block, r.block.args, inner, ib)
                self.recording.pop()
                tape_types = [TensorType((capacity,) + w.type.shape, w.type.dtype)
                              for w in writes]
                tapes = [blk.add_arg(t) for t in tape_types]
                lasts = self._lasts(op, blk, writes)
                tape_types += [w.type for w in lasts]
                for t in tape_types:  # the condition region takes the same carried values
                    regions[0].block.add_arg(t)
                at = ib.one("tensor.min", cnt, ib.constant(capacity - 1, "i64"))
                extra = _write_tapes(ib, tapes, writes, at) + lasts
            else:
                for o in r.block.ops[:-1]:
                    self.clone_op(o, inner, ib)
                extra = []
            ops = [inner[y] for y in term.operands]
            if is_body:
                ops.append(ib.one("tensor.add", cnt, ib.constant(1, "i64")))
            ib.create(term.name, ops + extra)
            regions.append(Region(blk))
        inits = [b.constant(0, "i64")] + [E.zeros(b, t) for t in tape_types]
        new = Operation("loop.while", [scope[o] for o in op.operands] + inits,
                        [r.type for r in op.results] + [counter_t] + tape_types, op.attrs,
                        regions, op.loc)
        b.block.append(new)
        nres = len(op.results)
        for r, v in zip(op.results, new.results):
            scope[r] = v
        if capacity is None:
            scope.tapes[op] = ("count", new.results[nres])
            return
        scope.tapes[op] = ("tape", new.results[nres + 1:], capacity, plan, new.results[nres])
        self.taped.append((new, nres + 1))
        self.trip_sinks[-1].append(new.results[nres])

    # --- reverse ----------------------------------------------------------------------------
    def sweep(self, block: Block, scope: Scope, b: Builder, adj: dict) -> None:
        for op in reversed(block.ops[:-1]):
            self.reverse_op(op, scope, b, adj)

    def _accumulate(self, b, adj, v, ct):
        if ct is not None and self.active(v):
            if ct.type != v.type:
                raise AssertionError(f"cotangent {ct.type} for {v.type} (autodiff bug)")
            adj[v] = E.add(b, adj.get(v), ct)

    def reverse_op(self, op: Operation, scope: Scope, b: Builder, adj: dict) -> None:
        cts = [adj.get(r) if self.active(r) else None for r in op.results]
        if all(c is None for c in cts):
            return
        if op.name in ("loop.for", "loop.while"):
            return self.reverse_loop(op, scope, b, adj, cts)
        if op.name == "loop.if":
            return self.reverse_if(op, scope, b, adj, cts)
        rule = _VJPS.get(op.name)
        where = f"line {op.loc.line} ({op.loc})" if op.loc else "an unknown line"
        if op.name not in COMPLEX_RULES and any(
                self.active(v) and is_complex(v.type.dtype) for v in [*op.operands, *op.results]):
            raise DifferentiationError(
                f"cannot differentiate through {op.name} at {where}: complex values are "
                "differentiated only through linear ops, mul, div, abs, real, imag, conj, "
                "matrix products and the Fourier transforms")
        if rule is None:
            raise DifferentiationError(
                f"cannot differentiate through {op.name} at {where}: the op has no VJP rule")
        b.loc = op.loc
        xs = [scope[o] for o in op.operands]
        ys = [scope[r] for r in op.results]
        outs = rule(b, op, xs, ys, cts)
        for o, ct in zip(op.operands, outs):
            self._accumulate(b, adj, o, ct)

    def _outer_uses(self, blocks) -> list:
        inside = set()
        for blk in blocks:
            inside.update(blk.args)
            for o in blk.walk():
                inside.update(o.results)
                for r in o.regions:
                    inside.update(r.block.args)
        seen, out = set(), []
        for blk in blocks:
            for o in blk.walk():
                for v in o.operands:
                    if v not in inside and v not in seen and self.active(v):
                        seen.add(v)
                        out.append(v)
        return out

    def _emit_steps(self, op, scope, b, count, inits) -> list:
        """Run ``op``'s body ``count`` times from ``inits`` (emitted values): the carried
        values at the start of trip ``count``."""
        is_for = op.name == "loop.for"
        body = op.regions[0].block if is_for else op.regions[1].block
        carried = body.args[1:] if is_for else body.args
        idt = count.type.dtype
        blk = Block()
        ib = Builder(blk)
        i = blk.add_arg(TensorType((), idt), "i")
        inner = Scope(scope)
        for c in carried:
            inner[c] = blk.add_arg(c.type, c.hint)
        if is_for:
            inner[body.args[0]] = self._iv_at(op, scope, ib, i)
        for o in body.ops[:-1]:
            self.clone_op(o, inner, ib)
        ib.create("loop.yield", [inner[y] for y in body.terminator.operands])
        new = Operation("loop.for", [b.constant(0, idt), count, b.constant(1, idt)] + inits,
                        [c.type for c in carried], {}, [Region(blk)], op.loc)
        b.block.append(new)
        return new.results

    def _iv_at(self, op, scope, b, k):
        """``lb + k * step`` in the induction variable's dtype."""
        lb, step = scope[op.operands[0]], scope[op.operands[2]]
        dt = lb.type.dtype
        if k.type.dtype != dt:
            k = b.one("tensor.convert", k, dtype=dt)
        return b.one("tensor.add", lb, b.one("tensor.mul", k, step))

    def _trip_count(self, op, scope, b):
        if op.name == "loop.while":
            return scope.tapes[op][-1]
        n = self._trips(op)
        if n is not None:
            return b.constant(n, "i64")
        lb, ub, step = (scope[v] for v in op.operands[:3])
        dt = lb.type.dtype
        span = b.one("tensor.sub", b.one("tensor.add", b.one("tensor.sub", ub, lb), step),
                     b.one("tensor.sign", step))
        n = b.one("tensor.max", b.constant(0, dt),
                  b.one("tensor.floordiv", span, step))
        zero_step = b.one("tensor.eq", step, b.constant(0, dt))
        return b.one("tensor.select", zero_step, b.constant(0, dt), n)

    def reverse_loop(self, op, scope, b, adj, cts) -> None:
        """The reverse loop of ``op``'s trips. A carried value the body never reads (a
        residual recomputed each trip: ``err = np.max(...)``) has a cotangent only in the
        reverse step of the last trip (the step before receives zero): that step is peeled
        off as a loop of ``min(n, 1)`` trips, and the loop over the other steps neither
        carries the cotangent nor emits its rules (laplace_converge: the reduce_max rule's
        mask, count and the recomputed stencil, in every step). The reverse pass is linear
        in the cotangents, so the two loops compute the same sums."""
        is_for = op.name == "loop.for"
        body = op.regions[0].block if is_for else op.regions[1].block
        carried = list(body.args[1:] if is_for else body.args)
        inits = list(op.operands[3:] if is_for else op.operands)
        act = [i for i, c in enumerate(carried) if self.active(c)]
        outer = self._outer_uses([body])
        n = self._trip_count(op, scope, b)
        idt = n.type.dtype
        ct_inits = [cts[i] if cts[i] is not None else E.zeros(b, carried[i].type) for i in act]
        acc_inits = [adj[v] if adj.get(v) is not None else E.zeros(b, v.type) for v in outer]
        read = {v for o in body.walk() for v in o.operands}
        last_only = {i for i in act if cts[i] is not None and carried[i] not in read}
        lo = b.constant(0, idt)
        states = None
        if last_only:
            one = b.one("tensor.min", n, b.constant(1, idt))
            ct_res, acc_inits, states = self._reverse_range(op, scope, b, n, act, ct_inits,
                                                            outer, acc_inits, states, lo, one,
                                                            peeled=True)
            for i, r in zip(act, ct_res):  # zero once the last trip's step ran (n > 0)
                if i in last_only:
                    self._accumulate(b, adj, inits[i], r)
            ct_inits = [r for i, r in zip(act, ct_res) if i not in last_only]
            act = [i for i in act if i not in last_only]
            lo = one
        ct_res, acc_res, _ = self._reverse_range(op, scope, b, n, act, ct_inits, outer,
                                                 acc_inits, states, lo, n)
        for v, r in zip(outer, acc_res):
            adj[v] = r
        for i, r in zip(act, ct_res):
            self._accumulate(b, adj, inits[i], r)

    def _reverse_range(self, op, scope, b, n, act, ct_inits, outer, acc_inits, states,
                       lo, hi, peeled=False) -> tuple:
        """The reverse steps ``j`` in ``[lo, hi)`` of ``op`` (trip ``k = n - 1 - j``),
        carrying the cotangents of the carried values ``act`` (from ``ct_inits``) and of the
        outer values ``outer`` (from ``acc_inits``) and, with an undo tape, the arrays as
        the trips found them (from ``states``, or the loop's results when None). Returns
        the three lists of results."""
        is_for = op.name == "loop.for"
        body = op.regions[0].block if is_for else op.regions[1].block
        carried = list(body.args[1:] if is_for else body.args)
        inits = list(op.operands[3:] if is_for else op.operands)
        yields = body.terminator.operands
        tape = scope.tapes.get(op)
        idt = n.type.dtype

        blk = Block()
        rb = Builder(blk)
        j = blk.add_arg(TensorType((), idt), "j")
        ct_c = [blk.add_arg(carried[i].type, "ct") for i in act]
        acc = [blk.add_arg(v.type, "acc") for v in outer]
        rs = Scope(scope)
        k = rb.one("tensor.sub", rb.one("tensor.sub", n, rb.constant(1, idt)), j)
        extra = []  # (init, block argument, yield) of more values the reverse loop carries
        undo_keys = []  # (position in extra, inner loop, its carried index): undo_loop
        undo_idx = []   # the carried index of each state in extra (an undo tape's)
        if tape is not None and tape[0] == "revolve":
            for c, v in zip(carried, self._revolve_state(op, scope, rb, blk, k, tape, extra)):
                rs[c] = v
        elif tape is not None and tape[0] == "tape":
            tv = tape[1]
            ivs = {body.args[0]: self._iv_at(op, scope, rb, k)} if is_for else {}
            memo: dict = {}

            def index(p):  # a write's index: read from the tape, or rebuilt
                if isinstance(p, tuple):
                    return self._rebuild(p[1], rb, rs, ivs, memo)
                return at_k(tv[p])
            # a while tape that overflowed is read in bounds; the run is then repeated
            row = k if is_for and self._trips(op) is not None else \
                rb.one("tensor.min", k, rb.constant(tape[2] - 1, idt))

            m = self.lasts.get(op)
            last = {}  # the peeled step (trip n - 1) reads the values the last trip carried
            if peeled and m and not any(how[0] == "undo_loop" for how in tape[3]):
                last = {id(tv[p]): tv[m + p] for p in range(m)}

            def at_k(t):
                if id(t) in last:
                    return last[id(t)]
                return rb.create("tensor.slice", [t, row], {"spec": [["i", 0]] + _full_spec(
                    t.type.shape[1:])}).result
            for v, pos in tape[3][-1][1]:  # the trip's products, read from the tape
                rs[v] = at_k(tv[pos])
            for i, (c, how) in enumerate(zip(carried, tape[3])):
                if how[0] == "full":
                    rs[c] = at_k(tv[how[1]])
                    continue
                s_arg = blk.add_arg(c.type, "state")
                if how[0] == "undo_loop":
                    v = self._undo_inner(rb, s_arg, tv, row, how, op.loc, rs, ivs)
                    _, m_in, _, loop, base, ntv, ridx, inner_plan = how
                    if loop not in rs.tapes:
                        rs.tapes[loop] = ("tape", [at_k(tv[base + p]) for p in range(ntv)],
                                          m_in, inner_plan)
                    rs.preset.setdefault(loop, {})[ridx] = s_arg
                    undo_keys.append((len(extra), loop, ridx))
                else:
                    v = s_arg
                    for u, pos_old, pos_idx in reversed(how[1]):
                        v = rb.create("tensor.update_slice",
                                      [v, at_k(tv[pos_old])] + [index(p) for p in pos_idx],
                                      E.index_attrs(u)).result
                rs[c] = v  # the array as trip k found it, carried on to trip k - 1
                undo_idx.append(i)
                extra.append((scope[op.results[i]], s_arg, v))
        else:
            self.recomputed += 1
            state = self._emit_steps(op, scope, rb, k, [scope[v] for v in inits])
            for c, s in zip(carried, state):
                rs[c] = s
        if is_for:
            rs[body.args[0]] = self._iv_at(op, scope, rb, k)
        self.trip_sinks.append([])
        self.step_blocks.add(blk)
        self.emit_block(body, rs, rb)
        radj = {v: a for v, a in zip(outer, acc)}
        for i, ct in zip(act, ct_c):
            self._accumulate(rb, radj, yields[i], ct)
        self.sweep(body, rs, rb, radj)
        counts = self.trip_sinks.pop()
        out = [radj.get(carried[i]) for i in act]
        out = [o if o is not None else E.zeros(rb, carried[i].type) for o, i in zip(out, act)]
        out += [radj[v] for v in outer]
        for e, loop, ridx in undo_keys:
            # the inner loop's reverse pass undid its writes already: the array as the trip
            # found it, without the undo loop (dead then, unless the step reads the array)
            done = rs.undone.get(loop, {}).get(ridx)
            if done is not None:
                extra[e] = extra[e][:2] + (done,)
        out += [y for _, _, y in extra]
        if states is not None:  # the steps after a peeled one go on from its states
            extra = [(s, a, y) for s, (_, a, y) in zip(states, extra)]
        state_inits = [init for init, _, _ in extra]
        types = [v.type for v in ct_c + acc] + [a.type for _, a, _ in extra]
        if counts:  # the most trips a taped while inside took, over the reverse steps
            out.append(_max_of(rb, [blk.add_arg(_COUNT, "max_trips")] + counts))
            state_inits.append(b.constant(0, _COUNT.dtype))
            types.append(_COUNT)
        rb.create("loop.yield", out)
        rev = Operation("loop.for", [lo, hi, b.constant(1, idt)] + ct_inits +
                        acc_inits + state_inits, types, {}, [Region(blk)], op.loc)
        b.block.append(rev)
        res = rev.results
        if counts:
            self.trip_sinks[-1].append(res[-1])
        na, no = len(act), len(outer)
        if len(undo_idx) == len(extra):
            scope.undone[op] = {ci: res[na + no + e] for e, ci in enumerate(undo_idx)}
        return res[:na], res[na:na + no], res[na + no:na + no + len(extra)]

    def _undo_inner(self, rb: Builder, state: Value, tv, row: Value, how, loc, rs: Scope,
                    ivs: dict) -> Value:
        """``state`` with an inner loop's writes of trip ``row`` undone, its trips in
        reverse: each write's slot set back to the old value the tape holds (``tv[p]`` has
        shape ``(trips, m, ...)``); a rebuilt index (``("re", d)``) from the inner loop's
        induction variable at its trip ``ii`` and the outer ones in ``ivs``."""
        _, m, entries, loop = how[:4]
        idt = row.type.dtype
        blk = Block()
        ib = Builder(blk)
        i = blk.add_arg(TensorType((), idt), "i")
        v = blk.add_arg(state.type, "state")
        ii = ib.one("tensor.sub", ib.constant(m - 1, idt), i)
        memo: dict = {}
        inner_ivs = dict(ivs)
        if any(isinstance(p, tuple) for _, _, pos_idx in entries for p in pos_idx):
            lb, step = (self._rebuild(x, ib, rs, ivs, memo) for x in
                        (loop.operands[0], loop.operands[2]))
            kk = ii if ii.type.dtype == lb.type.dtype else \
                ib.one("tensor.convert", ii, dtype=lb.type.dtype)
            inner_ivs[loop.regions[0].block.args[0]] = ib.one(
                "tensor.add", lb, ib.one("tensor.mul", kk, step))

        def at(t):
            return ib.create("tensor.slice", [t, row, ii], {"spec": [["i", 0], ["i", 1]] +
                                                            _full_spec(t.type.shape[2:])}).result

        def index(p):
            if isinstance(p, tuple):
                return self._rebuild(p[1], ib, rs, inner_ivs, memo)
            return at(tv[p])
        for u, pos_old, pos_idx in reversed(entries):
            v = ib.create("tensor.update_slice", [v, at(tv[pos_old])] +
                          [index(p) for p in pos_idx], E.index_attrs(u)).result
        ib.create("loop.yield", [v])
        undo = Operation("loop.for", [rb.constant(0, idt), rb.constant(m, idt),
                                      rb.constant(1, idt), state], [state.type], {},
                         [Region(blk)], loc)
        rb.block.append(undo)
        return undo.results[0]

    def reverse_if(self, op, scope, b, adj, cts) -> None:
        blocks = [r.block for r in op.regions]
        outer = self._outer_uses(blocks)
        if not outer:
            return
        regions, branches = [], []
        for blk_src in blocks:
            blk = Block()
            rb = Builder(blk)
            rs = Scope(scope)
            self.trip_sinks.append([])
            self.step_blocks.add(blk)
            self.emit_block(blk_src, rs, rb)
            radj: dict = {}
            for y, ct in zip(blk_src.terminator.operands, cts):
                self._accumulate(rb, radj, y, ct)
            self.sweep(blk_src, rs, rb, radj)
            branches.append((rb, [radj.get(v) if radj.get(v) is not None
                                  else E.zeros(rb, v.type) for v in outer],
                             self.trip_sinks.pop()))
            regions.append(Region(blk))
        counted = any(c for _, _, c in branches)
        for rb, out, counts in branches:  # a branch without taped whiles reports 0 trips
            if counted:
                out.append(_max_of(rb, counts) if counts else rb.constant(0, _COUNT.dtype))
            rb.create("loop.yield", out)
        new = Operation("loop.if", [scope[op.operands[0]]],
                        [v.type for v in outer] + ([_COUNT] if counted else []), {},
                        regions, op.loc)
        b.block.append(new)
        if counted:
            self.trip_sinks[-1].append(new.results[-1])
        for v, r in zip(outer, new.results):
            self._accumulate(b, adj, v, r)


def vjp_function(fn: Function, wrt: list[int], checkpoints=None,
                 report: dict | None = None,
                 while_capacity: int | None = None) -> tuple[Function, list[int]]:
    """The reverse-mode program of ``fn`` w.r.t. its arguments ``wrt`` (indices).

    Returns ``(g, seeded)``: ``g(*fn.args, *cts) -> (*fn.results, *grads)`` where ``cts`` has
    one cotangent per result index in ``seeded`` (the float results) and ``grads`` one per
    ``wrt`` argument, in order. ``checkpoints``: the checkpointing policy of long loops
    (``checkpoint.snapshots``: None automatic, 0 never, k snapshots; a checkpointed loop
    makes ``g`` take its schedule's tables as more arguments after ``cts``: their values
    are ``report["tables"]``, which ``report`` must be given for). With
    ``while_capacity``, each while loop records a tape of that many trips and ``g`` has more
    results after the grads: trip counts, one per while loop of the function's body and one
    per top-level loop or if holding while loops (the most trips they took); a count above
    the capacity means the run must be repeated with a larger one; their number is
    ``report["while_trips"]``. Without it, the reverse pass of a while loop recomputes
    each trip's state from the loop's start (O(n^2)). ``report`` (a dict),
    when given, receives ``tape_bytes`` (the bytes of every tape buffer ``g`` allocates; a
    tape inside a reverse loop is live one trip at a time, so this bounds the tapes' peak)
    ``checkpointed`` (``(trips, snapshots, forward steps)`` per checkpointed loop: the
    forward sweep and the reverse pass's recomputation, ``checkpoint.binomial_cost + 1``)
    and ``tables``."""
    for k in wrt:
        a = fn.args[k]
        if not (isinstance(a.type, TensorType) and is_float(a.type.dtype)):
            name = fn.arg_names[k] if k < len(fn.arg_names) else f"#{k}"
            raise DifferentiationError(
                f"cannot differentiate with respect to argument {name!r} of type {a.type}: "
                "only float arrays and scalars have gradients")
    from ..backends.base import run_time_shape
    dynamic = run_time_shape(fn)
    if dynamic:
        dynamic = dynamic.replace(" (?)", "")   # (XLA's refusal names the ? type)
        hint = (": write the slice as a loop over its elements (for j in range(lo, hi): "
                "... x[j] ...), which is differentiated" if "slice" in dynamic else "")
        raise DifferentiationError(f"cannot differentiate this function, as {dynamic}, and "
                                   f"run-time shapes are not differentiated yet{hint}")
    g, t, seeded = _build(fn, wrt, checkpoints, while_capacity)
    live = None
    if any(sc is not None for sc in t.schedules.values()):
        # cache only what the reverse pass needs: a loop is checkpointed for the tape its
        # reverse steps read (a linear stencil's reads none), measured on a taped build
        g0, t0, _ = _build(fn, wrt, 0, while_capacity)
        live = _live_per_trip(g0, t0)
        g, t, seeded = _build(fn, wrt, checkpoints, while_capacity, live)
        if not any(sc is not None for sc in t.schedules.values()):
            g, t, live = g0, t0, None
    reads = state_reads(g, t)
    if reads:   # tape the slices the reverse steps read instead of the slots (read_caching)
        g1, t1, _ = _build(fn, wrt, checkpoints, while_capacity, live, reads)
        if tape_bytes(g1, t1) < tape_bytes(g, t):
            g, t = g1, t1
    if report is not None:
        report["tape_bytes"] = tape_bytes(g, t)
        report["checkpointed"] = [(sc.n, sc.c, sc.n + sc.advances)
                                  for sc in t.schedules.values() if sc is not None]
        report["tables"] = [arr for _, arr in t.table_values]
        report["while_trips"] = len(t.while_trips)
        report["recomputed_loops"] = t.recomputed
    # the copies of the primal's loops carry more values (tapes) than their parallel marks
    # were for: none is kept, the gradient pipeline's mark_parallel proves each loop again
    clear_parallel(g)
    return g, seeded


def _build(fn: Function, wrt: list[int], checkpoints, while_capacity, live=None,
           cache_reads=frozenset()):
    """One emission of the reverse-mode program (``vjp_function``), cleaned up:
    ``(g, transformer, seeded)``."""
    t = Transformer(fn, wrt, checkpoints, while_capacity, live, cache_reads)
    body = Block()
    t.fn_block = body
    b = Builder(body)
    scope = Scope()
    for a in fn.args:
        scope[a] = body.add_arg(a.type, a.hint)
    rets = fn.body.terminator.operands
    seeded = [i for i, r in enumerate(rets)
              if isinstance(r.type, TensorType) and is_float(r.type.dtype)]
    ct_args = [body.add_arg(rets[i].type, f"ct{i}") for i in seeded]
    t.emit_block(fn.body, scope, b)
    outs = [scope[r] for r in rets]
    adj: dict = {}
    for i, ct in zip(seeded, ct_args):
        t._accumulate(b, adj, rets[i], ct)
    t.sweep(fn.body, scope, b, adj)
    grads = [adj.get(fn.args[k]) if adj.get(fn.args[k]) is not None
             else E.zeros(b, fn.args[k].type) for k in wrt]
    # the IR's convention for checks as values: a function with ``errors`` returns their code
    # and payload last (the runtime and the native backend's early return read them there)
    errs = outs[-2:] if fn.errors else []
    b.create("func.return", outs[:len(outs) - len(errs)] + grads + t.while_trips + errs)
    names = list(fn.arg_names) + [f"ct{i}" for i in seeded] + [
        name for name, _ in t.table_values]
    g = Function(f"{fn.name}_vjp", body, names, [], list(fn.errors))
    g = dce(g)
    tapes = {loop: set(loop.results[nres:]) for loop, nres in t.taped}
    changed = True
    while changed:  # a dropped carry can leave a tape unread, and a pruned tape a carry
        changed = prune_tapes(g, t.taped)
        if changed:
            g = dce(g)
        while drop_dead_carries(g):
            changed = True
            g = dce(g)
        # the primal results before the tapes, as dropping may have removed some
        t.taped = [(loop, next((i for i, r in enumerate(loop.results) if r in tapes[loop]),
                               len(loop.results))) for loop, _ in t.taped]
    return g, t, seeded


def _live_per_trip(g: Function, t: Transformer) -> dict:
    """Original loop.for -> bytes a trip of its tape takes in the cleaned-up ``g`` (the
    most over its copies; loops whose tapes were all pruned are absent)."""
    live_ops = set(g.walk())
    out: dict = {}
    for loop, nres in t.taped:
        orig = t.taped_orig.get(loop)
        if orig is None or loop not in live_ops or len(loop.results) == nres:
            continue
        per = sum(nbytes(r.type) // max(r.type.shape[0], 1) for r in loop.results[nres:])
        out[orig] = max(out.get(orig, 0), per)
    return out
