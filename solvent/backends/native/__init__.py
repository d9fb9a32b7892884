"""The native backend: solvent IR compiled to machine code through llvmlite (see backend.py)."""
from .backend import RULES, NativeBackend, NativeExecutable

__all__ = ["RULES", "NativeBackend", "NativeExecutable"]
