"""Every op record, one file per op family, with its rules for the built-in backends
(``interp`` and ``xla``) beside it. Importing this package registers them all in the
registry of the IR core, ``solvent.ir.registry``."""
from . import array, checks, control, elementwise, linalg, reductions, structural  # noqa: F401
from . import decompositions, dynamic, fft, io, simt, sorting, triangular  # noqa: F401
from ..ir.registry import REGISTRY, IRError, OpDef, get, register  # noqa: F401
