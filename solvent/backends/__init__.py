"""Backends, registered by name: ``xla`` (jax.lax under jax.jit), ``native`` (LLVM through
llvmlite) and ``interp`` (the NumPy reference interpreter). Each implements ``base.Backend`` (accepts with a reason, compile,
describe) and runs ops through its own rule table in the op registry.

A new backend ``name`` adds its rules with ``ir.registry.register_lowering(op, name, rule)``
(no op record is edited), implements ``Backend`` (``levels`` names the IR levels whose every
op it runs; ``accepts`` refuses the rest with the op and its source line) and is registered
below. The runtime tries the backends in registration order, skipping those that are not
``automatic``; ``jit(backend=name)`` forces one."""
from __future__ import annotations

from .. import ops  # noqa: F401  (registers every op and the built-in rule tables)
from .base import Backend

_BACKENDS: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
    if backend.name in _BACKENDS:
        raise ValueError(f"backend {backend.name!r} registered twice")
    _BACKENDS[backend.name] = backend
    return backend


def get_backend(name: str) -> Backend:
    try:
        return _BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown backend {name!r}; available backends: "
                         f"{', '.join(available_backends())}") from None


def available_backends() -> tuple[str, ...]:
    """Registered backend names, in the order the runtime tries them."""
    return tuple(_BACKENDS)


from .interp import InterpBackend  # noqa: E402
from .native import NativeBackend  # noqa: E402
from .xla import XlaBackend  # noqa: E402

register_backend(XlaBackend())
register_backend(NativeBackend())
register_backend(InterpBackend())
