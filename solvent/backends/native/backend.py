"""The native backend: solvent's tensor IR (after the pass pipeline) to machine code.

``NativeBackend.accepts(fn)`` says whether every op and dtype has a native rule (and names
the first that does not, with its source line); ``compile(fn)`` bufferizes (``bufferize``),
lowers each op with its rule from ``RULES`` (one module per op family, mirroring the XLA
rules), optimizes with LLVM and returns a ``NativeExecutable``: called with NumPy values, it
returns one NumPy array per ``func.return`` operand and never writes into its arguments.
"""
from __future__ import annotations

import ctypes
import threading
import time

import numpy as np
from llvmlite import ir

from ...ir.core import Function
from ...ir.registry import get, lowerings, register_lowering
from ...ops.checks import error_text
from ..base import Backend
from ...ir.types import TensorType, np_dtype
from . import (rules_complex, rules_control, rules_dynamic, rules_elementwise, rules_index,
               rules_io, rules_lapack, rules_linalg, rules_reduce, rules_sort, rules_structural)
from .bufferize import Plan, is_array
from .context import ERR_CHECK, ERR_INDEX, ERR_MEMORY, BufRef, Ctx
from .engine import Compiled, free, loop_ids, python_caller
from .error_exit import chain_values, error_slots
from .errors_first import sink_writebacks
from .reread_updates import reread_updates
from . import engine, fast_runner, threads
from .types import COMPLEX, I64, SUPPORTED

# The native rules go into the op registry's rule table for "native", like every backend's
# (one module per op family defines them); the backend reads them back from there.
for _family in (rules_elementwise, rules_structural, rules_index, rules_reduce, rules_linalg,
                rules_lapack, rules_control, rules_dynamic, rules_sort, rules_io):
    for _name, _rule in _family.RULES.items():
        register_lowering(_name, "native", _rule)
RULES = lowerings("native")



def _where(op):
    return f" at {op.loc}" if op.loc is not None else ""


def _runtime_shape_why(op) -> str | None:
    """Why the native backend cannot run ``op`` on values with run-time dims, or None."""
    types = [v.type for v in list(op.operands) + list(op.results)]
    if all(isinstance(t, TensorType) and t.static for t in types):
        return None
    name = op.name
    if name in ("tensor.slice", "tensor.dim", "tensor.mask_select", "tensor.nonzero",
                "tensor.fill", "io.print",
                "tensor.transpose", "func.return") or name in rules_elementwise.ELEMENTWISE:
        return None
    if name.startswith("tensor.reduce_") or name in ("tensor.argmax", "tensor.argmin",
                                                     "tensor.cumsum", "tensor.cumprod",
                                                     "tensor.cummax", "tensor.cummin"):
        return None
    if name == "tensor.update_slice":   # static items ("s", "d") index only static dims
        return None
    if name == "tensor.dot_general" and rules_linalg.runtime_dot_ok(op):
        return None
    if name in ("tensor.gather", "tensor.scatter", "tensor.scatter_add"):
        return None   # run-time index lengths: rules_index.index_shape
    return "this op on a value whose length is known only at run time (a ? dim)"


class NativeBackend(Backend):
    name = "native"
    # a loop whose bounds move with a carried loop stays a scalar loop: native code runs
    # the triangle, the masked batch the whole rectangle (passes/raising/raise_loops.py)
    # (raise_loops data_gathers=False: a loop whose raised form gathers from data all
    # iterations share stays a loop; knapsack_items 1.62x faster. Its chunks report the
    # first failure in program order: error_exit.py)
    # (raise_loops sweep_min_work: a sweep inside a time loop worth the thread pool stays
    # a parallel loop over rows, its rows raised; jacobi_2d_loops 2.4 -> 1.5-1.7 ms, jacobi_1d_loops
    # 2.6-3.0 -> 1.7-1.9 ms on 2 cores)
    pass_defaults = {"version_checks": {"enabled": True}, "speculate_checks": {"enabled": True},
                     "flag_checks": {"enabled": True},
                     "split_products_native": {"enabled": True},
                     "selects_to_branches": {"enabled": True},
                     "raise_loops": {"masked_under_carried": False,
                                     "strided_interchange": False, "data_gathers": False,
                                     "sweep_min_work": threads.DEFAULT_THRESHOLD,
                                     "reads_before_overwrite": False}}

    def __init__(self, opt_level: int = 3, multi_output: bool = True,
                 check_exits: bool = True):
        self.opt_level = opt_level
        self.multi_output = multi_output   # bufferize.Plan's option
        self.check_exits = check_exits     # error_exit.exit_at_check (False: at the yield)

    def accepts(self, fn: Function) -> tuple[bool, str]:
        for a in fn.args:
            if not isinstance(a.type, TensorType) or a.type.dtype not in SUPPORTED + COMPLEX:
                return False, f"native: argument of type {a.type} is not supported"
        for op in fn.walk():
            if op.name not in RULES and not get(op.name).terminator:
                return False, f"native: {op.name}{_where(op)} has no native lowering yet"
            check = getattr(RULES.get(op.name), "check", None)
            why = check(op) if check else None
            why = why or _runtime_shape_why(op) or rules_complex.refuses(op)
            if why:
                return False, f"native: {op.name}{_where(op)}: {why} is not supported yet"
            for v in list(op.operands) + list(op.results):
                if not isinstance(v.type, TensorType) or v.type.dtype not in SUPPORTED + COMPLEX:
                    return False, (f"native: {op.name}{_where(op)} works on {v.type}; the "
                                   "native backend compiles bool, integer, float32, float64 "
                                   "and (for products, arithmetic and data movement) complex")
        return True, "native: every op has a native lowering"

    def describe(self) -> str:
        pool = threads.settings()
        return (f"native: solvent IR -> LLVM IR (llvmlite) -> machine code, O{self.opt_level} "
                "with loop/SLP vectorization (full-unroll threshold "
                f"{engine.UNROLL_THRESHOLD}; LLVM's own at O3: 300); "
                f"{len(RULES)} op rules; the outermost loop "
                f"marked parallel runs on {pool['threads']} thread(s) when trip count x "
                f"estimated body cost >= {pool['threshold']} ({threads.ENV_THRESHOLD}), "
                "reductions folded per chunk in chunk order (float sums and products are "
                "reassociated)")

    def compile(self, fn: Function, recompute: int = 0) -> "NativeExecutable":
        """``recompute``: see ``bufferize.Plan``."""
        ok, reason = self.accepts(fn)
        if not ok:
            from ...errors import UnsupportedError
            raise UnsupportedError(reason)
        t0 = time.perf_counter()
        sink_writebacks(fn)
        reread_updates(fn)
        plan = Plan(fn, recompute, self.multi_output)
        module, ctx = lower(fn, plan, self.check_exits)
        text = loop_ids(str(module))
        t1 = time.perf_counter()
        comp = Compiled(text, "solvent_entry", self.opt_level)
        exe = NativeExecutable(fn, plan, comp, ctx.locs, text, ctx.errors_first is True)
        exe.explain_lines = [f"native: {n}" for n in ctx.notes]
        if comp.vector_calls:
            exe.explain_lines.append(
                "native: vectorized math calls glibc's libmvec (SOLVENT_VECTOR_MATH=0 turns "
                "it off): " + ", ".join(comp.vector_calls))
        exe.seconds = {"lower": t1 - t0, **comp.seconds}
        return exe


def lower(fn: Function, plan: Plan, check_exits: bool = True):
    module = ir.Module(name=fn.name)
    i8p = ir.PointerType(ir.IntType(8))
    fty = ir.FunctionType(I64, [ir.PointerType(i8p), ir.PointerType(I64)])
    f = ir.Function(module, fty, name="solvent_entry")
    ctx = Ctx(module, f, plan, RULES)
    ctx.check_exits = check_exits
    b = ctx.b
    for buf in plan.bufs:
        if not buf.dynamic:
            ctx.bufs[buf.id] = BufRef(ctx._buffer_pointer(buf), buf.shape, buf.dtype)
    ctx.error_slots = error_slots(fn)
    n_ret = len(fn.body.terminator.operands)
    if fn.errors and all(k in plan.ret_scalar for k in (n_ret - 2, n_ret - 1)):
        ctx.error_ret = tuple(ctx.bufs[plan.ret_scalar[k].id] for k in (n_ret - 2, n_ret - 1))
        ctx.err_chain = chain_values(fn)
        ctx.body, ctx.errors_first = fn.body, False
    args = []
    for a in fn.args:
        ref = ctx.buf(a)
        args.append(ref if is_array(a) else ctx.load(ref, []))
    term = ctx.lower_block(fn.body, args)
    for k, v in enumerate(term.operands):
        if k in plan.ret_scalar:
            ctx.store(ctx.bufs[plan.ret_scalar[k].id], [], ctx.get(v))
        elif k in plan.ret_dyn:   # hand the allocation out: its address and dims
            rec, x = ctx.bufs[plan.ret_dyn[k].id], ctx.get(v)
            ctx.store(rec, [0], b.ptrtoint(x.ptr, I64))
            for d in range(v.type.rank):
                ctx.store(rec, [d + 1], ctx.dim(v, d))
            b.store(ir.Constant(x.slot.type.pointee, None), x.slot)
    ctx.leave(0)
    ctx.finish_entry()
    return module, ctx


class NativeExecutable:
    def __init__(self, fn: Function, plan: Plan, comp: Compiled, locs, llvm_ir: str,
                 errors_first: bool = False):
        """``errors_first``: the code returns on a failed check as value before it writes
        into any caller's array (errors_first.py), so such a failure needs no backup."""
        self.plan = plan
        self.comp = comp
        self.locs = locs
        self.llvm_ir = llvm_ir
        self.cfunc = comp.cfunc
        idle = plan.unmaterialized()   # fused values' buffers: their entries stay _UNUSED
        self._new = [(b.id, b.shape if b.copies == 1 else (b.copies,) + b.shape,
                      np_dtype(b.dtype)) for b in plan.bufs
                     if b.arg is None and not b.dynamic and b.id not in idle]
        self._args = [(b.id, b.arg, np_dtype(b.dtype), b.written, len(b.shape) == 0)
                      for b in plan.bufs if b.arg is not None]
        self._rets = []
        for k, v in enumerate(fn.body.terminator.operands):
            if k in plan.ret_dyn:   # (record id, None, dtype): a run-time allocation
                self._rets.append((plan.ret_dyn[k].id, None, np_dtype(v.type.dtype)))
                continue
            b = plan.ret_scalar.get(k) or plan.of[v]
            self._rets.append((b.id, b.arg is not None and not b.written, None))
        self._n = len(plan.bufs)
        self._table = ctypes.c_void_p * self._n
        self._address = comp.address
        self._call = python_caller(comp.address, self._n)
        # buffers no result is taken from (temporaries) and the error record: each thread
        # keeps one set and reuses it on every call (their contents are never read before
        # the code writes them, as with a fresh np.empty) while they fit in _REUSE bytes in
        # all; results, and temporaries over that, are allocated per call. A fresh large
        # array is fresh pages from the kernel, zeroed on first touch: hist_equalize at
        # 1024^2, ~15 temporaries of 8 MB, ran in 32 ms natively allocating them per call
        # and 15 ms reusing them (CPU time)
        returned = {i for i, _, _ in self._rets}
        scratch = [x for x in self._new if x[0] not in returned]
        small = sum(int(np.prod(shape)) * dt.itemsize for _, shape, dt in scratch) <= _REUSE
        self._reused = scratch if small else []
        self._new = [x for x in self._new if x[0] in returned or not small]
        self._tls = threading.local()
        self._ret_plans: dict = {}   # buffers taken in place -> see ``_ret_plan``
        # the results when each is a buffer of this call returned once, none an argument's
        # or a run-time allocation: handed out as they are, without the loop below
        ids = [i for i, must_copy, dt in self._rets if not must_copy and dt is None]
        self._plain_rets = tuple(ids) if len(ids) == len(self._rets) and \
            len(set(ids)) == len(ids) else None
        self.options_note = None
        self.explain_lines: list[str] = []
        # checks as values (error_exit.py): the code's and the payload's result buffers
        self._errors = fn.errors
        self._code = None
        if fn.errors:
            n = len(fn.body.terminator.operands)
            self._code = (plan.ret_scalar[n - 2].id, plan.ret_scalar[n - 1].id)
        # a written argument's buffer that ends holding the value written back into that
        # same argument is the caller's own array when that array fits (see ``_in_place``)
        rets = fn.body.terminator.operands
        self._own = {}     # buffer id -> result index written back from it into its argument
        for r, k in enumerate(fn.writeback):
            b = plan.of.get(rets[r]) if k is not None and r < len(rets) else None
            if b is not None and b.arg == k and b.written and b.shape:
                self._own[b.id] = r
        self._can_fail = bool(fn.errors) and not errors_first or not comp.returns_zero

    # every result is a new array, sharing memory with no argument and no other result,
    # except the written-back results computed in the caller's own array (``Outs.fresh``)
    fresh_results = True
    # a failed run-time check (index, error.check) raises here, before any result is seen
    raises_errors = True

    def __call__(self, *args):
        # the entry's table: every buffer's array, then the error array (the per-call work
        # is what the arguments need: read ones in place when they fit, written ones in
        # place or copied, fresh ones allocated; everything else was decided at compile time)
        try:   # what stays _UNUSED is a run-time allocation's entry
            arrays = self._tls.template.copy()
        except AttributeError:
            arrays = self._template().copy()
        backups, own = [], ()
        for i, k, dt, written, scalar in self._args:
            a = args[k]
            if scalar:
                arrays[i] = np.array(a, dtype=dt)
            elif not written:
                arrays[i] = np.ascontiguousarray(a, dtype=dt)
            elif i in self._own and _in_place(a, dt):
                arrays[i] = a
                own += (i,)
                if self._can_fail:
                    backups.append((a, self._backup(i, a)))
            else:
                arrays[i] = np.array(a, dtype=dt, order="C", copy=True)
        for i, shape, dt in self._new:
            arrays[i] = np.empty(shape, dt)
        err = arrays[-1]   # written in full by a failing check
        if self._call is not None:   # a built-in function: pointers read in machine code
            failed = self._call(arrays)
        else:
            failed = self.cfunc(self._table(*[a.ctypes.data for a in arrays[:-1]]),
                                err.ctypes.data)
        if failed or (self._code is not None and arrays[self._code[0]][()]):
            for a, saved in backups:   # the caller's arrays as they were
                np.copyto(a, saved)
            if failed:
                raise _error(err, self.locs, self._errors)
            from ...runtime.jit import raise_if_failed
            raise_if_failed(self._errors, arrays[self._code[0]], arrays[self._code[1]])
        if self._plain_rets is not None and not own:   # fresh arrays, each once
            return Outs([arrays[i] for i in self._plain_rets])
        plan = self._ret_plans.get(own)
        if plan is None:
            plan = self._ret_plan(own)
        copies, fresh = plan
        if copies is not None:   # no run-time allocation among the results
            outs = Outs([arrays[i].copy() if cp else arrays[i] for i, cp in copies])
            outs.fresh = fresh
            return outs
        outs, seen, owned = Outs(), set(), {}
        for r, (i, must_copy, dt) in enumerate(self._rets):
            a = arrays[i]
            if dt is not None:
                outs.append(_take(a, dt, owned))
                continue
            if i in own and self._own[i] != r:
                must_copy = True
            outs.append(a.copy() if must_copy or i in seen else a)
            seen.add(i)
        outs.fresh = fresh
        return outs

    def runner_source(self, c, args):
        """The body of a fast-path runner for version ``c`` (see fast_runner.py)."""
        return fast_runner.runner_source(self, c, args)

    def _ret_plan(self, own):
        """(the (buffer, copy?) of every result or None where one is a run-time allocation,
        the indices of the results that share memory with no argument) when the buffers
        ``own`` are the caller's arrays; the same for every call with the same ``own``."""
        copies, seen = [], set()
        for r, (i, must_copy, dt) in enumerate(self._rets):
            if dt is not None:
                copies = None
                break
            copies.append((i, must_copy or i in seen or (i in own and self._own[i] != r)))
            seen.add(i)
        fresh = frozenset(r for r in range(len(self._rets))
                          if r not in {self._own[i] for i in own}) if own else None
        self._ret_plans[own] = plan = (copies, fresh)
        return plan

    def _backup(self, i: int, a: np.ndarray) -> np.ndarray:
        """A copy of the caller's array ``a`` (taken in place as buffer ``i``) to put back if
        the call fails. The copy's array is this thread's, reused on every call while this
        executable's backups fit in _REUSE_BACKUPS bytes (256 MB) in all: a fresh array per call is fresh
        pages, zeroed by the kernel before the copy writes them (backprop_layer at 1024, a
        256 MB grad_w: 71 ms per fresh copy, 32 ms into a reused array, CPU time; the
        kernel itself 90 ms)."""
        try:
            kept = self._tls.backups
        except AttributeError:
            kept = self._tls.backups = {}
        saved = kept.get(i)
        if saved is None or saved.shape != a.shape or saved.dtype != a.dtype:
            saved = np.empty(a.shape, a.dtype)
            others = sum(x.nbytes for k, x in kept.items() if k != i)
            if others + saved.nbytes <= _REUSE_BACKUPS:
                kept[i] = saved
            else:
                kept.pop(i, None)
        np.copyto(saved, a, casting="no")
        return saved

    def _template(self):
        """This thread's table of reused buffers (see ``_reused``) and error record."""
        arrays = [_UNUSED] * self._n + [np.empty(5, np.int64)]
        for i, shape, dt in self._reused:
            arrays[i] = np.empty(shape, dt)
        self._tls.template = arrays
        return arrays


# temporaries of at most this many bytes in all are reused across calls (per thread): held
# as long as the compiled version lives, so bounded
_REUSE = 1 << 28
# backups of written arguments (``_backup``) of at most this many bytes in all are reused
# across calls (per thread): with the temporaries, a compiled version holds at most 512 MB
# per thread between calls (a 256 MB argument's backup still fits)
_REUSE_BACKUPS = 1 << 28
# the table entry of a buffer the native code allocates itself (a run-time shape): never read
_UNUSED = np.empty(0)


class Outs(list):
    """The results of a call; ``fresh`` (None: all of them) holds the indices of those that
    share memory with no argument (runtime.jit._fresh)."""
    fresh = None


def _in_place(a, dt) -> bool:
    """Whether the native code may write into the caller's array ``a`` directly."""
    f = a.flags
    return type(a) is np.ndarray and a.dtype == dt and f.c_contiguous and f.writeable \
        and f.aligned


class _Allocation:
    """A run-time allocation of the native code handed to NumPy as it is: the ctypes view
    that NumPy's arrays read through holds it, and it frees the memory when the last of
    them is gone."""
    __slots__ = ("address",)

    def __init__(self, address: int):
        self.address = address

    def __del__(self):
        free(self.address)


def _take(record, dt, owned: dict):
    """The run-time allocation described by ``record`` (address, dims...) as a NumPy array:
    the allocation itself the first time (``_Allocation`` frees it after the last array on
    it), a copy for a second result on the same allocation, as for any result returned
    twice."""
    address, shape = int(record[0]), tuple(int(d) for d in record[1:])
    if address in owned:
        return owned[address].view(dt).reshape(shape).copy()
    n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    view = (ctypes.c_char * max(n, 1)).from_address(address)
    view.allocation = _Allocation(address)
    owned[address] = np.frombuffer(view, np.uint8)[:n]
    return owned[address].view(dt).reshape(shape)


def _error(err, locs, errors=()):
    """The exception of a failed call's error record (``errors``: the function's checks as
    values, for a record of kind ``ERR_CHECK``: a parallel chunk's, error_exit.py)."""
    loc_id, index, axis, size, kind = (int(x) for x in err)
    if kind == ERR_CHECK:
        from ...runtime.jit import KINDS
        name, message, where = errors[size - 1]
        return KINDS[name](error_text(message, index, where))
    loc = locs[loc_id] if 0 <= loc_id < len(locs) else None
    if kind == ERR_INDEX:   # the same words, with the line first, as every backend's checks
        return IndexError(error_text(
            f"index {index} is out of bounds for axis {axis} with size {size}", None, loc))
    if kind == ERR_MEMORY:
        return MemoryError("native: out of memory for a run-time-sized array")
    return ValueError(error_text("range() arg 3 must not be zero", None, loc))
