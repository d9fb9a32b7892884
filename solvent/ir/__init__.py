"""solvent's IR: types, SSA values, ops with regions, builder, printer, parser, verifier."""
from .core import Block, Function, Operation, Region, SourceLoc, Value  # noqa: F401
from .types import RefType, TensorType, parse_type, scalar  # noqa: F401
