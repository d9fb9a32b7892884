"""Parallel ``loop.for`` (``parallel = true``, set by passes/mark_parallel.py): the body is
outlined into a chunk function and the iteration range runs in chunks on the thread pool.

The chunk function ``chunk(env, lo, hi, c, tid, err) -> i64`` runs iterations ``k`` in
``[lo, hi)`` (``iv = lb + k * step``) of chunk ``c`` on thread ``tid``; ``env`` holds what the
body reads from outside (scalars, the buffer table, the partial results' arrays).
threads.py's ``solvent_par_for`` decides at run time whether the loop is worth the pool
(``trip * body_cost`` against the threshold) and how many chunks run; this module emits:

- **Carried arrays** (combiner ``shared``) stay in their loop slot, shared by all threads:
  the dependence test proved that iterations write disjoint elements. The lowering checks
  that bufferization kept every write to them in place (an ``update_slice`` into the slot);
  a whole-array copy into a shared buffer, which a race could tear, makes the loop run
  sequentially instead.
- **Arrays made inside the body** get one private copy per thread (``Buf.copies``).
- **Carried scalars** keep per-chunk partials: chunk 0 starts from the init, later chunks
  from the combiner's identity; the caller folds the partials in chunk order. Reductions
  are exact for integers, booleans, max and min; float sums and products are reassociated
  (the rounding differs from the sequential loop, deterministically for a given thread
  count). ``last`` takes the last chunk's value; the run-time check flags that
  checks_to_values threads through loops (``first_error`` with its ``error_payload``) take
  the first chunk whose flag is set: the first failure in iteration order.
- **Nested parallel loops**: only the outermost runs on the pool; loops inside a chunk are
  lowered sequentially.

Run-time checks that stop the program (index out of bounds) fail the chunk; threads.py
returns the lowest failing chunk's record, the error sequential execution raises first.
"""
from __future__ import annotations

from llvmlite import ir

from ...analysis.work import MAX_COST, body_cost, static_int as _static_int
from ...ir.core import Operation
from ...ops.control import FOLDS
from .bufferize import is_array
from .rules_elementwise import ELEMENTWISE
from .context import BufRef, Ctx
from .types import I64, const, is_float, is_signed, reg_type
from . import error_exit, scalar_math
from . import threads

CHUNK_TYPE = ir.FunctionType(I64, [ir.PointerType(ir.IntType(8)), I64, I64, I64, I64,
                                   ir.PointerType(I64)])
_PAR_FOR = ir.FunctionType(I64, [ir.PointerType(CHUNK_TYPE), ir.PointerType(ir.IntType(8)),
                                 I64, I64, ir.PointerType(I64), I64])
# chunk boundaries of an innermost parallel loop (one LLVM may vectorize) are multiples of
# this, a multiple of every vector width x interleave count: each iteration then falls in
# the vector body or the scalar rest as in the sequential loop, and a vector math function
# (sin, exp) and its scalar libm twin, which may differ in the last bit, see the same
# iterations (the same bits as a one-thread run)
VECTOR_ALIGN = 64

# a reduction's combiner is the tensor op that folds two partials (scalar_math.BINARY)
SCALAR_COMBINERS = frozenset(FOLDS) | {"last", "first_error", "error_payload"}


def _identity(comb: str, dt: str):
    if comb in ("tensor.add", "tensor.or", "tensor.xor", "tensor.bitor", "tensor.bitxor",
                "first_error", "error_payload"):
        return const(dt, -0.0) if is_float(dt) else const(dt, 0)
    if comb == "tensor.mul":
        return const(dt, 1)
    if comb in ("tensor.and", "tensor.bitand"):
        return const(dt, -1) if dt != "i1" else const(dt, 1)
    big = comb in ("tensor.min", "tensor.fmin")
    if is_float(dt):
        return const(dt, float("inf") if big else float("-inf"))
    if dt == "i1":
        return const(dt, 1 if big else 0)
    w = reg_type(dt).width
    if is_signed(dt):
        return const(dt, (1 << (w - 1)) - 1 if big else -(1 << (w - 1)))
    return const(dt, (1 << w) - 1 if big else 0)


def _fold(ctx, comb: str, dt: str, a, b):
    return scalar_math.BINARY[comb.split(".", 1)[1]](ctx, dt, a, b)


# --- lowering ----------------------------------------------------------------------------------
def _free_values(op: Operation) -> list:
    """Values defined outside ``op`` that its regions read, in first-use order."""
    inside = set()
    for inner in op.walk():
        for r in inner.regions:
            inside.update(r.block.args)
        if inner is not op:
            inside.update(inner.results)
    seen, out = set(), []
    for inner in op.walk():
        if inner is op:
            continue
        for v in inner.operands:
            if v not in inside and v not in seen:
                seen.add(v)
                out.append(v)
    return out


def _combiners(op: Operation) -> list | None:
    inits = op.operands[3:]
    comb = op.attrs.get("combiners")
    if comb is None:
        comb = ["shared"] * len(inits)
    if len(comb) != len(inits):
        return None
    for c, v in zip(comb, inits):
        if is_array(v) != (c == "shared"):
            return None
        if not is_array(v) and c not in SCALAR_COMBINERS:
            return None
    if (comb.count("first_error"), comb.count("error_payload")) not in ((0, 0), (1, 1)):
        return None
    return list(comb)


def _private_bufs(op: Operation, plan) -> set | None:
    """Buffers of values made inside the body and of no value outside it; None when one has
    a shape known only at run time."""
    inner_vals = set()
    for inner in op.walk():
        if inner is not op:
            inner_vals.update(inner.results)
            for r in inner.regions:
                inner_vals.update(r.block.args)
    outer = {id(b) for v, b in plan.of.items() if v not in inner_vals}
    out = set()
    for v in inner_vals:
        b = plan.of.get(v)
        if b is not None and id(b) not in outer:
            if not all(isinstance(d, int) for d in b.shape):
                return None
            out.add(b)
    return out


def lower_parallel(op: Operation, ctx: Ctx):
    """The results of parallel ``loop.for`` ``op``, or None when it must run sequentially
    here (the caller then lowers it as an ordinary loop; nothing has been emitted into the
    current function). Either way, a line for ``explain`` goes to ``ctx.notes``."""
    where = f"line {op.loc.line}" if op.loc is not None else "a loop"
    why = _sequential_reason(op, ctx)
    if why is None:
        copies = threads.max_threads()
        before = ctx.plan.thread_copies
        ctx.plan.thread_copies = copies
        private = [(b, b.copies) for b in _private_bufs(op, ctx.plan)]
        for b, _ in private:
            b.copies = copies
        chunk = _emit_chunk(op, ctx, _combiners(op), _free_values(op),
                            _static_int(op.operands[2]))
        if chunk is not None:
            cost = min(body_cost(op.regions[0].block), MAX_COST)
            ctx.notes.append(f"{where}: parallel loop on the thread pool when its trip count "
                             f"x {cost} (estimated body cost) >= the threshold")
            return _emit_call(op, ctx, _combiners(op), *chunk, _static_int(op.operands[2]))
        # the loop runs sequentially after all: its arrays are one buffer each again (a
        # parallel loop nested in it, which now runs on the pool, gave each of its threads
        # its own copy of them, while the code around it used copy 0)
        ctx.plan.thread_copies = before
        for b, was in private:
            b.copies = was
        why = "the body writes a shared array other than element by element in place"
    ctx.notes.append(f"{where}: marked parallel, runs sequentially: {why}")
    return None


def _sequential_reason(op: Operation, ctx: Ctx) -> str | None:
    if ctx.tid is not None:
        return "nested in a loop that runs on the pool (the outermost one does)"
    if not _static_int(op.operands[2]):
        return "the step is not a constant"
    if _combiners(op) is None:
        return "a combiner the native backend does not fold (an array reduction)"
    body = op.regions[0].block
    plan = ctx.plan
    for k, v in enumerate(op.operands[3:]):
        if is_array(v) and plan.of.get(body.terminator.operands[k]) is not plan.of[op.results[k]]:
            return "bufferization did not keep a carried array in place"
    if plan.swap_tmp.get(body.terminator):
        return "bufferization did not keep a carried array in place"
    for v in _free_values(op):
        if not isinstance(ctx.get(v), (ir.Value, BufRef)):
            return "it reads a fused computation or an unmaterialized transpose"
        if not getattr(v.type, "static", True):
            # its run-time dims are registers of the calling function, not of the chunk's
            return "it reads an array whose length is known only at run time"
    if _private_bufs(op, plan) is None:
        return "a private array has a run-time shape"
    if any(None in getattr(r.type, "shape", ()) for inner in body.walk() for r in inner.results):
        return "its body allocates arrays of run-time size (malloc'd per call of the body)"
    return None


def _emit_chunk(op, ctx: Ctx, comb, free, step):
    module = ctx.module
    name = f"par_chunk_{len([g for g in module.globals if g.startswith('par_chunk_')])}"
    fn = ir.Function(module, CHUNK_TYPE, name=name)
    fn.linkage = "internal"
    env_arg, lo, hi, cidx, tid, err = fn.args
    cc = Ctx(module, fn, ctx.plan, ctx.rules)
    cc.locs = ctx.locs
    cc.scratch_bufs = ctx.scratch_bufs
    cc.notes = ctx.notes
    cc.tid = tid
    cc._err = err
    cc.check_exits = ctx.check_exits
    errs = None
    if ctx.error_ret is not None:   # the chunk stops at its first failure (error_exit.py)
        cc.error_ret, cc.error_slots, cc.err_chain = \
            error_exit.IN_RECORD, ctx.error_slots, ctx.err_chain
        errs = ctx.error_slots.get(op)
    body = op.regions[0].block
    inits = op.operands[3:]
    iv_t = op.operands[0].type.dtype
    # env: [table, free scalars and non-plan buffer pointers..., inits of scalar slots,
    # partial arrays of scalar slots]
    fields = [("table", ctx._table)]
    remat, captured = [], []
    for v in [op.operands[0], op.operands[1]] + free:
        x = ctx.get(v)
        if isinstance(x, ir.Constant) or v in remat or v in captured:
            continue   # used as it is: LLVM still sees the constant (bounds, checks)
        if isinstance(x, ir.Value):
            leaves = _remat_leaves(ctx, v)
            if leaves is None:
                captured.append(v)
            else:
                remat.append(v)
                captured += [w for w in leaves if w not in captured]
        else:  # a buffer: its plan buffer is found again through the table
            pb = ctx.plan.of.get(v)
            if pb is None or ctx.bufs.get(pb.id) is not x:
                fields.append((v, x.ptr))
    fields += [(v, ctx.get(v)) for v in captured]
    scalar_slots = [k for k, v in enumerate(inits) if not is_array(v)]
    partial_t = {k: ir.ArrayType(reg_type(inits[k].type.dtype), threads.MAX_CHUNKS)
                 for k in scalar_slots}
    partials = {k: ctx.alloca_builder.alloca(partial_t[k], name=f"partials{k}")
                for k in scalar_slots}
    for k in scalar_slots:
        fields.append((("init", k), ctx.get(inits[k])))
        fields.append((("partial", k), partials[k]))
    env_t = ir.LiteralStructType([x.type for _, x in fields])
    ab = cc.alloca_builder
    envp = ab.bitcast(env_arg, ir.PointerType(env_t))
    loaded = {}
    for j, (key, _) in enumerate(fields):
        loaded[key] = ab.load(
            ab.gep(envp, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), j)]))
    cc._table = loaded["table"]
    shared = set()
    for buf in ctx.plan.bufs:
        ref = BufRef(cc._buffer_pointer(buf), buf.shape, buf.dtype)
        cc.bufs[buf.id] = ref
        if buf.copies == 1:
            shared.add(id(ref.ptr))
    for v in captured:
        cc.env[v] = loaded[v]
        if v in ctx.iv_range:   # an enclosing loop's counter: its range helps prove checks
            _assume_range(cc, loaded[v], *ctx.iv_range[v])
    for v in [op.operands[0], op.operands[1]] + free:
        x = ctx.get(v)
        if isinstance(x, ir.Constant):
            cc.env[v] = x
        elif isinstance(x, ir.Value):
            _materialize(cc, v)
        elif v in loaded:
            cc.env[v] = BufRef(loaded[v], x.shape, x.dtype)
            shared.add(id(cc.env[v].ptr))
        else:
            cc.env[v] = cc.bufs[ctx.plan.of[v].id]
    cc.shared = shared
    b = cc.b
    # carried scalars: chunk 0 starts from the init, the others from the identity
    slots = {}
    first = b.icmp_signed("==", cidx, ir.Constant(I64, 0))
    for k in scalar_slots:
        dt = inits[k].type.dtype
        s = cc.slot(dt)
        init = loaded[("init", k)]
        start = init if comb[k] == "last" else b.select(first, init, _identity(comb[k], dt))
        b.store(start, s)
        slots[k] = s
    if errs is not None:
        error_exit.return_if_failed(cc, *(b.load(slots[k]) for k in errs))
        for k in errs:   # 0 past the return: the body takes them as 0
            b.store(_identity(comb[k], inits[k].type.dtype), slots[k])
    lb, ub = cc.env[op.operands[0]], cc.env[op.operands[1]]
    ivt = reg_type(iv_t)
    lo, hi = _clamp_chunk(cc, op, lo, hi, step)

    def iteration(k):
        kk = k if ivt == I64 else b.trunc(k, ivt)
        iv = b.add(lb, b.mul(kk, ir.Constant(ivt, step)))
        if is_signed(iv_t):
            _assume(cc, b.icmp_signed("<" if step > 0 else ">", iv, ub))
            _assume(cc, b.icmp_signed(">=" if step > 0 else "<=", iv, lb))
        args = [iv]
        for j, v in enumerate(inits):
            args.append(cc.buf(op.results[j]) if is_array(v) else
                        _identity(comb[j], v.type.dtype) if errs and j in errs else
                        b.load(slots[j]))
        term = cc.lower_block(body, args, errs is not None)
        if errs is not None:
            error_exit.return_if_failed(cc, *(cc.get(term.operands[k]) for k in errs),
                                        value=term.operands[errs[0]])
        for j in scalar_slots:
            if not (errs and j in errs):
                b.store(cc.get(term.operands[j]), slots[j])
    cc.counted_loop(hi, iteration, start=lo)
    for j in scalar_slots:
        dst = b.gep(loaded[("partial", j)], [ir.Constant(I64, 0), cidx])
        b.store(b.load(slots[j]), dst)
    b.ret(ir.Constant(I64, 0))
    can_fail = cc._exit is not None   # a run-time check (or an allocation) may leave
    cc.finish_entry()
    if cc.unsafe_writes:
        # a write into a shared buffer that is not an in-place element/slice update: leave
        # the (internal, unused) chunk for LLVM to delete and run the loop sequentially
        return None
    return fn, fields, partials, can_fail


def _clamp_chunk(cc: Ctx, op, lo, hi, step: int):
    """``[lo, hi)`` as ``[max(lo, 0), min(hi, trip))``: the same range (threads.py hands
    out ranges inside ``[0, trip)``), written so that LLVM sees the counter inside the
    loop's bounds. Per-iteration ``assume``s were not enough for LLVM 22: it kept the bounds
    checks (no vectorization) or, for ``A[i - 1]``, the negative-index wrap as a select
    per lane; a stencil's sweep ran 2.5x slower on the pool than the sequential loop."""
    b = cc.b
    lo = b.select(b.icmp_signed("<", lo, ir.Constant(I64, 0)), ir.Constant(I64, 0), lo)
    trip = _trip(cc, op, step)
    hi = b.select(b.icmp_signed(">", hi, trip), trip, hi)
    return lo, hi


def _remat_leaves(ctx: Ctx, v, depth: int = 0):
    """When scalar ``v`` is computed by scalar elementwise ops from constants and counters of
    enclosing loops with static bounds: those counters (the chunk recomputes ``v`` from them,
    so LLVM sees its range, as in the loop before outlining); else None."""
    if isinstance(ctx.env.get(v), ir.Constant):
        return []
    if v in ctx.iv_range:
        return [v]
    op = v.owner
    if depth > 6 or not isinstance(op, Operation) or op.name not in ELEMENTWISE or \
            len(op.results) != 1 or any(o.type.rank for o in list(op.operands) + op.results):
        return None
    out = []
    for o in op.operands:
        sub = _remat_leaves(ctx, o, depth + 1)
        if sub is None:
            return None
        out += sub
    return out


def _materialize(cc: Ctx, v):
    """``cc.env[v]``, lowering the scalar ops that compute it (see _remat_leaves) in ``cc``."""
    if v in cc.env:
        return cc.env[v]
    op = v.owner
    for o in op.operands:
        _materialize(cc, o)
    (r,) = cc.rules[op.name](op, cc)
    cc.env[v] = r
    return r


def _assume(cc: Ctx, cond):
    f = cc.module.globals.get("llvm.assume") or ir.Function(
        cc.module, ir.FunctionType(ir.VoidType(), [ir.IntType(1)]), "llvm.assume")
    cc.b.call(f, [cond])


def _assume_range(cc: Ctx, x, lo: int, hi: int):
    _assume(cc, cc.b.icmp_signed(">=", x, ir.Constant(x.type, lo)))
    _assume(cc, cc.b.icmp_signed("<=", x, ir.Constant(x.type, hi)))


def _trip(ctx: Ctx, op, step: int):
    b = ctx.b
    dt = op.operands[0].type.dtype
    lb, ub = (ctx.to_i64(ctx.get(v), dt) for v in op.operands[:2])
    lo, hi, s = (lb, ub, step) if step > 0 else (ub, lb, -step)
    span = b.sub(hi, lo)
    n = b.sdiv(b.add(span, ir.Constant(I64, s - 1)), ir.Constant(I64, s))
    return b.select(b.icmp_signed(">", span, ir.Constant(I64, 0)), n, ir.Constant(I64, 0))


def _scalar_step(o) -> bool:
    """Whether op ``o`` of a parallel loop's body is scalar work (no loop of its own): the
    loop is then the innermost one, which LLVM may vectorize."""
    if o.regions:
        return False
    if o.name == "tensor.update_slice":   # y[i] = v: one store
        return o.operands[1].type.rank == 0
    return all(v.type.rank == 0 for v in o.results)


def _emit_call(op, ctx: Ctx, comb, fn, fields, partials, can_fail, step):
    b = ctx.b
    module = ctx.module
    errs = error_exit.applies(op, ctx)
    if errs is not None:   # as a sequential loop's entry (rules_control._enter)
        error_exit.return_if_failed(ctx, *(ctx.get(op.operands[3 + k]) for k in errs))
    # a carried array whose init stays live after the loop (read again later) starts in a
    # buffer of its own: copy the init there first, as the sequential lowering's _enter does
    # (without it the chunks wrote into the init's buffer and the result's stayed as it was)
    for k, v in enumerate(op.operands[3:]):
        if is_array(v) and ctx.plan.init_copy[op][k]:
            ctx.copy(ctx.buf(op.results[k]), ctx.get(v))
    par_for = module.globals.get("solvent_par_for") or ir.Function(module, _PAR_FOR,
                                                                  "solvent_par_for")
    env_t = ir.LiteralStructType([x.type for _, x in fields])
    envp = ctx.alloca_builder.alloca(env_t, name="par_env")
    for j, (_, x) in enumerate(fields):
        b.store(x, b.gep(envp, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), j)]))
    trip = _trip(ctx, op, step)
    cost = min(body_cost(op.regions[0].block), MAX_COST)
    nslot = ctx.slot("i64")
    b.store(ir.Constant(I64, 0), nslot)
    run = ctx.fn.append_basic_block("par.run")
    after = ctx.fn.append_basic_block("par.after")
    b.cbranch(b.icmp_signed(">", trip, ir.Constant(I64, 0)), run, after)
    b.position_at_end(run)
    innermost = all(_scalar_step(o) for o in op.regions[0].block.ops)
    env8 = b.bitcast(envp, ir.PointerType(ir.IntType(8)))
    r = _run_or_call_pool(ctx, fn, env8, trip, cost,
                          ir.Constant(I64, VECTOR_ALIGN if innermost else 1), par_for)
    if can_fail:
        # threads.py returns -1 only when a chunk returned non-zero, having filled the
        # error record; a chunk without checks always returns 0, and then the entry has no
        # failing path here (the call's own result is not a failure: the caller may write
        # into the arguments in place, without a backup)
        bad = ctx.fn.append_basic_block("par.failed")
        ok = ctx.fn.append_basic_block("par.ok")
        b.cbranch(b.icmp_signed("<", r, ir.Constant(I64, 0)), bad, ok)
        b.position_at_end(bad)
        b.ret(ir.Constant(I64, 1))
        b.position_at_end(ok)
    b.store(r, nslot)
    b.branch(after)
    b.position_at_end(after)
    n = b.load(nslot)
    inits = op.operands[3:]
    results = [ctx.buf(op.results[k]) if is_array(v) else None for k, v in enumerate(inits)]
    _fold_partials(ctx, comb, inits, partials, n, results)
    return results


def _run_or_call_pool(ctx: Ctx, fn, env8, trip, cost: int, align, par_for):
    """What ``solvent_par_for(fn, env8, trip, cost, err, align)`` returns, with its
    sequential case decided here: when the pool has one thread or ``trip * cost`` is below
    the threshold (threads.py's test, on the same two globals), the chunk function runs all
    ``trip`` iterations as chunk 0 of thread 0, as the pool's runtime would, but called
    directly: LLVM inlines it and optimizes the loop in its context. An inner loop marked
    parallel with a short trip count (forward_subst's row reduction, 400 per call) paid a
    call of the runtime and of the chunk through a pointer on every trip of the outer loop:
    88.6 us per call against 72.7 us with the mark turned off (n = 400, one thread)."""
    b, module = ctx.b, ctx.module
    glob = {}
    for name in ("solvent_par_threads", "solvent_par_threshold"):
        glob[name] = module.globals.get(name) or ir.GlobalVariable(module, I64, name)
    one = ir.Constant(I64, 1)
    cc = ir.Constant(I64, max(cost, 1))
    need = b.sdiv(b.sub(b.add(b.load(glob["solvent_par_threshold"]), cc), one), cc)
    seq = b.or_(b.or_(b.icmp_signed("<", trip, ir.Constant(I64, 2)),
                      b.icmp_signed("<", b.load(glob["solvent_par_threads"]),
                                    ir.Constant(I64, 2))),
                b.icmp_signed("<", trip, need))
    zero = ir.Constant(I64, 0)
    with b.if_else(seq) as (here, pool):
        with here:
            rc = b.call(fn, [env8, zero, trip, zero, zero, ctx._err])
            r_here = b.select(b.icmp_signed("!=", rc, zero), ir.Constant(I64, -1), one)
            bb_here = b.block
        with pool:
            r_pool = b.call(par_for, [fn, env8, trip, ir.Constant(I64, cost), ctx._err,
                                      align])
            bb_pool = b.block
    r = b.phi(I64)
    r.add_incoming(r_here, bb_here)
    r.add_incoming(r_pool, bb_pool)
    return r


def _fold_partials(ctx: Ctx, comb, inits, partials, n, results):
    """results[k] = the partials of scalar slot k folded in chunk order (the init when no
    chunk ran)."""
    b = ctx.b
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
    some = b.icmp_signed(">", n, zero)
    last = b.select(some, b.sub(n, one), zero)
    acc = {}
    for k, p in partials.items():
        dt = inits[k].type.dtype
        at = last if comb[k] == "last" else zero
        s = ctx.slot(dt)
        b.store(b.select(some, b.load(b.gep(p, [zero, at])), ctx.get(inits[k])), s)
        acc[k] = s
    folded = [k for k in partials if comb[k] not in ("last", "error_payload")]
    if folded:
        def fold(i):
            c = b.add(i, one)
            for k in folded:
                dt = inits[k].type.dtype
                a, x = b.load(acc[k]), b.load(b.gep(partials[k], [zero, c]))
                if comb[k] == "first_error":
                    take = b.icmp_signed("==", a, const(dt, 0))
                    b.store(b.select(take, x, a), acc[k])
                    j = comb.index("error_payload")
                    px = b.load(b.gep(partials[j], [zero, c]))
                    b.store(b.select(take, px, b.load(acc[j])), acc[j])
                else:
                    b.store(_fold(ctx, comb[k], dt, a, x), acc[k])
        ctx.counted_loop(b.sub(n, one), fold)
    for k, s in acc.items():
        results[k] = b.load(s)
