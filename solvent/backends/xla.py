"""The XLA backend: tensor-level IR to ``jax.lax`` / ``jax.numpy`` calls under ``jax.jit``.

Each op's lowering lives in its op record (``OpDef.xla``); this module only walks the
function. float64 is kept by tracing and running inside ``jax.enable_x64(True)``, a scoped
context: JAX's global configuration is never changed.
"""
from __future__ import annotations

import numpy as np

from ..ir.core import Block, Function
from ..ir.types import np_dtype
from ..ops.registry import IRError, get


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


class XlaExecutable:
    """A compiled function: call it with NumPy values, get NumPy results."""

    def __init__(self, fn: Function):
        import jax
        self.fn = fn
        self._jax = jax

        def body(*args):
            return tuple(_Ctx().run_block(fn.body, list(args)))

        self._jitted = jax.jit(body)

    def __call__(self, *args) -> list:
        with self._jax.enable_x64(True):
            out = self._jitted(*[np.asarray(a, dtype=np_dtype(v.type.dtype))
                                 for a, v in zip(args, self.fn.args)])
            return [np.asarray(o) for o in out]

    def lower_text(self, *args) -> str:
        """The StableHLO text XLA receives (for ``explain``)."""
        with self._jax.enable_x64(True):
            return self._jitted.lower(*[np.asarray(a, dtype=np_dtype(v.type.dtype))
                                        for a, v in zip(args, self.fn.args)]).as_text()
