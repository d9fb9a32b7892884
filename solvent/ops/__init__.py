"""The op registry and every op record (importing this package registers them all)."""
from . import array, control, elementwise, linalg, reductions, structural  # noqa: F401
from .registry import REGISTRY, IRError, OpDef, get, register  # noqa: F401
