"""The op registry: one record per op, and one rule table per transformation.

Each ``OpDef`` holds what is true of an op wherever it runs: result-type inference (which is
also its verification: it raises ``IRError`` for operands or attributes the op does not
accept) and its traits (pure, terminator, loop-like, region-branch, elementwise, fusible,
rough cost). Passes and backends ask the record for these facts instead of keeping name sets.

Rules that depend on a backend or a transformation live in tables keyed by op, beside the
record in the op family's file (as JAX keeps ``mlir.register_lowering`` per platform and
``ad.defjvp`` per primitive):

- ``register_lowering(op, backend, rule)``: how ``backend`` runs the op. The NumPy reference
  interpreter is the backend ``"interp"`` (its rules are the ops' reference semantics, the
  oracle of every test); ``"xla"`` lowers to ``jax.lax`` / ``jax.numpy`` under ``jax.jit``.
  A new backend adds its own table without editing any record. Array-level ops (mutable
  refs) have no XLA rule: functionalization removes them first. Terminators have no rule in
  any table: the block evaluator hands their operands to the parent op's rule.
- ``register_vjp(op, rule)``: the op's reverse-mode rule (filled in by the autodiff work).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

from .types import Type


class IRError(Exception):
    """An IR that breaks an op's rules: a compiler bug, not a user error."""


LEVELS = ("tensor", "array", "control", "terminator")
COSTS = ("cheap", "expensive")


@dataclass
class OpDef:
    name: str
    doc: str
    # (operand types, attrs) -> result types; raises IRError when the op is ill-formed.
    infer: Callable[[list[Type], dict], list[Type]]
    # "tensor": value semantics; "array": mutable refs (functionalized away); "control":
    # structured control flow with regions; "terminator": ends a region.
    level: str = "tensor"
    num_regions: int = 0
    # For each region, the terminator its block must end with.
    region_terminators: tuple[str, ...] = ()
    # Ops without side effects and regions can be removed when unused, CSE'd, hoisted.
    pure: bool = True
    # Runs its regions repeatedly (loop-invariant code can leave them).
    loop_like: bool = False
    # Runs exactly one of its regions, chosen by its operand (if-conversion applies).
    region_branch: bool = False
    # Computes each result element from the operand elements at the same (broadcast)
    # position only.
    elementwise: bool = False
    # XLA fuses it into the loop of its consumer (elementwise ops, and the data movement
    # that XLA folds into indexing: broadcast_to, slice).
    fusible: bool = False
    # "expensive": work well above one pass over its operands (contractions, factorizations,
    # gathers/scatters); not worth speculating.
    cost: str = "cheap"
    # Where the op may stand: ``(enclosing ops, innermost first) -> None``, or a sentence
    # saying why not (``simt.barrier``: only inside a loop over a block's threads). The
    # verifier asks it; None: anywhere.
    placement: Callable[[list], str | None] | None = None

    def __post_init__(self):
        if self.level not in LEVELS:
            raise ValueError(f"op {self.name}: level {self.level!r} is not one of {LEVELS}")
        if self.cost not in COSTS:
            raise ValueError(f"op {self.name}: cost {self.cost!r} is not one of {COSTS}")
        if len(self.region_terminators) != self.num_regions:
            raise ValueError(f"op {self.name}: one terminator per region "
                             f"({self.num_regions}), got {self.region_terminators}")
        self.fusible = self.fusible or self.elementwise

    @property
    def terminator(self) -> bool:
        """Ends a region; its operands are the region's results."""
        return self.level == "terminator"

    @property
    def structural(self) -> bool:
        """Control flow or a region's terminator: it does what the ops in its regions do
        (it computes a pure function of its operands when they all are pure)."""
        return self.level in ("control", "terminator")


REGISTRY: dict[str, OpDef] = {}
# backend name -> op name -> rule (op, operand values, ctx) -> result values
_LOWERINGS: dict[str, dict[str, Callable]] = {}
# op name -> rule (op, cotangents of results, ctx) -> cotangents of operands
_VJPS: dict[str, Callable] = {}


def register(opdef: OpDef, **rules: Callable) -> OpDef:
    """Register ``opdef`` and, for each ``backend=rule`` keyword, its lowering rule there
    (``register(OpDef(...), interp=..., xla=...)``)."""
    if opdef.name in REGISTRY:
        raise ValueError(f"op {opdef.name} registered twice")
    REGISTRY[opdef.name] = opdef
    for backend, rule in rules.items():
        register_lowering(opdef.name, backend, rule)
    return opdef


def get(name: str) -> OpDef:
    try:
        return REGISTRY[name]
    except KeyError:
        raise IRError(f"unknown op {name!r}") from None


def register_lowering(op_name: str, backend: str, rule: Callable) -> Callable:
    """Make ``rule(op, operand values, ctx) -> result values`` the way ``backend`` runs
    ``op_name``; ``ctx`` is the backend's context (the shared block evaluator for interp and
    xla). Returns the rule."""
    if get(op_name).terminator:  # get: a rule for an op nobody registered is a typo
        raise ValueError(f"{op_name} is a terminator: the block evaluator runs it")
    table = _LOWERINGS.setdefault(backend, {})
    if op_name in table:
        raise ValueError(f"{backend} rule for {op_name} registered twice")
    table[op_name] = rule
    return rule


def lowering(op_name: str, backend: str) -> Callable:
    try:
        return _LOWERINGS[backend][op_name]
    except KeyError:
        get(op_name)
        raise IRError(f"op {op_name} has no rule for the {backend!r} backend") from None


def lowerings(backend: str) -> Mapping[str, Callable]:
    """``backend``'s table, op name -> rule, read-only (empty for a backend without rules)."""
    return MappingProxyType(_LOWERINGS.setdefault(backend, {}))


def register_vjp(op_name: str, rule: Callable) -> Callable:
    get(op_name)
    if op_name in _VJPS:
        raise ValueError(f"VJP rule for {op_name} registered twice")
    _VJPS[op_name] = rule
    return rule


def vjp_rule(op_name: str) -> Callable:
    try:
        return _VJPS[op_name]
    except KeyError:
        get(op_name)
        raise IRError(f"op {op_name} has no VJP rule (not differentiable yet)") from None


def expect(cond: bool, msg: str) -> None:
    if not cond:
        raise IRError(msg)
