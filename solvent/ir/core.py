"""SSA values, operations with regions, blocks and functions.

An ``Operation`` is generic: its meaning (verification, types, traits) lives in its record
and its semantics and lowerings in the rule tables of the op registry
(``solvent.ir.registry``, filled by ``solvent.ops``), keyed by ``op.name``. Regions hold exactly one block whose
arguments are the region's block arguments (loop induction variable, loop-carried values).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from .types import Type


class Value:
    """An SSA value: the result of an operation or an argument of a block."""

    __slots__ = ("type", "owner", "index", "hint")

    def __init__(self, type: Type, owner: Any = None, index: int = 0, hint: str | None = None):
        self.type = type
        self.owner = owner  # Operation (result) or Block (argument)
        self.index = index
        self.hint = hint

    def __repr__(self) -> str:
        return f"<Value {self.hint or ''}: {self.type}>"


@dataclass(eq=False)
class SourceLoc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Operation:
    __slots__ = ("name", "operands", "attrs", "results", "regions", "loc", "parent")

    def __init__(self, name: str, operands: list[Value], result_types: list[Type],
                 attrs: dict | None = None, regions: list["Region"] | None = None,
                 loc: SourceLoc | None = None):
        self.name = name
        self.operands = list(operands)
        self.attrs = dict(attrs or {})
        self.results = [Value(t, self, i) for i, t in enumerate(result_types)]
        self.regions = list(regions or [])
        self.loc = loc
        self.parent: Block | None = None

    @property
    def result(self) -> Value:
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results, not one")
        return self.results[0]

    def walk(self) -> Iterator["Operation"]:
        """This op and every op nested in its regions, in program order."""
        yield self
        for region in self.regions:
            yield from region.block.walk()

    def __repr__(self) -> str:
        return f"<Operation {self.name}>"


@dataclass(eq=False)
class Block:
    args: list[Value] = field(default_factory=list)
    ops: list[Operation] = field(default_factory=list)

    def add_arg(self, type: Type, hint: str | None = None) -> Value:
        v = Value(type, self, len(self.args), hint)
        self.args.append(v)
        return v

    def append(self, op: Operation) -> Operation:
        op.parent = self
        self.ops.append(op)
        return op

    def walk(self) -> Iterator[Operation]:
        for op in self.ops:
            yield from op.walk()

    @property
    def terminator(self) -> Operation | None:
        return self.ops[-1] if self.ops else None


@dataclass(eq=False)
class Region:
    block: Block = field(default_factory=Block)


@dataclass(eq=False)
class Function:
    """A function: arguments are the entry block's arguments; ends with ``func.return``."""

    name: str
    body: Block
    arg_names: list[str] = field(default_factory=list)
    # Filled in by functionalization: for each function result, the index of the argument
    # whose buffer it must be written back into, or None for a returned value.
    writeback: list[int | None] = field(default_factory=list)
    # Filled in by checks_to_values: [kind, message, source location] for each error code
    # 1, 2, ...; the function's last two results are then the code (0: none) and its payload.
    errors: list[list] = field(default_factory=list)

    @property
    def args(self) -> list[Value]:
        return self.body.args

    @property
    def result_types(self) -> list[Type]:
        term = self.body.terminator
        return [v.type for v in term.operands] if term is not None else []

    def walk(self) -> Iterator[Operation]:
        return self.body.walk()
