"""Every op record, one file per op family (importing this package registers them all in
the registry of the IR core, ``solvent.ir.registry``)."""
from . import array, checks, control, elementwise, linalg, reductions, structural  # noqa: F401
from ..ir.registry import REGISTRY, IRError, OpDef, get, register  # noqa: F401
