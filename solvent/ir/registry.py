"""The op registry: one record per op.

Each ``OpDef`` holds everything solvent knows about one op: result-type inference (which is
also its verification: it raises ``IRError`` for operands or attributes the op does not
accept), its reference semantics on NumPy values (the interpreter, the oracle of every test),
its lowering to XLA (``jax.lax`` / ``jax.numpy`` under ``jax.jit``) and a slot for its VJP
rule. Array-level ops (mutable refs) have no XLA rule: functionalization removes them first.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .types import Type


class IRError(Exception):
    """An IR that breaks an op's rules: a compiler bug, not a user error."""


@dataclass
class OpDef:
    name: str
    doc: str
    # (operand types, attrs) -> result types; raises IRError when the op is ill-formed.
    infer: Callable[[list[Type], dict], list[Type]]
    # (op, operand values, ctx) -> result values. NumPy semantics.
    interp: Callable | None = None
    # (op, operand values, ctx) -> result values. jax values under jax.jit.
    xla: Callable | None = None
    # Reverse-mode rule: (op, cotangents of results, ctx) -> cotangents of operands.
    # Filled in by the autodiff issue; ``None`` means "not differentiable yet".
    vjp: Callable | None = None
    # "tensor": value semantics, lowered to XLA; "array": mutable refs (functionalized away);
    # "control": structured control flow with regions; "terminator": ends a region.
    level: str = "tensor"
    num_regions: int = 0
    # Ops without side effects and regions can be removed when unused, CSE'd, hoisted.
    pure: bool = True


REGISTRY: dict[str, OpDef] = {}


def register(opdef: OpDef) -> OpDef:
    if opdef.name in REGISTRY:
        raise ValueError(f"op {opdef.name} registered twice")
    REGISTRY[opdef.name] = opdef
    return opdef


def get(name: str) -> OpDef:
    try:
        return REGISTRY[name]
    except KeyError:
        raise IRError(f"unknown op {name!r}") from None


def expect(cond: bool, msg: str) -> None:
    if not cond:
        raise IRError(msg)
