"""The XLA backend: tensor-level IR to ``jax.lax`` / ``jax.numpy`` calls under ``jax.jit``.

Each op's lowering lives in its op record (``OpDef.xla``); this module only walks the
function. float64 is kept by tracing and running inside ``jax.enable_x64(True)``, a scoped
context: JAX's global configuration is never changed.
"""
from __future__ import annotations

import threading

import numpy as np

from ..ir.core import Block, Function
from ..ir.types import np_dtype
from ..ir.registry import IRError, get
from .xla_host import compiler_options


class _Ctx:
    def __init__(self):
        self.env: dict = {}

    def shape_of(self, op):
        return op.results[0].type.shape

    def run_block(self, block: Block, args: list) -> list:
        import jax.numpy as jnp
        env = self.env
        for a, v in zip(block.args, args):
            env[a] = v
        for op in block.ops:
            operands = [env[o] for o in op.operands]
            if op.name in ("loop.yield", "loop.condition", "func.return"):
                return operands
            opdef = get(op.name)
            if opdef.xla is None:
                raise IRError(f"{op.name} has no XLA lowering (level {opdef.level})")
            results = opdef.xla(op, operands, self)
            for r, v in zip(op.results, results):
                want = np_dtype(r.type.dtype)
                v = jnp.asarray(v)
                if v.dtype != want:  # a lowering that drifted from NumPy's dtype: fix, loudly in tests
                    raise IRError(f"{op.name}: XLA lowering gave {v.dtype}, op declares {want}")
                env[r] = v
        raise IRError("block without terminator")


_ALIGN = 64
_STAGE_MIN_BYTES = 1 << 16


def _aligned_empty(shape, dtype):
    n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    raw = np.empty(n + _ALIGN, dtype=np.uint8)
    off = (-raw.ctypes.data) % _ALIGN
    return raw[off:off + n].view(dtype).reshape(shape)


class XlaExecutable:
    """A compiled function: call it with NumPy values, get NumPy results."""

    def __init__(self, fn: Function):
        import jax
        self.fn = fn
        self._jax = jax
        self._staging = threading.local()  # per thread: argument index -> aligned buffer

        def body(*args):
            return tuple(_Ctx().run_block(fn.body, list(args)))

        self.options, self.options_note = compiler_options(jax.default_backend())
        self._jitted = jax.jit(body, compiler_options=self.options or None)

    def __call__(self, *args) -> list:
        with self._jax.enable_x64(True):
            out = self._jitted(*[self._stage(k, a, v) for k, (a, v) in
                                 enumerate(zip(args, self.fn.args))])
            return [np.asarray(o) for o in out]

    def _stage(self, k, a, v):
        """XLA:CPU reads a host array in place only when it is 64-byte aligned and
        contiguous; otherwise it copies it with a slow memcpy. NumPy aligns to 16 bytes, so
        large unaligned arguments are copied (fast, by NumPy) into a reused aligned buffer.
        XLA never writes into its inputs, and results never alias a staging buffer after
        the runtime copies them out, so reuse is safe within one thread."""
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

    def lower_text(self, *args) -> str:
        """The StableHLO text XLA receives (for ``explain``)."""
        with self._jax.enable_x64(True):
            return self._jitted.lower(*[np.asarray(a, dtype=np_dtype(v.type.dtype))
                                        for a, v in zip(args, self.fn.args)]).as_text()
