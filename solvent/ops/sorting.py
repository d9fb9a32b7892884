"""Sorting along one axis: ``tensor.sort`` (values) and ``tensor.argsort`` (int64 indices).

NumPy's order: NaN last (floats), complex lexicographic (real, then imaginary), and for
``argsort`` the stable order (``kind="stable"``: ties keep their original order). NumPy's
default quicksort is not stable, so argsort results on inputs with ties may differ from
``np.argsort(x)`` with the default kind; the sorted values they produce are the same.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import TensorType
from ..ir.registry import OpDef, expect, register

try:
    import jax.numpy as jnp
except ImportError:  # pragma: no cover
    jnp = None


def _infer(name, index):
    def infer(types, attrs):
        expect(len(types) == 1, f"{name} takes one tensor")
        t = types[0]
        expect(t.rank >= 1, f"{name} needs a tensor of rank >= 1, got {t}")
        ax = attrs.get("axis")
        expect(isinstance(ax, int) and 0 <= ax < t.rank,
               f"{name}: axis {ax!r} out of range for {t}")
        return [TensorType(t.shape, "i64") if index else t]
    return infer


register(OpDef(
    name="tensor.sort", doc="numpy.sort(x, axis={axis}): values ascending, NaN last",
    infer=_infer("tensor.sort", False), cost="expensive",
),
    interp=lambda op, args, ctx: [np.sort(np.asarray(args[0]), axis=op.attrs["axis"],
                                          kind="stable")],
    xla=lambda op, args, ctx: [jnp.sort(args[0], axis=op.attrs["axis"], stable=True)],
)
register(OpDef(
    name="tensor.argsort",
    doc="numpy.argsort(x, axis={axis}, kind='stable'): int64 indices, NaN last",
    infer=_infer("tensor.argsort", True), cost="expensive",
),
    interp=lambda op, args, ctx: [np.argsort(np.asarray(args[0]), axis=op.attrs["axis"],
                                             kind="stable").astype(np.int64)],
    xla=lambda op, args, ctx: [jnp.argsort(args[0], axis=op.attrs["axis"],
                                           stable=True).astype(jnp.int64)],
)
