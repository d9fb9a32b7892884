"""Reverse-mode automatic differentiation of solvent's tensor IR (issue 11).

``transform.vjp_function`` differentiates an optimized IR function into a new IR function;
the ``rules_*`` modules fill the VJP table (``ir.registry.register_vjp``) beside the op
families; ``api`` offers ``solvent.grad``, ``solvent.value_and_grad``, ``solvent.vjp``.
"""
from . import (rules_complex, rules_elementwise, rules_linalg, rules_reductions,  # noqa: F401
               rules_structural)
from .transform import DifferentiationError, vjp_function

__all__ = ["vjp_function", "DifferentiationError"]
