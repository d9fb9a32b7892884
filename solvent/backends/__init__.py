"""Backends, registered by name: ``xla`` (jax.lax under jax.jit) and ``interp`` (the NumPy
reference interpreter). Each implements ``base.Backend`` (accepts with a reason, compile,
describe) and runs ops through its own rule table in the op registry; a new backend
registers its rules and itself here without editing any op record."""
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
from .xla import XlaBackend  # noqa: E402

register_backend(XlaBackend())
register_backend(InterpBackend())
