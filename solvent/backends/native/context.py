"""The lowering context: LLVM builder, values of IR values, buffers, loops, checks.

Scalars (rank-0 tensors) are LLVM register values; every other tensor is a ``BufRef``: a
pointer to a C-ordered buffer of static shape, assigned by ``bufferize.Plan``. Loop
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
from .types import I1, I32, I64, mem_type, reg_type, is_signed

ERR_INDEX = 0
ERR_ZERO_STEP = 1


@dataclass
class BufRef:
    ptr: ir.Value      # pointer to the first element (element type = mem_type(dtype))
    shape: tuple
    dtype: str

    @property
    def strides(self):
        s, out = 1, []
        for d in reversed(self.shape):
            out.append(s)
            s *= d
        return tuple(reversed(out))


@dataclass
class Lazy:
    """An array value computed element by element where it is read (fusion)."""
    at: object         # idx -> register
    shape: tuple
    dtype: str


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

    def _buffer_pointer(self, buf):
        """The pointer to ``buf``, loaded from the buffer table in the entry block (in a
        parallel chunk, this thread's copy of a private buffer)."""
        ab = self.alloca_builder
        raw = ab.load(ab.gep(self._table, [ir.Constant(I64, buf.id)]))
        ptr = ab.bitcast(raw, ir.PointerType(mem_type(buf.dtype)))
        if buf.copies > 1 and self.tid is not None:
            ptr = ab.gep(ptr, [ab.mul(self.tid, ir.Constant(I64, buf.size))])
        return ptr

    def finish_entry(self):
        self.alloca_builder.branch(self._start)

    # --- values -------------------------------------------------------------------------------
    def buf(self, v: Value) -> BufRef:
        return self.bufs[self.plan.of[v].id]

    def out(self, op: Operation, k: int = 0) -> BufRef:
        """The buffer the bufferization plan gave result ``k`` of ``op``."""
        return self.buf(op.results[k])

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
            if isinstance(i, int):
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
        """Element ``idx`` of a lowered array value (a buffer or a fused computation)."""
        return x.at(idx) if isinstance(x, Lazy) else self.load(x, idx)

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
        if dst.ptr is src.ptr:
            return
        n = 1
        for d in src.shape:
            n *= d
        flat_d = BufRef(dst.ptr, (n,), dst.dtype)
        flat_s = BufRef(src.ptr, (n,), src.dtype)
        self.loop_nest((n,), lambda idx: self.store(flat_d, idx, self.load(flat_s, idx)))

    # --- loops --------------------------------------------------------------------------------
    def counted_loop(self, n, body):
        """``for i in range(n): body(i)`` with ``i`` an i64 register."""
        b = self.b
        if isinstance(n, int):
            if n == 0:
                return
            n = ir.Constant(I64, n)
        iv = self.alloca_builder.alloca(I64)
        b.store(ir.Constant(I64, 0), iv)
        head = self.fn.append_basic_block("n.head")
        loop = self.fn.append_basic_block("n.body")
        done = self.fn.append_basic_block("n.done")
        b.branch(head)
        b.position_at_end(head)
        i = b.load(iv)
        b.cbranch(b.icmp_signed("<", i, n), loop, done)
        b.position_at_end(loop)
        body(i)
        b.store(b.add(i, ir.Constant(I64, 1)), iv)
        b.branch(head)
        b.position_at_end(done)

    def loop_nest(self, shape, body):
        """``body(idx)`` for every index of ``shape`` in C order."""
        def level(d, idx):
            if d == len(shape):
                body(idx)
                return
            self.counted_loop(shape[d], lambda i: level(d + 1, idx + [i]))
        if any(n == 0 for n in shape):
            return
        level(0, [])

    # --- checks -------------------------------------------------------------------------------
    def loc_id(self, op: Operation) -> int:
        self.locs.append(op.loc)
        return len(self.locs) - 1

    def fail_if(self, cond, op, kind, index=None, axis=0, size=0):
        b = self.b
        bad = self.fn.append_basic_block("fail")
        ok = self.fn.append_basic_block("ok")
        b.cbranch(cond, bad, ok)
        b.position_at_end(bad)
        rec = [ir.Constant(I64, self.loc_id(op)), index if index is not None else ir.Constant(I64, 0),
               ir.Constant(I64, axis), ir.Constant(I64, size), ir.Constant(I64, kind)]
        for k, v in enumerate(rec):
            b.store(v, b.gep(self._err, [ir.Constant(I32, k)]))
        b.ret(ir.Constant(I64, 1))
        b.position_at_end(ok)

    def to_i64(self, v, dtype: str):
        if v.type == I64:
            return v
        return self.b.sext(v, I64) if is_signed(dtype) else self.b.zext(v, I64)

    def checked_index(self, op, v, dtype, axis, n):
        """NumPy's integer index: negative wraps once; outside [0, n) raises IndexError."""
        b = self.b
        k = self.to_i64(v, dtype)
        nn = ir.Constant(I64, n)
        k = b.select(b.icmp_signed("<", k, ir.Constant(I64, 0)), b.add(k, nn), k)
        self.fail_if(b.icmp_unsigned(">=", k, nn), op, ERR_INDEX, self.to_i64(v, dtype), axis, n)
        return k

    def clamped_index(self, v, dtype, n):
        """The IR's total index: negative wraps once, then clamped into [0, n)."""
        b = self.b
        k = self.to_i64(v, dtype)
        nn = ir.Constant(I64, n)
        zero = ir.Constant(I64, 0)
        k = b.select(b.icmp_signed("<", k, zero), b.add(k, nn), k)
        k = b.select(b.icmp_signed("<", k, zero), zero, k)
        last = ir.Constant(I64, max(n - 1, 0))
        return b.select(b.icmp_signed(">", k, last), last, k)

    # --- blocks -------------------------------------------------------------------------------
    def lower_block(self, block: Block, args) -> Operation:
        """Lower every op of ``block`` but its terminator, which is returned."""
        for a, v in zip(block.args, args):
            self.env[a] = v
        for op in block.ops[:-1]:
            rule = self.rules.get(op.name)
            if rule is None:
                raise IRError(f"native: no rule for {op.name}")
            outer, self.current = self.current, op
            results = rule(op, self)
            self.current = outer
            for r, v in zip(op.results, results):
                self.env[r] = v
        return block.ops[-1]

