"""The XLA backend: tensor-level IR to ``jax.lax`` / ``jax.numpy`` calls under ``jax.jit``.

Each op's lowering is registered beside its record in the ``xla`` rule table; the shared
block evaluator walks the function while ``jax.jit`` traces it. float64 is kept by tracing
and running inside ``jax.enable_x64(True)``, a scoped context: JAX's global configuration is
never changed.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from ..ir.core import Function
from ..ir.types import np_dtype
from .base import Backend, missing_rule, run_time_shape
from .evaluator import BlockEvaluator
from .xla_host import compiler_options
from .xla_ordered_reads import OrderedReads


class _Ctx(BlockEvaluator):
    backend = "xla"

    def __init__(self, sharded: bool = False):
        super().__init__()
        self.ordered_reads = OrderedReads()
        # the program is partitioned over a mesh: lowerings skip strategies measured on one
        # CPU device that cut a sharded axis into pieces (the reduction row fold)
        self.sharded = sharded

    def apply(self, rule, op, operands):
        role = self.ordered_reads.role(op)
        if role is None:
            return rule(op, operands, self)
        return self.ordered_reads.apply(role, rule, op, operands, self)

    def as_array(self, value):
        import jax.numpy as jnp
        return jnp.asarray(value)

    def shape_of(self, op):
        return op.results[0].type.shape


_ALIGN = 64
_STAGE_MIN_BYTES = 1 << 16
# results at least this large are handed to the caller in XLA's own buffer (zero-copy);
# below it one small copy costs less than wrapping the buffer
_HANDOVER_MIN_BYTES = 1 << 16


def _aligned_empty(shape, dtype):
    n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    raw = np.empty(n + _ALIGN, dtype=np.uint8)
    off = (-raw.ctypes.data) % _ALIGN
    return raw[off:off + n].view(dtype).reshape(shape)


def _handed_over(o, v: np.ndarray) -> np.ndarray:
    """A writable NumPy array over the buffer of the jax.Array ``o`` (``v`` is its read-only
    view): only for a result that nothing else holds (see ``XlaExecutable._fresh``). The
    array keeps ``o`` alive; jax never reads or reuses the buffer of a result again."""
    raw = (ctypes.c_char * v.nbytes).from_address(v.ctypes.data)
    raw.keep = o
    return np.frombuffer(raw, dtype=v.dtype).reshape(v.shape)


class Results(list):
    """An executable's results; ``fresh`` holds the indices of those the runtime may hand to
    the caller as they are: new, writable, sharing memory with no argument, no other result
    and nothing a cache holds."""
    fresh: frozenset = frozenset()


class XlaExecutable:
    """A compiled function: call it with NumPy values, get NumPy results.

    The boundary copies as little as it can. Arguments: XLA:CPU reads a host array in place
    when it is contiguous and 64-byte aligned; any other large argument (not aligned: NumPy
    aligns to 16 bytes; Fortran-ordered, strided) is copied into a reused aligned buffer by
    NumPy, which is faster than XLA's own copy. (Reading an unaligned argument from the
    64-byte boundary below it, sliced in the program, saved that copy, but its padding was a
    compile-time value: every new alignment of a caller's array recompiled the program,
    ~300 ms a call on spmv_ell with fresh arrays. It was removed.) Results: a large result
    that the traced program computes (not an argument passed through, not a constant, not a
    second copy of another result) is handed over in XLA's buffer; the rest are copied by
    the runtime. ``copy_note`` says which, for ``explain``.

    With ``shardings`` (``(in_shardings, out_shardings)`` of ``NamedSharding``s, None for a
    result the partitioner places; see runtime/sharding.py) the program is partitioned over
    the mesh by XLA's SPMD partitioner. ``keep_sharded`` returns ``jax.Array``s instead of
    NumPy arrays (``to_host`` gathers one)."""

    def __init__(self, fn: Function, shardings=None, keep_sharded: bool = False):
        import jax
        self.fn = fn
        self._jax = jax
        self._staging = threading.local()  # per thread: argument index -> aligned buffer
        self.shardings = shardings
        self.keep_sharded = keep_sharded
        self._dtypes = [np.dtype(np_dtype(v.type.dtype)) for v in fn.args]
        self._fresh_results: frozenset | None = None

        def body(*args):
            return tuple(_Ctx(shardings is not None).run_block(fn.body, list(args)))

        self._body = body
        self.options, self.options_note = compiler_options(jax.default_backend())
        kw = {}
        if shardings is not None:
            kw = {"in_shardings": tuple(shardings[0]), "out_shardings": tuple(shardings[1])}
        self._jitted = jax.jit(body, compiler_options=self.options or None, **kw)

    def __call__(self, *args) -> list:
        tls = self._staging
        try:
            x64 = tls.x64
        except AttributeError:  # one context object per thread, reused (it holds the
            x64 = tls.x64 = self._jax.enable_x64(True)  # previous value while entered)
        with x64:
            if self.shardings is not None:
                out = self._jitted(*self._inputs(args))
                if self.keep_sharded:
                    return list(out)
                return [self.to_host(o) for o in out]
            staged = [self._stage(k, a) for k, a in enumerate(args)]
            out = self._jitted(*staged)
            fresh = self._fresh()
        res = Results()
        for i, o in enumerate(out):
            if i in fresh:
                v = np.asarray(o)
                # a result the program computed: handed over when large, else one copy
                res.append(_handed_over(o, v) if v.nbytes >= _HANDOVER_MIN_BYTES
                           else np.array(v))
            else:   # XLA's view of an argument or a constant: the runtime copies it
                res.append(np.asarray(o))
        res.fresh = fresh
        return res

    def runner_source(self, c, args):
        """The body of a fast-path runner (runtime/fast_path.py) for version ``c`` (``plain``
        set: one result, every result new) called with arguments of the types of ``args``:
        (source lines, the names they use). It does what ``__call__`` and ``run_compiled``
        do, with the per-argument decisions of ``_stage`` that the raw key fixes (small or
        0-d arrays of the compiled dtype passed as they are) taken here. None with a mesh."""
        if c.plain is None or self.shardings is not None or len(self._fresh()) != \
                len(self.fn.body.terminator.operands):
            return None
        ri, how = c.plain
        full = tuple(args) + c.implicit
        names = {"asarray": np.asarray, "stage": self._stage, "tls": self._staging,
                 "jitted": self._jitted, "enable_x64": self._jax.enable_x64,
                 "handed_over": _handed_over, "copy": np.array}
        staged = []
        for k, j in enumerate(c.arg_map):
            a, dt = full[j], self._dtypes[k]
            names[f"dt{k}"] = dt
            if j >= len(args):   # a global or closure array
                names[f"fixed{k}"] = a
                staged.append(f"stage({k}, fixed{k})")
            elif type(a) is np.ndarray and a.dtype == dt and (
                    a.ndim == 0 or a.nbytes < _STAGE_MIN_BYTES):   # fixed by the raw key
                staged.append(f"args[{j}]")
            elif type(a) is not np.ndarray:
                staged.append(f"asarray(args[{j}], dtype=dt{k})")
            else:
                staged.append(f"stage({k}, args[{j}])")
        lines = ["try:", "    x64 = tls.x64", "except AttributeError:",
                 "    x64 = tls.x64 = enable_x64(True)",
                 "with x64:", f"    o = jitted({', '.join(staged)})[{ri}]",
                 "v = asarray(o)"]
        if how == "array":
            lines.append(f"return handed_over(o, v) if v.nbytes >= {_HANDOVER_MIN_BYTES} "
                         "else copy(v)")
        else:
            lines.append("return v.item()" if how == "weak" else "return v[()]")
        return lines, names

    @property
    def fresh_results(self) -> bool:
        """True when every result is a new array (see ``Results.fresh``), so the runtime
        hands each to the caller as it is (``runtime.jit.Compiled.plain``)."""
        if self.shardings is not None:
            return False
        with self._jax.enable_x64(True):
            return len(self._fresh()) == len(self.fn.body.terminator.operands)

    def _fresh(self) -> frozenset:
        """Indices of the results the traced program computes itself: not an argument
        passed through (jax returns the argument's own buffer), not a constant (its buffer
        may be jax's cached copy), each buffer once. Traced once (under float64)."""
        if self._fresh_results is None:
            from jax.extend import core as jcore
            avals = [self._jax.ShapeDtypeStruct(v.type.shape, dt)
                     for v, dt in zip(self.fn.args, self._dtypes)]
            jaxpr = self._jax.make_jaxpr(self._body)(*avals).jaxpr
            held = {id(v) for v in list(jaxpr.invars) + list(jaxpr.constvars)}
            seen, found = set(), set()
            for i, v in enumerate(jaxpr.outvars):
                if isinstance(v, jcore.Var) and id(v) not in held and id(v) not in seen:
                    found.add(i)
                seen.add(id(v))
            self._fresh_results = frozenset(found)
        return self._fresh_results

    def copy_note(self, args) -> str:
        """Which arguments and results cross the boundary without a copy, for ``explain``."""
        notes = []
        for k, (a, v) in enumerate(zip(args, self.fn.args)):
            a = np.asarray(a)
            name = v.hint or f"argument {k}"
            if a.ndim == 0 or a.nbytes < _STAGE_MIN_BYTES:
                notes.append(f"{name}: small ({a.nbytes} B), passed as it is")
            elif a.flags.c_contiguous and a.ctypes.data % _ALIGN == 0:
                notes.append(f"{name}: read in place (64-byte aligned)")
            elif a.flags.c_contiguous:
                notes.append(f"{name}: copied into an aligned buffer (not 64-byte aligned)")
            else:
                notes.append(f"{name}: copied into an aligned buffer (not C-contiguous)")
        with self._jax.enable_x64(True):
            fresh = self._fresh()
        n = len(self.fn.body.terminator.operands)
        copied = [str(i) for i in range(n) if i not in fresh]
        notes.append("results computed by the program and at least "
                     f"{_HANDOVER_MIN_BYTES} B are handed over in XLA's buffer" +
                     (f"; results {', '.join(copied)} are copied (an argument passed "
                      "through, a constant, or a repeated result)" if copied else ""))
        return "; ".join(notes)

    def _inputs(self, args) -> list:
        staged = [self._stage(k, a) for k, a in enumerate(args)]
        from .xla_sharded import global_inputs
        return global_inputs(staged, self.shardings[0])

    def to_host(self, value):
        """A result as a NumPy array (gathered from every process where it is sharded
        across processes)."""
        if self.shardings is None or isinstance(value, np.ndarray):
            return np.asarray(value)
        from .xla_sharded import gather
        return gather(value)

    def _stage(self, k, a):
        """The value XLA is given for argument ``k`` (see the class docstring): as it is
        when XLA can read it in place; a large argument it cannot is copied (fast, by NumPy)
        into a reused aligned buffer. XLA never writes into its inputs, and results never
        alias a staging buffer (they are computed into XLA's own), so reuse is safe within
        one thread."""
        if isinstance(a, self._jax.Array):
            return a  # already on devices (moved by global_inputs where placed otherwise)
        dt = self._dtypes[k]
        if type(a) is not np.ndarray or a.dtype != dt:
            a = np.asarray(a, dtype=dt)
        if a.ndim == 0 or a.nbytes < _STAGE_MIN_BYTES or (
                a.flags.c_contiguous and a.ctypes.data % _ALIGN == 0):
            return a
        cache = self._staging.__dict__.setdefault("buffers", {})
        buf = cache.get(k)
        if buf is None or buf.shape != a.shape or buf.dtype != a.dtype:
            buf = cache[k] = _aligned_empty(a.shape, a.dtype)
        np.copyto(buf, a)
        return buf

    def _abstract(self, args):
        import jax
        return [jax.ShapeDtypeStruct(np.shape(a), np_dtype(v.type.dtype))
                for a, v in zip(args, self.fn.args)]

    def lower(self, *args):
        """``jax.jit(...).lower`` on these arguments (abstract: nothing runs)."""
        with self._jax.enable_x64(True):
            return self._jitted.lower(*self._abstract(args))

    def lower_text(self, *args) -> str:
        """The StableHLO text XLA receives (for ``explain``)."""
        return self.lower(*args).as_text()

    def compiled(self, *args):
        """XLA's compiled program for these argument shapes (partitioned where sharded):
        ``.as_text()`` is the HLO after SPMD partitioning, ``.memory_analysis()`` the bytes
        per device."""
        with self._jax.enable_x64(True):
            return self.lower(*args).compile()


class XlaBackend(Backend):
    name = "xla"
    levels = frozenset({"tensor", "control"})

    def accepts(self, fn: Function) -> tuple[bool, str]:
        ok, why = missing_rule(fn, self.name)
        if not ok:
            return ok, why
        dynamic = run_time_shape(fn)
        if dynamic:
            return False, (f"{dynamic}: XLA takes only tensors whose shapes are static; "
                           "the native backend runs it (backend='native', or leave the "
                           "choice to solvent)")
        return True, "every op has an XLA rule and every shape is static"

    def compile(self, fn: Function) -> XlaExecutable:
        return XlaExecutable(fn)

    def describe(self) -> str:
        import jax
        return (f"xla: the tensor program as jax.lax under jax.jit, compiled by XLA for "
                f"{jax.default_backend()} (loops become XLA While ops)")
