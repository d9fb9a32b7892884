"""The block evaluator shared by the backends that run the IR op by op in Python.

``run_block`` walks a block: each op's rule comes from the backend's table in the op
registry (``lowerings(backend)``), each result is checked against the op's declared type
(a run-time dimension ``?`` takes any size), so a rule that drifts from NumPy's dtype or
shape is caught where it happens, and a terminator (the record's ``terminator`` trait)
hands its operands back to the rule of the parent op, which decides what they mean (the next iteration's carried values, the branch's
results, the function's results). Region-holding rules call ``ctx.run_block`` on their
regions' blocks.

The interpreter evaluates NumPy values; the XLA backend evaluates jax values while
``jax.jit`` traces, so its walk happens once per compilation.
"""
from __future__ import annotations

from ..ir.core import Block
from ..ir.registry import IRError, get, lowering, lowerings
from ..ir.types import RefType, dims_agree, np_dtype


class BlockEvaluator:
    """One run (or one trace) of a function: ``env`` maps SSA values to backend values."""

    backend = ""  # the name of the rule table

    def __init__(self):
        self.env: dict = {}
        self.rules = lowerings(self.backend)

    def as_array(self, value):
        """The backend's array for a rule's result (for its dtype and shape)."""
        raise NotImplementedError

    def run_block(self, block: Block, args: list) -> list:
        env = self.env
        rules = self.rules
        for a, v in zip(block.args, args):
            env[a] = v
        for op in block.ops:
            operands = [env[o] for o in op.operands]
            if get(op.name).terminator:
                return operands
            rule = rules.get(op.name) or lowering(op.name, self.backend)
            results = self.apply(rule, op, operands)
            if len(results) != len(op.results):
                raise IRError(f"{op.name}: the {self.backend} rule gave {len(results)} results, "
                              f"the op has {len(op.results)}")
            for r, v in zip(op.results, results):
                env[r] = self._checked(op, r.type, v)
        raise IRError("block without terminator")

    def apply(self, rule, op, operands) -> list:
        """The results of ``op`` (a backend may lower some ops differently in context)."""
        return rule(op, operands, self)

    def _checked(self, op, t, v):
        if isinstance(t, RefType):
            return v  # a live buffer: keep identity
        arr = self.as_array(v)
        if not dims_agree(tuple(arr.shape), t.shape) or arr.dtype != np_dtype(t.dtype):
            raise IRError(f"{op.name}{' at ' + str(op.loc) if op.loc else ''}: the {self.backend} "
                          f"rule produced {arr.dtype}{list(arr.shape)}, the op declares {t}")
        return arr
