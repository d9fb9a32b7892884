"""Backends: ``xla`` (jax.lax under jax.jit) and ``interp`` (the NumPy reference interpreter)."""
