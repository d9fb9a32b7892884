"""Moving arguments onto a device mesh and results back, and reading the partitioned HLO.

Within one process ``jax.jit`` takes NumPy arguments and shards them by its
``in_shardings`` itself. Across processes (``jax.distributed``) a sharding spans devices of
other processes, which jit accepts only as a global ``jax.Array``: every process holds the
whole NumPy argument (the same values: the same script runs everywhere) and gives
``jax.make_array_from_callback`` the pieces that live on its own devices. A ``jax.Array``
argument placed otherwise than its spec asks is moved with ``jax.device_put``. A result sharded
across processes is gathered with ``multihost_utils.process_allgather``, so every process
gets the whole array.
"""
from __future__ import annotations

import re

import numpy as np

COLLECTIVES = ("collective-permute", "all-gather", "all-reduce", "all-to-all",
               "reduce-scatter")


def global_inputs(values, shardings) -> list:
    out = []
    for v, s in zip(values, shardings):
        if s is not None and not isinstance(v, np.ndarray) and hasattr(v, "sharding") \
                and not v.sharding.is_equivalent_to(s, v.ndim):
            # a jax.Array placed otherwise (the result of a call with other specs or
            # another mesh, an array committed to one device): jax.jit refuses it as it
            # is ("Sharding passed to jit does not match"), so it is moved first
            import jax
            v = jax.device_put(v, s)
        if s is None or s.is_fully_addressable or not isinstance(v, np.ndarray):
            out.append(v)
            continue
        import jax
        a = v
        out.append(jax.make_array_from_callback(a.shape, s, lambda idx, a=a: a[idx]))
    return out


def gather(value):
    if getattr(value, "size", 1) == 0:
        # nothing to gather; jax's own gather of a zero-size result that XLA passed
        # through from a sharded argument raised ("could not broadcast input array from
        # shape (8,0) into shape (1,0)")
        return np.empty(value.shape, value.dtype)
    if getattr(value, "is_fully_addressable", True):
        return np.asarray(value)
    from jax.experimental import multihost_utils
    return np.asarray(multihost_utils.process_allgather(value, tiled=True))


def count_collectives(hlo_text: str) -> dict[str, int]:
    """How many of each collective the (partitioned) HLO text holds: an async pair
    (``all-gather-start``/``-done``) counts once."""
    return {name: len(re.findall(r"= [^=\n]*\b%s(?:-start)?\(" % re.escape(name), hlo_text))
            for name in COLLECTIVES}
