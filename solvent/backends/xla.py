"""The XLA backend: tensor-level IR to ``jax.lax`` / ``jax.numpy`` calls under ``jax.jit``.

Each op's lowering is registered beside its record in the ``xla`` rule table; the shared
block evaluator walks the function while ``jax.jit`` traces it. float64 is kept by tracing
and running inside ``jax.enable_x64(True)``, a scoped context: JAX's global configuration is
never changed.
"""
from __future__ import annotations

import threading

import numpy as np

from ..ir.core import Function
from ..ir.types import np_dtype
from .base import Backend, missing_rule, run_time_shape
from .evaluator import BlockEvaluator
from .xla_host import compiler_options


class _Ctx(BlockEvaluator):
    backend = "xla"

    def as_array(self, value):
        import jax.numpy as jnp
        return jnp.asarray(value)

    def shape_of(self, op):
        return op.results[0].type.shape


_ALIGN = 64
_STAGE_MIN_BYTES = 1 << 16


def _aligned_empty(shape, dtype):
    n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    raw = np.empty(n + _ALIGN, dtype=np.uint8)
    off = (-raw.ctypes.data) % _ALIGN
    return raw[off:off + n].view(dtype).reshape(shape)


class XlaExecutable:
    """A compiled function: call it with NumPy values, get NumPy results.

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

        def body(*args):
            return tuple(_Ctx().run_block(fn.body, list(args)))

        self.options, self.options_note = compiler_options(jax.default_backend())
        kw = {}
        if shardings is not None:
            kw = {"in_shardings": tuple(shardings[0]), "out_shardings": tuple(shardings[1])}
        self._jitted = jax.jit(body, compiler_options=self.options or None, **kw)

    def __call__(self, *args) -> list:
        with self._jax.enable_x64(True):
            out = self._jitted(*self._inputs(args))
            if self.keep_sharded:
                return list(out)
            return [self.to_host(o) for o in out]

    def _inputs(self, args) -> list:
        staged = [self._stage(k, a, v) for k, (a, v) in enumerate(zip(args, self.fn.args))]
        if self.shardings is None:
            return staged
        from .xla_sharded import global_inputs
        return global_inputs(staged, self.shardings[0])

    def to_host(self, value):
        """A result as a NumPy array (gathered from every process where it is sharded
        across processes)."""
        if self.shardings is None or isinstance(value, np.ndarray):
            return np.asarray(value)
        from .xla_sharded import gather
        return gather(value)

    def _stage(self, k, a, v):
        """XLA:CPU reads a host array in place only when it is 64-byte aligned and
        contiguous; otherwise it copies it with a slow memcpy. NumPy aligns to 16 bytes, so
        large unaligned arguments are copied (fast, by NumPy) into a reused aligned buffer.
        XLA never writes into its inputs, and results never alias a staging buffer after
        the runtime copies them out, so reuse is safe within one thread."""
        if isinstance(a, self._jax.Array):
            return a  # already on devices: jax.jit moves it if its placement differs
        a = np.asarray(a, dtype=np_dtype(v.type.dtype))
        if a.ndim == 0 or a.nbytes < _STAGE_MIN_BYTES or (
                a.flags.c_contiguous and a.ctypes.data % _ALIGN == 0):
            return a
        cache = self._staging.__dict__.setdefault("buffers", {})
        buf = cache.get(k)
        if buf is None or buf.shape != a.shape or buf.dtype != a.dtype:
            buf = cache[k] = _aligned_empty(a.shape, a.dtype)
        np.copyto(buf, a)
        return buf

    def lower(self, *args):
        """``jax.jit(...).lower`` on these arguments (abstract: nothing runs)."""
        import jax
        with self._jax.enable_x64(True):
            return self._jitted.lower(*[jax.ShapeDtypeStruct(np.shape(a),
                                                             np_dtype(v.type.dtype))
                                        for a, v in zip(args, self.fn.args)])

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
            return False, f"{dynamic}: XLA takes only tensors whose shapes are static"
        return True, "every op has an XLA rule and every shape is static"

    def compile(self, fn: Function) -> XlaExecutable:
        return XlaExecutable(fn)

    def describe(self) -> str:
        import jax
        return (f"xla: the tensor program as jax.lax under jax.jit, compiled by XLA for "
                f"{jax.default_backend()} (loops become XLA While ops)")
