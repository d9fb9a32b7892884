"""Bufferization: every non-scalar tensor value gets a buffer; updates write in place when safe.

Identity relied on: an SSA tensor value is never changed, so ``r = update_slice(x, v, idx)``
may reuse ``x``'s buffer exactly when nothing reads ``x`` after the update. "Nothing reads
``x`` afterwards" is decided on the structured IR: ``x`` is owned by the block of the update
(defined there, or one of its block arguments, or a function argument), appears once among
the operands, and no later op of that block (nor any op nested in one) uses it. A value
defined outside a loop body is never updated in place inside it: the next iteration reads it.

Loop-carried arrays live in one buffer per carried slot: the init's buffer when the init is
dead after the loop (checked as above, also for uses inside the loop's own regions), else a
fresh buffer that the init is copied into once at loop entry. A value the body yields into
a slot (once, defined in the body itself) that would get a new buffer is written into the
slot's buffer instead when no value held there is read at or after its op (the slot's block
argument is dead by then): the next iteration's array is computed where it is read, with no
copy back (a power iteration's ``y = A @ x; x = y / norm``). A yielded value in another
buffer is copied back into the slot at the end of the iteration; yields that would overwrite
a slot another copy still reads (a swap) go through temporary buffers. ``loop.if`` results get
fresh buffers that each branch copies its values into.

An elementwise op writes its result into the buffer of an operand of the result's own shape
and dtype when that operand is dead after it (element k of the result reads only element k
of that operand, so the overwrite never precedes a read): a time step ``A = f(A, ...)``
then needs no temporary and no copy back into the loop slot. An argument's buffer that
nothing else writes is not reused this way (the executable would copy the caller's array
into a new buffer first, which costs more than writing the result into a new buffer),
except by the value written back into that same argument (``y += a * x``): the executable
then computes it in the caller's own array, one pass instead of a new buffer and a copy back.
So is a value written back into an argument nothing reads (``a[:] = b + s * c``).

Function arguments are read in place from the caller's arrays; an argument whose buffer is
written (in place or as a loop slot) is marked ``written`` and the executable copies it into
a fresh array once at entry, so the caller's arrays are never touched.
"""
from __future__ import annotations

from ...ir.core import Block, Function, Operation, Value
from .accumulate_products import find_accumulations
from .multi_output import find_groups
from .unfilled_inits import unfilled_inits


class Buf:
    """A buffer; one with a run-time dim (``dynamic``) is allocated by the native code where
    its op runs, the others by the executable once per call."""
    __slots__ = ("id", "shape", "dtype", "arg", "written", "copies")

    @property
    def dynamic(self) -> bool:
        return None in self.shape

    def __init__(self, id, shape, dtype, arg=None):
        self.id = id
        self.shape = tuple(shape)
        self.dtype = dtype
        self.arg = arg          # IR argument index for an argument's buffer, else None
        self.written = False
        self.copies = 1         # one per thread for a buffer private to a parallel loop body

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __repr__(self):
        return f"<Buf {self.id} {self.shape}{self.dtype} arg={self.arg} w={self.written}>"


def is_array(v: Value) -> bool:
    return len(v.type.shape) > 0


def _uses(op: Operation, v: Value) -> bool:
    return any(v in o.operands for o in op.walk())



# ops cheaper to compute again in each consumer than to write out and read back (np.mgrid's
# coordinate grids: broadcasts of an iota, converted to float)
_RECOMPUTED = frozenset({"tensor.broadcast_to", "tensor.convert", "tensor.iota"})


def _reads_transposed(user: Operation, t: Operation) -> bool:
    """``user`` reads transpose ``t`` only as its matrix operand, and its native rule takes
    that operand transposed (swapping the last two dims) without a copy."""
    from .rules_lapack import TAKES_TRANSPOSED
    perm = list(t.attrs["perm"])
    n = len(perm)
    return user.name in TAKES_TRANSPOSED and n >= 2 and \
        perm == list(range(n - 2)) + [n - 1, n - 2] and \
        user.operands[0] is t.results[0] and \
        all(o is not t.results[0] for o in user.operands[1:])

def _window(op: Operation):
    """The elements a ``tensor.slice`` reads or a ``tensor.update_slice`` writes, up to its
    integer indices, as a hashable key, or None (a run-time slice).

    Two windows of one array with the same key differ at most in their integer indices
    (``["c", k]``, ``["i", j]``: ``Y[:, j]`` and ``Y[:, j - 1]``); every other item is the
    same (a static slice, or a dynamic start of the same operand). Element ``k`` of one and
    element ``k'`` of the other are then the same element of the array only where
    ``k == k'`` (the other items pick distinct elements for distinct ``k``), whatever the
    indices' values: an update computing element ``k`` from element ``k`` of such windows
    reads each element it writes before writing it, and no element it wrote before."""
    spec = op.attrs["spec"]
    dyn = op.operands[1:] if op.name == "tensor.slice" else op.operands[2:]
    items = []
    for it in spec:
        if it[0] in ("c", "i"):
            items.append(("index",))
        elif it[0] == "d":
            items.append(("d", id(dyn[it[1]]), it[2]))
        elif it[0] in ("s", "n"):
            items.append(tuple(it))
        else:
            return None
    return (op.operands[0].type.shape, tuple(items))


def pointwise_gather(op: Operation) -> bool:
    """``table[k]`` for a 1-D ``table`` and one index array ``k`` proven in range
    (``unchecked``: it never raises), all static: element ``i`` of the result reads element
    ``i`` of ``k`` and one element of ``table``, so it fuses like an elementwise op of ``k``
    (np.interp's and np.histogram's lookups of edges and values)."""
    return op.name == "tensor.gather" and bool(op.attrs.get("unchecked")) and \
        len(op.operands) == 2 and op.operands[0].type.rank == 1 and \
        op.results[0].type.static and op.operands[0].type.static and \
        op.operands[1].type.shape == op.results[0].type.shape


def _row_dots(op) -> bool:
    from .rules_linalg import row_dots
    return row_dots(op)


# ops that copy their operands element by element through ``Ctx.element`` into a new
# buffer of their own: an operand may be a fused value computed where it is read
_READ_BY_INDEX = frozenset({"tensor.concatenate", "tensor.transpose", "tensor.slice"})


# reshapes of fewer elements are copied, as before: the copy costs next to nothing, and
# the element-by-element reads of many small ones (a raised convolution's 18 windows of
# 7x16x1 concatenated) made LLVM's compile of conv1d at n = 24 4x slower (55 -> 219 s on a
# loaded host)
VIEW_MIN = 1 << 12


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


# elementwise ops of a few cycles that ``Plan(fn, recompute=k)`` computes again in each
# consumer, as it does ``_RECOMPUTED``, while a value's tree holds at most k of them
_ARITH = frozenset({"tensor.add", "tensor.sub", "tensor.mul", "tensor.neg", "tensor.max",
                    "tensor.min", "tensor.select", "tensor.le", "tensor.ge", "tensor.lt",
                    "tensor.gt", "tensor.abs"})


# a sum of at least this many gemm products (``p1 + p2 + ... + pn``: split_products_native's
# pieces, or written so) is neither fused into its consumer nor a multi-output group's member:
# each add is computed at its place, where accumulate_products makes its product one gemm with
# beta = 1 into the running sum's buffer. Fused, every product wrote a temporary the size of
# the result and the consumer read them all: seven 32 x 16 @ 16 x 19994 products written
# straight (notes/s23/onedot.py) 9.6 -> 5.0 ms, NumPy 8.2 (one thread, CPU time)
SUM_OF_PRODUCTS = 2


def sum_of_products(op: Operation) -> int:
    """How many gemm products (accumulate_products.gemm_once, each read only here) the chain
    of adds ending at ``op`` sums, 0 when ``op`` is not such an add."""
    from .accumulate_products import gemm_once
    if op.name != "tensor.add":
        return 0
    n = 0
    for v in op.operands:
        o = v.owner
        if not isinstance(o, Operation) or v.type != op.results[0].type or \
                len(v.live_uses()) != 1:
            return 0
        if o.name == "tensor.dot_general" and gemm_once(o):
            n += 1
        elif o.name == "tensor.add":
            k = sum_of_products(o)
            if not k:
                return 0
            n += k
        else:
            return 0
    return n


class Plan:
    def __init__(self, fn: Function, recompute: int = 0, multi_output: bool = True):
        """``recompute``: the most ``_ARITH`` ops of a value computed again in each of
        several consumers instead of written out once (0: none; a gradient's adjoints are
        polynomials of a few inputs read by several sums: ``autodiff.api`` passes 16).
        ``multi_output``: form multi-output loops (``multi_output.py``)."""
        self.recompute = recompute
        self.multi_output = multi_output
        self.bufs: list[Buf] = []
        self.of: dict[Value, Buf] = {}
        self.inplace: set[Operation] = set()          # update_slice ops done in place
        self.init_copy: dict[Operation, list[bool]] = {}  # loop op -> per slot: copy init in
        self.swap_tmp: dict[Operation, list] = {}     # yield op -> temp Buf per slot or None
        self.ret_scalar: dict[int, Buf] = {}          # result index -> Buf for a scalar result
        # result index -> (1 + rank,) i64 record of a run-time-shaped result: its address
        # and dims, read by the executable (which copies the result and frees it)
        self.ret_dyn: dict[int, Buf] = {}
        self.reused: set[Operation] = set()           # elementwise ops writing an operand's buffer
        self.into_slot: set[Operation] = set()        # ops writing a loop slot's buffer
        self._slot_dest: dict = {}                    # yielded value -> its slot's Buf
        self.fused: set[Operation] = set()            # computed inside their consumer's loop
        # sink of a multi-output loop -> its group (multi_output.py)
        self.groups: dict = {}
        self._donated: frozenset = frozenset()        # outer values a loop.if branch may reuse
        self.thread_copies = 1                        # copies of a parallel-private buffer
        for i, a in enumerate(fn.args):
            b = self.new(a.type.shape, a.type.dtype, arg=i)
            self.of[a] = b
        self._args = fn.args
        rets = fn.body.terminator.operands
        # result value -> the argument it is written back into (``y += a * x``)
        self._back = {id(rets[r]): k for r, k in enumerate(fn.writeback)
                      if k is not None and r < len(rets)}
        self._block(fn.body, owner_args=True)
        # fills every element of which a loop overwrites before it is read: not run
        self.unfilled: set[Operation] = unfilled_inits(fn, self.init_copy)
        self._fuse(fn.body)
        # product -> the add it sums itself into (accumulate_products.py: gemm, beta = 1)
        self.accumulate: dict[Operation, Operation] = {}
        # product -> the scalar s of an accumulator s * x held as x (gemm, beta = s)
        self.accumulate_beta: dict[Operation, object] = {}
        self.dropped: set[int] = set()   # buffers no value holds any longer
        find_accumulations(self, fn.body)
        self.summed = frozenset(self.accumulate.values())
        for k, v in enumerate(fn.body.terminator.operands):
            if not is_array(v):
                self.ret_scalar[k] = self.new((), v.type.dtype)
            elif not v.type.static:
                self.ret_dyn[k] = self.new((1 + v.type.rank,), "i64")

    def unmaterialized(self) -> set[int]:
        """Ids of the buffers that only fused values were given (``_fuse`` runs after the
        buffers are assigned): nothing reads or writes them, so none is allocated."""
        users: dict[int, list] = {}
        for v, b in self.of.items():
            users.setdefault(b.id, []).append(v)
        return {i for i, vs in users.items() if all(
            isinstance(v.owner, Operation) and v.owner in self.fused for v in vs)} | \
            (self.dropped - set(users))

    def new(self, shape, dtype, arg=None) -> Buf:
        b = Buf(len(self.bufs), shape, dtype, arg)
        self.bufs.append(b)
        return b

    def _unwritten_arg(self, x: Value) -> bool:
        """An argument's buffer nothing writes yet: reusing it would cost a copy of the
        caller's array per call, more than a new buffer."""
        b = self.of[x]
        return b.arg is not None and not b.written

    def _can_reuse(self, block: Block, pos: int, x: Value, owner_args: bool) -> bool:
        op = block.ops[pos]
        if x in self._donated:
            pass
        elif x.owner is block:
            if not owner_args:
                return False
        elif not (isinstance(x.owner, Operation) and x.owner.parent is block):
            return False
        if sum(o is x for o in op.operands) != 1:
            return False
        if any(_uses(inner, x) for r in op.regions for inner in r.block.ops):
            return False
        return not any(_uses(later, x) for later in block.ops[pos + 1:])

    def _block(self, block: Block, owner_args: bool):
        for pos, op in enumerate(block.ops):
            name = op.name
            if name == "tensor.update_slice":
                x = op.operands[0]
                if self._can_reuse(block, pos, x, owner_args):
                    b = self.of[x]
                    self.inplace.add(op)
                else:
                    b = self.new(x.type.shape, x.type.dtype)
                b.written = True
                self.of[op.results[0]] = b
            elif name in ("loop.for", "loop.while"):
                inits = op.operands[3:] if name == "loop.for" else op.operands
                slots, copies = [], []
                for init in inits:
                    if not is_array(init):
                        slots.append(None)
                        copies.append(False)
                        continue
                    if self._can_reuse(block, pos, init, owner_args):
                        b, c = self.of[init], False
                    else:
                        b, c = self.new(init.type.shape, init.type.dtype), True
                    b.written = True
                    slots.append(b)
                    copies.append(c)
                self.init_copy[op] = copies
                for r, b in zip(op.results, slots):
                    if b is not None:
                        self.of[r] = b
                # an array an enclosing if donated is read on every trip of this loop: its
                # body never reuses it (only the carried slots are the loop's own)
                saved, self._donated = self._donated, frozenset()
                if name == "loop.for":
                    body = op.regions[0].block
                    for a, b in zip(body.args[1:], slots):
                        if b is not None:
                            self.of[a] = b
                    self._body(body, slots)
                    self._yield(body.terminator, slots)
                else:
                    cond, body = (r.block for r in op.regions)
                    for blk in (cond, body):
                        for a, b in zip(blk.args, slots):
                            if b is not None:
                                self.of[a] = b
                    self._block(cond, owner_args=False)
                    self._body(body, slots)
                    self._yield(body.terminator, slots)
                self._donated = saved
            elif name == "loop.if":
                self._if(block, pos, op, owner_args)
            elif op.results and is_array(op.results[0]) and self._elementwise(op):
                r = op.results[0]
                k = self._back.get(id(r))
                reuse = None
                a = self._args[k] if k is not None else None
                if a is not None and a.type == r.type and r.type.static and (
                        not a.has_uses or a.owner is block and
                        self._dead_after(block, pos, a, owner_args)) and \
                        self._buffer_unread_after(block, pos, self.of[a]):
                    # ``a[:] = b + s * c``: the old a is never read, or not after this op
                    # (``A -= mean; A *= f`` fused into one op reading A at its own index)
                    reuse = a
                # a carried or donated array first: the result then lives in the loop's
                # slot (``select(d < p, d, p)`` into ``p``, not into ``d`` and copied back)
                order = sorted(op.operands, key=lambda x: not (x.owner is block
                                                               or x in self._donated))
                reuse = reuse or next((x for x in order if x.type == r.type and r.type.static
                                       and (not self._unwritten_arg(x)
                                            or k == self.of[x].arg)
                                       and self._can_reuse(block, pos, x, owner_args)), None)
                slot = self._free_slot(block, pos, r)
                if slot is not None and (reuse is None or self.of[reuse] is not slot):
                    self.of[r] = slot
                    self.into_slot.add(op)
                    continue
                b = self.of[reuse] if reuse is not None else self.new(r.type.shape, r.type.dtype)
                if reuse is not None:
                    b.written = True
                    self.reused.add(op)
                self.of[r] = b
            else:
                for region in op.regions:  # pragma: no cover - no other op has regions today
                    self._block(region.block, owner_args=False)
                for r in op.results:
                    if is_array(r):
                        slot = self._free_slot(block, pos, r) if len(op.results) == 1 and \
                            not op.regions else None
                        if slot is not None:
                            self.into_slot.add(op)
                        self.of[r] = slot or self.new(r.type.shape, r.type.dtype)

    def _body(self, body: Block, slots: list):
        """A loop body whose terminator yields into ``slots`` (a Buf or None per slot)."""
        term = body.terminator
        dest = {}
        for v, b in zip(term.operands, slots):
            if b is not None and isinstance(v.owner, Operation) and v.owner.parent is body \
                    and sum(o is v for o in term.operands) == 1 and v.type.static and \
                    (tuple(v.type.shape), v.type.dtype) == (b.shape, b.dtype):
                dest[v] = b
        saved, self._slot_dest = self._slot_dest, dest
        self._block(body, owner_args=True)
        self._slot_dest = saved

    def _free_slot(self, block: Block, pos: int, r: Value):
        """The slot buffer ``r`` (a result of ``block.ops[pos]``) is yielded into, when no
        value held in it is read by that op or after it (nested reads included), else None.
        The op then writes the next iteration's array where the loop keeps it."""
        b = self._slot_dest.get(r)
        if b is None:
            return None
        held = {id(v) for v, hb in self.of.items() if hb is b}
        for later in block.ops[pos:]:
            if any(id(o) in held for w in later.walk() for o in w.operands):
                return None
        del self._slot_dest[r]
        return b

    def _if(self, block: Block, pos: int, op: Operation, owner_args: bool):
        """``loop.if``: an outer array dead after the if is donated to the branches, which
        may update it in place; a result both branches yield in the donated buffer (or that
        one branch yields there and the other copies into) lives in it, so an ``if`` that
        writes one element of an array costs one element, not a copy of the array."""
        inner = {r for o in op.walk() if o is not op for r in o.results}
        inner |= {a for o in op.walk() for rg in o.regions for a in rg.block.args}
        outer = {v for o in op.walk() if o is not op for v in o.operands
                 if v not in inner and is_array(v)}
        donated = {x for x in outer if self._dead_after(block, pos, x, owner_args)}
        saved = self._donated
        self._donated = saved | donated
        for region in op.regions:
            self._block(region.block, owner_args=False)
        self._donated = saved
        terms = [r.block.terminator for r in op.regions]
        donated_bufs = {id(self.of[x]) for x in donated}
        taken = set()
        for k, r in enumerate(op.results):
            if not is_array(r):
                continue
            chosen = None
            for t in terms:
                bk = self.of.get(t.operands[k])
                if bk is None or id(bk) not in donated_bufs or id(bk) in taken:
                    continue
                if all(self.of.get(v) is not bk for t2 in terms
                       for j, v in enumerate(t2.operands) if j != k and is_array(v)):
                    chosen = bk
                    break
            if chosen is None:
                chosen = self.new(r.type.shape, r.type.dtype)
            chosen.written = True
            taken.add(id(chosen))
            self.of[r] = chosen

    def _buffer_unread_after(self, block: Block, pos: int, buf: Buf) -> bool:
        """No op after ``block.ops[pos]`` reads a value that lives in ``buf``: an argument's
        buffer that an earlier update changed in place holds that update's result, which a
        later op may still read (``A[0] += 1; A[:] *= A - 1; s = (A * (A - 1)).sum()``)."""
        held = [v for v, b in self.of.items() if b is buf]
        return not any(_uses(later, v) for later in block.ops[pos + 1:] for v in held)

    def _dead_after(self, block: Block, pos: int, x: Value, owner_args: bool) -> bool:
        if x in self._donated:
            pass
        elif x.owner is block:
            if not owner_args:
                return False
        elif not (isinstance(x.owner, Operation) and x.owner.parent is block):
            return False
        return not any(_uses(later, x) for later in block.ops[pos + 1:])

    # --- fusion -------------------------------------------------------------------------------
    def _fuse(self, block: Block):
        """Mark array-valued elementwise ops, slices and iotas that are computed element by
        element inside their only consumer's loop instead of into a buffer.

        Identity: ``y = g(f(x))`` elementwise equals computing ``f`` at each index inside
        ``g``'s loop, provided ``x``'s buffers hold the same contents there: no op between
        the two writes into an existing buffer, and the consumer itself does not write in
        place into a buffer the fused computation reads at another index (its write at one
        index could precede that read); an elementwise consumer may write in place into a
        buffer the fused computation reads only at the consumer's own index (``select(d <
        p, d, p)`` into ``p``). The consumer must iterate over exactly the fused value's
        shape (a broadcast would recompute it). A ``pointwise_gather`` fuses both ways: it
        is computed in its consumer's loop, and its index inside it. A value of
        ``_RECOMPUTED`` ops only (a
        broadcast, a conversion, an iota: no arithmetic) is fused into each of several
        consumers the same way, computed again in each."""
        from .rules_elementwise import ELEMENTWISE
        leaves: dict[Operation, set] = {}
        windows: dict[Operation, dict] = {}
        cheap: dict[Operation, bool] = {}
        size: dict = {}
        for pos, op in enumerate(block.ops):
            for region in op.regions:
                self._fuse(region.block)
            if not (op.results and len(op.results) == 1 and is_array(op.results[0])):
                continue
            if op.name == "tensor.transpose" or (op.name == "tensor.conj"
                                                 and op.results[0].type.dtype[0] == "c"):
                self._fuse_transpose(block, pos, op)
                continue
            if op.name not in ELEMENTWISE and op.name not in ("tensor.slice", "tensor.iota") \
                    and not pointwise_gather(op) and not self._view_reshape(op):
                continue
            if sum_of_products(op) >= SUM_OF_PRODUCTS:
                continue   # summed into one buffer by gemm instead (accumulate_products)
            r = op.results[0]
            # the buffers the fused computation reads: at its own index (an elementwise
            # operand of its full shape: ``aligned``) or at other indices (a slice, a
            # broadcast operand: ``shifted``)
            aligned, shifted = set(), set()
            # shifted buffer -> the windows it is read through (a static slice's spec,
            # None for any other read at other indices): see ``_fusable_into``
            win: dict = {}
            for o in op.operands:
                same = (op.name in ELEMENTWISE or pointwise_gather(op) and
                        o is op.operands[1]) and o.type.shape == r.type.shape
                if isinstance(o.owner, Operation) and o.owner in self.fused:
                    al, sh = leaves[o.owner]
                    (aligned if same else shifted).update(al)
                    shifted |= sh
                    for b in (sh if same else al | sh):
                        win.setdefault(b, set()).update(
                            windows[o.owner].get(b, {None}) if same else {None})
                elif is_array(o):
                    b = id(self.of[o])
                    (aligned if same else shifted).add(b)
                    if not same:
                        win.setdefault(b, set()).add(
                            _window(op) if op.name == "tensor.slice" else None)
            leaves[op] = aligned, shifted
            windows[op] = win
            mine = aligned | shifted
            cheap[op] = op.name in _RECOMPUTED and all(
                o.owner in cheap and cheap[o.owner] for o in op.operands
                if isinstance(o.owner, Operation) and o.owner in self.fused)
            if self.recompute and op.name in _ARITH:
                size[op] = 1 + sum(size.get(o.owner, 0) for o in op.operands
                                   if isinstance(o.owner, Operation) and o.owner in self.fused)
                cheap[op] = cheap[op] or (size[op] <= self.recompute and all(
                    o.owner in cheap and (cheap[o.owner] or o.owner in size)
                    for o in op.operands
                    if isinstance(o.owner, Operation) and o.owner in self.fused))
            # tensor.dim reads only the length, which a fused value carries too
            users = [(k, u) for k, u in enumerate(block.ops) if k > pos and _uses(u, r)
                     and u.name != "tensor.dim"]
            # a cheap value (a broadcast, a conversion) is recomputed in each of its users
            # rather than written out and read back
            if not users or len(users) > 1 and not (cheap[op] or
                                                    self._feeds_one(block, users, r) or
                                                    self._read_twice(op, users)):
                continue
            if not all(self._fusable_into(u, r, aligned, shifted, ELEMENTWISE, win)
                       for _, u in users):
                continue
            if any(self._writes_into(w, mine) for w in block.ops[pos + 1:users[-1][0]]):
                continue
            self.fused.add(op)
        if self.multi_output:
            find_groups(self, block)

    def _read_twice(self, op, users: list) -> bool:
        """One arithmetic op of stored arrays (or views of them) read by two consumers: it
        is computed again in both. Written out once it costs a write and two reads of the
        result; computed twice, a second read of its operands (a layer norm's ``x - mean``,
        read by the row sums of its squares and by the affine map: no [b, i, j] temporary)."""
        return len(users) == 2 and op.name in _ARITH and all(
            not (isinstance(o.owner, Operation) and o.owner in self.fused) or
            self._view_reshape(o.owner) for o in op.operands)

    def _view_reshape(self, op) -> bool:
        """A static reshape of a stored array (not itself fused): read in its consumer at
        the flat offset of each element (the same offset in the source's C order), not
        copied into a buffer of its own; np.stack's unit axes and the reshape of a
        transposed copy (array_ops: each reshape was a full copy)."""
        if op.name != "tensor.reshape":
            return False
        x, r = op.operands[0], op.results[0]
        return x.type.rank > 0 and r.type.rank > 0 and x.type.static and r.type.static and \
            _count(r.type.shape) >= VIEW_MIN and not (
                isinstance(x.owner, Operation) and x.owner in self.fused)

    def _writes_into(self, op, bufs: set) -> bool:
        """Whether ``op`` may write into one of the buffers ``bufs`` (ids) that existed
        before it (a loop: into any)."""
        if not self._writes(op):
            return False
        return op.name in ("loop.for", "loop.while") or not op.results or \
            id(self.of.get(op.results[0])) in bufs

    def _fusable_into(self, user: Operation, r: Value, aligned: set, shifted: set,
                      elementwise, win: dict | None = None) -> bool:
        """Whether ``user`` may compute ``r`` element by element where it reads it.

        An update written in place may read the buffer it writes only through the window
        it writes (``ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])``: element ``k`` of the
        value reads ``ey`` exactly where element ``k`` is then written, and nowhere
        else), as a static slice of the same spec."""
        if sum(o is r for o in user.operands) != 1 and not (
                user.name == "tensor.dot_general" and all(o is r for o in user.operands)
                and _row_dots(user)):
            return False   # (x * x summed per row reads each element of x twice, in place)
        if user.name in elementwise:
            ok = user.results[0].type.shape == r.type.shape
        elif user.name == "tensor.update_slice":
            ok = user.operands[1] is r
        elif user.name.startswith("tensor.reduce_"):
            ok = True
        elif user.name in _READ_BY_INDEX:   # each element read once where it is copied
            # (a large window concatenated: read in place, not first copied out; small
            # ones stay copies, for LLVM's compile time as VIEW_MIN's reshapes)
            ok = (r.owner.name == "tensor.reshape" or r.owner.name == "tensor.slice" and
                  user.name == "tensor.concatenate" and _count(r.type.shape) >= VIEW_MIN) \
                and all(o.type.static for o in user.operands)
        elif user.name == "tensor.dot_general":   # the run-time-length vector dot, row dots,
            # a window BLAS reads in place, a scaled operand whose scalar is BLAS's alpha
            from .rules_linalg import blas_scaled, blas_window, row_dots
            ok = not all(u.type.static for u in user.operands) or row_dots(user) or \
                blas_window(r.owner) or blas_scaled(r.owner)
        elif pointwise_gather(user):   # the index, read at the result's own position
            ok = user.operands[1] is r
        else:
            ok = False
        # an elementwise consumer writing in place writes element k after reading
        # element k: an aligned read of that buffer still sees the old element
        unsafe = shifted if user.name in elementwise else aligned | shifted
        if user.name == "tensor.update_slice" and win and _window(user) is not None:
            unsafe = unsafe - {b for b in shifted - aligned
                               if win.get(b) == {_window(user)}}
        return ok and not (self._writes(user) and id(self.of[user.results[0]]) in unsafe)

    def _feeds_one(self, block: Block, users: list, r: Value) -> bool:
        """Several users of ``r`` whose values all end in one last op, through elementwise
        steps of ``r``'s shape (and pointwise gathers indexed by them): ``d`` in
        ``select(d < p, d, p)``, np.interp's bin ``k`` read by ``x[k - 1]``, ``x[k]``,
        ``f[k - 1]``, ``f[k]``. Computing ``r`` inside the last op's loop serves them all
        (the repeated element is one expression for LLVM)."""
        from .rules_elementwise import ELEMENTWISE
        derived = {id(r)}   # r and the steps' values computed from it
        readers = []
        for u in block.ops[users[0][0]:]:
            if not any(id(o) in derived for w in u.walk() for o in w.operands):
                continue
            readers.append(u)
            step = len(u.results) == 1 and u.results[0].type.shape == r.type.shape and (
                u.name in ELEMENTWISE or pointwise_gather(u) and
                id(u.operands[0]) not in derived)
            if step:
                derived.add(id(u.results[0]))
        steps = [u for u in readers if u.results and id(u.results[0]) in derived]
        others = [u for u in readers if not (u.results and id(u.results[0]) in derived)]
        if not others:
            return True
        # the values end in the last step (every other reader reads only its result: the
        # reshape or return of np.interp's answer) or in one last op reading them all
        if steps:
            end = steps[-1].results[0]
            if all(o is end for u in others for w in u.walk() for o in w.operands
                   if id(o) in derived):
                return True
        last = others[0]
        return len(others) == 1 and last is readers[-1] and (
            last.name == "tensor.update_slice" or last.name.startswith("tensor.reduce_"))

    def _fuse_transpose(self, block: Block, pos: int, op: Operation):
        """A transpose whose only uses are matrix products (or solvers that take a transposed
        matrix as it is, ``rules_lapack.TAKES_TRANSPOSED``) is not materialized: each user
        reads the source with the permutation composed into its own layout choice (a BLAS
        or LAPACK transpose flag; X.T @ X and X.T @ y of one X stay a syrk and a gemv).
        The same for the conjugate of a complex matrix read only by products: BLAS's 'C'
        flag, or a conjugated copy in the layout the product needs (complex_products.py)."""
        r = op.results[0]
        users = [(k, u) for k, u in enumerate(block.ops) if k > pos and _uses(u, r)]
        if not users or not r.type.static or not all(
                u.name == "tensor.dot_general" or op.name == "tensor.transpose" and
                _reads_transposed(u, op) for _, u in users):
            return
        x = op.operands[0]
        if isinstance(x.owner, Operation) and x.owner in self.fused:
            return   # read element by element (a reshape's view): the transpose is copied
        k = users[-1][0]
        src = self.of.get(x)
        if any(self._writes(w) and (w.name in ("loop.for", "loop.while")
                                    or src is None or self.of.get(w.results[0]) is src)
               for w in block.ops[pos + 1:k]):
            return
        self.fused.add(op)

    def _writes(self, op) -> bool:
        """Whether ``op`` may write into a buffer that existed before it."""
        return op in self.inplace or op in self.reused or op in self.into_slot or \
            op.name in ("loop.for", "loop.while")

    @staticmethod
    def _elementwise(op) -> bool:
        from .rules_elementwise import ELEMENTWISE
        return op.name in ELEMENTWISE

    def _yield(self, term: Operation, slots: list):
        srcs = [self.of.get(v) if b is not None else None for v, b in zip(term.operands, slots)]
        moving = {id(s) for s, d in zip(srcs, slots) if d is not None and s is not d}
        dsts = {id(d) for s, d in zip(srcs, slots) if d is not None and s is not d}
        if moving & dsts:
            self.swap_tmp[term] = [self.new(d.shape, d.dtype) if d is not None and s is not d
                                   and id(s) in dsts else None for s, d in zip(srcs, slots)]
