"""The lowering context: LLVM builder, values of IR values, buffers, loops, checks.

Scalars (rank-0 tensors) are LLVM register values; every other tensor is a ``BufRef``: a
pointer to a C-ordered buffer, assigned by ``bufferize.Plan``. A buffer of a value with a
run-time dim (``?``) holds that dim as an i64 register in its ``shape`` (and its strides as
registers too); it is allocated where the op runs (``alloc``), in a slot per op that grows
and is reused each time the op runs again (the value of the previous run is dead by then: a
run-time-shaped value is never carried by a loop), and every slot is freed when the function
leaves (``leave``), on success and on failure. Loop
induction variables and carried scalars live in ``alloca`` slots that LLVM's mem2reg turns
into registers. A failed run-time check stores (location id, index, axis, size, kind) into
the error record and returns 1 at once; the Python wrapper raises from it.
"""
from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ...ir.core import Block, Operation, Value
from ...ir.registry import IRError
from .bufferize import Plan
from .multi_output import emit_group
from .types import I1, I8, I32, I64, mem_type, reg_type, is_signed

# private buffers of a parallel chunk up to this many bytes in all are allocas of the chunk
# function (the pool's threads have the default stack of several MiB)
PRIVATE_STACK_BYTES = 1 << 16

ERR_INDEX = 0
ERR_ZERO_STEP = 1
ERR_MEMORY = 2
# a check that became a value failed (passes/checks_to_values): the record holds its code
# and payload (error_exit.return_if_failed in a parallel chunk, which has no result slots)
ERR_CHECK = 3


def _bytes(dtype: str) -> int:
    from ...ir.types import np_dtype
    return np_dtype(dtype).itemsize


@dataclass
class BufRef:
    ptr: ir.Value      # pointer to the first element (element type = mem_type(dtype))
    shape: tuple       # ints, and i64 registers for run-time dims
    dtype: str
    run_strides: tuple | None = None   # registers, for a buffer with run-time dims
    slot: object = None                # the alloca holding a run-time allocation's pointer

    @property
    def strides(self):
        if self.run_strides is not None:
            return self.run_strides
        s, out = 1, []
        for d in reversed(self.shape):  # static shape
            out.append(s)
            s *= d
        return tuple(reversed(out))


@dataclass
class Lazy:
    """An array value computed element by element where it is read (fusion)."""
    at: object         # idx -> register
    shape: tuple
    dtype: str
    # (pointer to element 0, stride per dim in elements: ints or i64 registers) when the
    # value is a strided window of one buffer (a fused slice): BLAS may read it in place
    view: tuple | None = None


class Ctx:
    def __init__(self, module: ir.Module, fn: ir.Function, plan: Plan, rules: dict):
        self.module = module
        self.fn = fn
        self.plan = plan
        self.rules = rules
        self.env: dict[Value, object] = {}
        self.bufs: dict[int, BufRef] = {}
        entry = fn.append_basic_block("entry")
        self.alloca_builder = ir.IRBuilder(entry)
        body = fn.append_basic_block("start")
        self.b = ir.IRBuilder(body)
        self._entry = entry
        self._start = body
        self.locs: list = []   # location id -> SourceLoc (or None)
        self._table = fn.args[0]
        self._err = fn.args[1]
        self.scratch_bufs: list = []
        # set in the chunk function of a parallel loop (rules_parallel.py): the executing
        # thread's number (private buffers hold one copy per thread), the buffers shared by
        # all threads, and writes into them that the dependence test did not prove disjoint
        self.tid = None
        self.shared: set | None = None
        self.unsafe_writes: list = []
        self.current: Operation | None = None
        # counter of a loop with static bounds -> (first, last) value (rules_control._for)
        self.iv_range: dict = {}
        self.notes: list[str] = []   # for explain: what became of each parallel loop
        # matrix products computed early with an earlier product of the same matrix
        # (matvec_pairs.py) -> their result buffer
        self.paired: dict = {}
        self.dyn_slots: list = []      # allocas of run-time allocations, freed on leaving
        # loops being emitted, innermost last: [has an inner loop, widest element in bits
        # of a vector math call (0: none)]
        self._loops: list[list] = []
        self._exit = None
        self._rc = None
        # error_exit.py: loops carrying the function's error code and payload, and the
        # buffers of those two results (None: the function has no checks as values;
        # error_exit.IN_RECORD in a parallel chunk: a failure goes to the error record)
        self.error_slots: dict = {}
        self.error_ret = None
        self.err_chain: dict = {}   # error_exit.chain_values: code/payload values
        self.cur_err = [None, None]  # their registers at the point being lowered
        self.cur_err_v = [None, None]  # and their IR values
        self.check_exits = True       # NativeBackend's option (error_exit.exit_at_check)
        # errors_first.py: the function's body (set by ``lower`` when it has checks as
        # values), and whether its code returned before anything was written into a
        # caller's array (None: not applicable; False: not yet, or not so)
        self.body = None
        self.errors_first = None
        self.element_memo: dict | None = None   # see ``element``
        self.stack_bytes = 0   # private buffers of a parallel chunk placed on its stack

    def _buffer_pointer(self, buf):
        """The pointer to ``buf``, loaded from the buffer table in the entry block (in a
        parallel chunk, this thread's copy of a private buffer)."""
        ab = self.alloca_builder
        if buf.copies > 1 and self.tid is not None:
            nbytes = buf.size * _bytes(buf.dtype)
            if 0 < nbytes and self.stack_bytes + nbytes <= PRIVATE_STACK_BYTES:
                # a small private buffer lives on this chunk's stack: LLVM then knows it
                # aliases no other buffer, and keeps and vectorizes values in it (a block's
                # tiles and per-thread accumulators of a solvent.kernel)
                self.stack_bytes += nbytes
                slot = ab.alloca(ir.ArrayType(mem_type(buf.dtype), buf.size))
                slot.align = 64
                return ab.bitcast(slot, ir.PointerType(mem_type(buf.dtype)))
        raw = ab.load(ab.gep(self._table, [ir.Constant(I64, buf.id)]))
        ptr = ab.bitcast(raw, ir.PointerType(mem_type(buf.dtype)))
        if buf.copies > 1 and self.tid is not None:
            ptr = ab.gep(ptr, [ab.mul(self.tid, ir.Constant(I64, buf.size))])
        return ptr

    def finish_entry(self):
        self.alloca_builder.branch(self._start)
        if self._exit is not None:
            b = ir.IRBuilder(self._exit)
            free = self._libc("free", ir.VoidType(), [ir.PointerType(I8)])
            for slot, _ in self.dyn_slots:
                b.call(free, [b.load(slot)])
            b.ret(b.load(self._rc))

    def no_width_hint(self) -> None:
        """The loop being emitted gets no vectorization width hint (see ``loop_end``): LLVM
        cannot vectorize it (it leaves early), so the hint would only make LLVM try, and
        print a 'loop not vectorized' remark, which engine.optimize drops."""
        if self._loops:
            self._loops[-1][2] = True

    def leave(self, code: int):
        """Return ``code`` from the function, freeing the run-time allocations first."""
        if self._exit is None:
            self._exit = self.fn.append_basic_block("exit")
            self._rc = self.alloca_builder.alloca(I64, name="rc")
        self.no_width_hint()   # the loop being emitted has an early exit (see ``loop_end``)
        self.b.store(ir.Constant(I64, code), self._rc)
        self.b.branch(self._exit)

    def _libc(self, name, ret, args):
        from .engine import bind_libc
        bind_libc()
        sym = f"solvent_{name}"
        fn = self.module.globals.get(sym)
        return fn if fn is not None else ir.Function(self.module, ir.FunctionType(ret, args), sym)

    # --- run-time shapes ----------------------------------------------------------------------
    def dims(self, v: Value) -> tuple:
        """``v``'s shape at run time: ints, and i64 registers for its ``?`` dims."""
        if v.type.static:
            return v.type.shape
        return tuple(self.get(v).shape)

    def dim(self, v: Value, axis: int):
        d = self.dims(v)[axis]
        return ir.Constant(I64, d) if isinstance(d, int) else d

    def as_value(self, n):
        return ir.Constant(I64, n) if isinstance(n, int) else n

    def smin(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        a, b = self.as_value(a), self.as_value(b)
        return self.b.select(self.b.icmp_signed("<", a, b), a, b)

    def alloc(self, shape, dtype: str) -> BufRef:
        """A C-ordered buffer of run-time ``shape`` (ints and i64 registers), allocated here
        in this op's own slot, which grows when a later run needs more."""
        b, ab = self.b, self.alloca_builder
        i8p = ir.PointerType(I8)
        slot = ab.alloca(i8p)
        cap = ab.alloca(I64)
        ab.store(ir.Constant(i8p, None), slot)
        ab.store(ir.Constant(I64, 0), cap)
        self.dyn_slots.append((slot, cap))
        strides, s = [], ir.Constant(I64, 1)
        for d in reversed(shape):
            strides.append(s)
            s = b.mul(s, self.as_value(d))
        strides.reverse()
        width = ir.Constant(I64, _bytes(dtype))
        need = b.add(b.mul(s, width), ir.Constant(I64, 1))   # never 0 bytes
        grow = self.fn.append_basic_block("alloc.grow")
        done = self.fn.append_basic_block("alloc.done")
        b.cbranch(b.icmp_unsigned(">", need, b.load(cap)), grow, done)
        b.position_at_end(grow)
        b.call(self._libc("free", ir.VoidType(), [i8p]), [b.load(slot)])
        p = b.call(self._libc("malloc", i8p, [I64]), [need])
        b.store(p, slot)
        b.store(need, cap)
        self.fail_if(b.icmp_unsigned("==", p, ir.Constant(i8p, None)), None, ERR_MEMORY)
        b.branch(done)
        b.position_at_end(done)
        ptr = b.bitcast(b.load(slot), ir.PointerType(mem_type(dtype)))
        return BufRef(ptr, tuple(shape), dtype, tuple(strides), slot)

    # --- values -------------------------------------------------------------------------------
    def buf(self, v: Value) -> BufRef:
        return self.bufs[self.plan.of[v].id]

    def out(self, op: Operation, k: int = 0, shape=None) -> BufRef:
        """The buffer the bufferization plan gave result ``k`` of ``op``; for a result with
        a run-time dim, a buffer of run-time ``shape`` allocated here."""
        r = op.results[k]
        if not r.type.static:
            ref = self.alloc(shape, r.type.dtype)
            self.bufs[self.plan.of[r].id] = ref
            return ref
        return self.buf(r)

    def scratch(self, op: Operation, shape, dtype) -> BufRef:
        """A temporary buffer private to ``op`` (allocated by the executable per call)."""
        buf = self.plan.new(shape, dtype)
        if self.tid is not None:
            buf.copies = self.plan.thread_copies
        self.scratch_bufs.append(buf)
        ptr = self._buffer_pointer(buf)
        ref = BufRef(ptr, tuple(shape), dtype)
        self.bufs[buf.id] = ref
        return ref

    def get(self, v: Value):
        """Lowered value of ``v``: a register (scalar), BufRef or Lazy (array)."""
        return self.env[v]

    def slot(self, dtype: str, name=""):
        return self.alloca_builder.alloca(reg_type(dtype), name=name)

    # --- memory -------------------------------------------------------------------------------
    def offset(self, ref: BufRef, idx) -> ir.Value:
        b = self.b
        off = None
        for i, s in zip(idx, ref.strides):
            if not isinstance(s, int):         # a run-time stride
                term = b.mul(self.as_value(i), s)
            elif isinstance(i, int):
                term = ir.Constant(I64, i * s)
            else:
                term = i if s == 1 else b.mul(i, ir.Constant(I64, s))
            off = term if off is None else b.add(off, term)
        return off if off is not None else ir.Constant(I64, 0)

    def load(self, ref: BufRef, idx):
        ptr = self.b.gep(ref.ptr, [self.offset(ref, idx)], inbounds=True)
        v = self.b.load(ptr)
        if ref.dtype == "i1":
            v = self.b.trunc(v, I1)
        return v

    def element(self, x, idx):
        """Element ``idx`` of a lowered array value (a buffer or a fused computation); while
        ``element_memo`` is a dict (the straight-line body of a multi-output loop), each
        fused element is computed once per index."""
        if not isinstance(x, Lazy):
            return self.load(x, idx)
        if self.element_memo is None:
            return x.at(idx)
        key = (id(x), tuple(i if isinstance(i, int) else id(i) for i in idx))
        hit = self.element_memo.get(key)
        if hit is None:   # the index registers are kept with it: their ids stay theirs
            hit = self.element_memo[key] = (x.at(idx), x, tuple(idx))
        return hit[0]

    def store(self, ref: BufRef, idx, value):
        if self.shared is not None and id(ref.ptr) in self.shared and not (
                self.current is not None and self.current.name == "tensor.update_slice"
                and self.current in self.plan.inplace):
            self.unsafe_writes.append(self.current)
        ptr = self.b.gep(ref.ptr, [self.offset(ref, idx)], inbounds=True)
        if ref.dtype == "i1":
            value = self.b.zext(value, mem_type("i1"))
        self.b.store(value, ptr)

    def copy(self, dst: BufRef, src: BufRef):
        if isinstance(src, Lazy) or src.run_strides is not None:
            # a run-time-sized value: element by element, through its own strides
            self.loop_nest(dst.shape, lambda idx: self.store(dst, idx, self.element(src, idx)))
            return
        if dst.ptr is src.ptr:
            return
        n = 1
        for d in src.shape:
            n = n * d if isinstance(n, int) and isinstance(d, int) else \
                self.b.mul(self.as_value(n), self.as_value(d))
        flat_d = BufRef(dst.ptr, (n,), dst.dtype, (1,))
        flat_s = BufRef(src.ptr, (n,), src.dtype, (1,))
        self.loop_nest((n,), lambda idx: self.store(flat_d, idx, self.load(flat_s, idx)))

    # --- loops --------------------------------------------------------------------------------
    def loop_begin(self) -> list:
        """Open a loop's record (see ``loop_end``)."""
        if self._loops:
            self._loops[-1][0] = True
        rec = [False, 0, False]   # holds a loop, widest vector-math element, exits early
        self._loops.append(rec)
        return rec

    def loop_end(self, rec: list, back_edge) -> None:
        """Close a loop: an innermost loop that calls a vector math function (exp, log,
        tanh...) gets a vectorization width hint (``llvm.loop.vectorize.width``). LLVM's cost
        model prices those calls as one scalar call per lane and keeps such loops scalar;
        vectorized, each call becomes one call of the C library's vector variant
        (engine.use_vector_math). Legality is still LLVM's to decide: the hint is not
        ``vectorize.enable``, which makes LLVM print a 'loop not vectorized' warning on the
        user's terminal for every loop it cannot vectorize (a histogram's scatter); a hinted
        loop LLVM cannot vectorize gets a remark, which engine.optimize drops. A loop
        that leaves early (a check that fails: int() of NaN, an index out of range) gets no
        hint: LLVM cannot vectorize it and would print 'Cannot vectorize uncountable loop'."""
        self._loops.pop()
        if rec[1] and not rec[0] and not rec[2]:
            from .engine import vector_math
            vec = vector_math()
            if vec is not None:
                m = self.module

                def hint(key, value):
                    return m.add_metadata([ir.MetaDataString(m, key), value])
                # the widest vectors the host has, for the widest element the loop computes
                width = max(vec.isa) // rec[1]
                md = m.add_metadata([
                    hint("llvm.loop.vectorize.width", ir.Constant(I32, width)),
                    hint("solvent.loop", ir.Constant(I64, len(m.metadata)))])
                back_edge.set_metadata("llvm.loop", md)

    def note_vector_math(self, dtype: str) -> None:
        """The loop being emitted calls a math function with a vector variant on
        ``dtype`` values."""
        if self._loops:
            self._loops[-1][1] = max(self._loops[-1][1], 64 if dtype == "f64" else 32)

    def counted_loop(self, n, body, start=None):
        """``for i in range(n): body(i)`` with ``i`` an i64 register (``range(start, n)``
        with an i64 register ``start``)."""
        b = self.b
        if isinstance(n, int):
            if n == 0:
                return
            n = ir.Constant(I64, n)
        iv = self.alloca_builder.alloca(I64)
        b.store(ir.Constant(I64, 0) if start is None else start, iv)
        head = self.fn.append_basic_block("n.head")
        loop = self.fn.append_basic_block("n.body")
        done = self.fn.append_basic_block("n.done")
        b.branch(head)
        b.position_at_end(head)
        i = b.load(iv)
        b.cbranch(b.icmp_signed("<", i, n), loop, done)
        b.position_at_end(loop)
        rec = self.loop_begin()
        body(i)
        b.store(b.add(i, ir.Constant(I64, 1)), iv)
        self.loop_end(rec, b.branch(head))
        b.position_at_end(done)

    def loop_nest(self, shape, body):
        """``body(idx)`` for every index of ``shape`` in C order."""
        def level(d, idx):
            if d == len(shape):
                body(idx)
                return
            self.counted_loop(shape[d], lambda i: level(d + 1, idx + [i]))
        if any(isinstance(n, int) and n == 0 for n in shape):
            return
        level(0, [])

    # --- checks -------------------------------------------------------------------------------
    def loc_id(self, op: Operation) -> int:
        self.locs.append(op.loc)
        return len(self.locs) - 1

    def fail_if(self, cond, op, kind, index=None, axis=0, size=0, defer: bool = True):
        b = self.b
        bad = self.fn.append_basic_block("fail")
        ok = self.fn.append_basic_block("ok")
        b.cbranch(cond, bad, ok)
        b.position_at_end(bad)
        rec = [ir.Constant(I64, self.loc_id(op)) if op is not None else ir.Constant(I64, -1),
               index if index is not None else ir.Constant(I64, 0),
               ir.Constant(I64, axis), self.as_value(size), ir.Constant(I64, kind)]
        code = self.prior_code() if defer else None
        if code is not None:
            # a check before this one in program order failed already: Python stopped
            # there, so that error is reported, not this one
            from .error_exit import return_if_failed
            return_if_failed(self, code, self.cur_err[1])
        for k, v in enumerate(rec):
            b.store(v, b.gep(self._err, [ir.Constant(I32, k)]))
        self.leave(1)
        b.position_at_end(ok)

    def prior_code(self):
        """The register of the error code threaded through the program (passes/
        checks_to_values) at the point being lowered, or None where it is not followed
        (no checks as values, or not this chain)."""
        code, payload = self.cur_err
        if self.error_ret is not None and isinstance(code, ir.Value) \
                and isinstance(payload, ir.Value):
            return code
        return None

    def to_i64(self, v, dtype: str):
        if v.type == I64:
            return v
        return self.b.sext(v, I64) if is_signed(dtype) else self.b.zext(v, I64)

    def checked_index(self, op, v, dtype, axis, n, defer: bool = True):
        """NumPy's integer index: negative wraps once; outside [0, n) raises IndexError.

        The test is on the index as written, ``-n <= k < n``, before the wrap: that is the
        form the IR's own check flags take (passes/checks_to_values.py), so LLVM sees one
        condition where both exist and, past this branch, folds the flag's update away.

        ``defer``: raise only while no check before it in program order has failed (the
        frontend's check of this same scalar index names the same index); a gather's
        indices are not deferred: the frontend checks an index array as a whole, naming its
        largest or smallest index, where this check names the first bad one, as NumPy."""
        b = self.b
        k = self.to_i64(v, dtype)
        nn = self.as_value(n)
        inside = b.and_(b.icmp_signed(">=", k, b.neg(nn)), b.icmp_signed("<", k, nn))
        code = self.prior_code() if defer else None
        if code is not None:
            # raise only while no earlier check has failed; after one, the program goes on
            # to where the failure is returned (the loop's end, the function's), with the
            # index clamped as the IR's total semantics say, and its payload complete
            clean = b.icmp_signed("==", code, ir.Constant(code.type, 0))
            self.fail_if(b.and_(b.not_(inside), clean), op, ERR_INDEX, k, axis, n)
            if not (isinstance(n, int) and n > 0):
                # an empty axis has no element to clamp to: return the earlier failure now
                from .error_exit import return_if_failed
                with b.if_then(b.and_(b.not_(inside), b.icmp_signed(
                        "==", nn, ir.Constant(I64, 0))), likely=False):
                    return_if_failed(self, code, self.cur_err[1])
            wrapped = b.select(b.icmp_signed("<", k, ir.Constant(I64, 0)), b.add(k, nn), k)
            return b.select(inside, wrapped, self.clamped_index(v, dtype, n))
        self.fail_if(b.not_(inside), op, ERR_INDEX, k, axis, n, defer=defer)
        return b.select(b.icmp_signed("<", k, ir.Constant(I64, 0)), b.add(k, nn), k)

    def clamped_index(self, v, dtype, n):
        """The IR's total index: negative wraps once, then clamped into [0, n)."""
        b = self.b
        k = self.to_i64(v, dtype)
        nn = self.as_value(n)
        zero = ir.Constant(I64, 0)
        k = b.select(b.icmp_signed("<", k, zero), b.add(k, nn), k)
        k = b.select(b.icmp_signed("<", k, zero), zero, k)
        last = ir.Constant(I64, max(n - 1, 0)) if isinstance(n, int) else \
            b.select(b.icmp_signed(">", nn, zero), b.sub(nn, ir.Constant(I64, 1)), zero)
        return b.select(b.icmp_signed(">", k, last), last, k)

    # --- blocks -------------------------------------------------------------------------------
    def lower_block(self, block: Block, args, exits: bool = False) -> Operation:
        """Lower every op of ``block`` but its terminator, which is returned. ``exits``: the
        body of a loop lowered with early returns, which returns at each check as value
        (error_exit.exit_at_check)."""
        saved = list(self.cur_err), list(self.cur_err_v)   # a region's end with it
        for a, v in zip(block.args, args):
            self.env[a] = v
            self._follow_error(a, v)
        top = self.errors_first is False and block is self.body
        for pos, op in enumerate(block.ops[:-1]):
            group = self.plan.groups.get(op)
            if group is not None:   # a multi-output loop, emitted where its last sink is
                if op is group.last:
                    emit_group(self, group)
            else:
                self.lower_op(op)
                if exits and self.check_exits:
                    from .error_exit import exit_at_check
                    exit_at_check(self, block, pos)
            if top and all(v in self.env for v in block.ops[-1].operands[-2:]):
                top = self._return_if_failed(block, pos)
        self.cur_err, self.cur_err_v = saved
        return block.ops[-1]

    def _return_if_failed(self, block: Block, pos: int) -> bool:
        """The function's error code and payload are final after ``block.ops[pos]``:
        return there when the code is nonzero (errors_first.py). Sets ``errors_first``
        to whether nothing in the caller's arrays was written before; returns False."""
        from .error_exit import return_if_failed
        from .errors_first import decided_before_writes, refines_later
        code, payload = (self.env[v] for v in block.ops[-1].operands[-2:])
        if isinstance(code, ir.Value) and isinstance(payload, ir.Value) and \
                not refines_later(block, pos):
            return_if_failed(self, code, payload)
            self.errors_first = decided_before_writes(self.plan, block, pos)
        return False

    def _follow_error(self, value, reg) -> None:
        k = self.err_chain.get(value)
        if k is not None and isinstance(reg, ir.Value):
            self.cur_err[k] = reg
            self.cur_err_v[k] = value

    def lower_op(self, op: Operation) -> None:
        if op in self.plan.summed:   # a product already summed itself into this buffer
            ref = self.buf(op.results[0])       # (accumulate_products.py)
            if self.shared is not None and id(ref.ptr) in self.shared:
                self.unsafe_writes.append(op)
            results = [ref]
        else:
            rule = self.rules.get(op.name)
            if rule is None:
                raise IRError(f"native: no rule for {op.name}")
            outer, self.current = self.current, op
            results = rule(op, self)
            self.current = outer
        for r, v in zip(op.results, results):
            self.env[r] = v
            if self.err_chain:
                self._follow_error(r, v)

