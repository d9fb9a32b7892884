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
    """An SSA value: the result of an operation or an argument of a block.

    ``uses`` lists the ``(op, operand index)`` pairs that read it; operand lists keep it
    up to date (``OperandList``), so a rewrite can ask who uses a value and replace all of
    them (``replace_all_uses_with``). Uses by ops that were dropped from the IR without
    ``Operation.erase`` may linger; ``live_uses`` skips ops that are no longer in a block."""

    __slots__ = ("type", "owner", "index", "hint", "uses")

    def __init__(self, type: Type, owner: Any = None, index: int = 0, hint: str | None = None):
        self.type = type
        self.owner = owner  # Operation (result) or Block (argument)
        self.index = index
        self.hint = hint
        self.uses: list[tuple[Operation, int]] = []

    def live_uses(self) -> list[tuple["Operation", int]]:
        return [(op, i) for op, i in self.uses if op.parent is not None]

    @property
    def has_uses(self) -> bool:
        return bool(self.live_uses())

    def replace_all_uses_with(self, new: "Value") -> None:
        if new is self:
            return
        for op, i in list(self.uses):
            op.operands[i] = new

    def __repr__(self) -> str:
        return f"<Value {self.hint or ''}: {self.type}>"


class OperandList(list):
    """An op's operands: every change updates the values' use lists."""

    __slots__ = ("op",)

    def __init__(self, op: "Operation", values=()):
        super().__init__()
        self.op = op
        self.extend(values)

    def _drop(self, i: int) -> None:
        v = list.__getitem__(self, i)
        try:
            v.uses.remove((self.op, i))
        except ValueError:
            pass

    def __setitem__(self, i, v):
        if isinstance(i, slice):
            new = list(self)
            new[i] = v
            self.clear()
            self.extend(new)
            return
        i = i % len(self) if i < 0 else i
        self._drop(i)
        list.__setitem__(self, i, v)
        v.uses.append((self.op, i))

    def append(self, v):
        list.append(self, v)
        v.uses.append((self.op, len(self) - 1))

    def extend(self, values):
        for v in values:
            self.append(v)

    def insert(self, i, v):
        for k in range(len(self)):
            self._drop(k)
        list.insert(self, i, v)
        for k in range(len(self)):
            list.__getitem__(self, k).uses.append((self.op, k))

    def clear(self):
        for k in range(len(self)):
            self._drop(k)
        list.clear(self)

    def pop(self, i=-1):
        values = list(self)
        v = values.pop(i)
        self.clear()
        self.extend(values)
        return v

    def remove(self, v):
        values = list(self)
        values.remove(v)
        self.clear()
        self.extend(values)

    def __delitem__(self, i):
        values = list(self)
        del values[i]
        self.clear()
        self.extend(values)

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __reduce__(self):  # copy/pickle as a plain list
        return (list, (list(self),))


@dataclass(eq=False)
class SourceLoc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Operation:
    __slots__ = ("name", "_operands", "attrs", "results", "regions", "loc", "parent")

    def __init__(self, name: str, operands: list[Value], result_types: list[Type],
                 attrs: dict | None = None, regions: list["Region"] | None = None,
                 loc: SourceLoc | None = None):
        self.name = name
        self._operands = OperandList(self, operands)
        self.attrs = dict(attrs or {})
        self.results = [Value(t, self, i) for i, t in enumerate(result_types)]
        self.regions = list(regions or [])
        self.loc = loc
        self.parent: Block | None = None

    @property
    def operands(self) -> OperandList:
        return self._operands

    @operands.setter
    def operands(self, values) -> None:
        values = list(values)
        self._operands.clear()
        self._operands.extend(values)

    # --- rewriting ---------------------------------------------------------------------------
    def erase(self, drop_uses: bool = False) -> None:
        """Remove this op (and its regions) from the IR. Refuses while a result is still
        used, unless ``drop_uses``."""
        if not drop_uses:
            inside = set(self.walk())
            for r in self.results:
                users = [u for u, _ in r.live_uses() if u not in inside]
                if users:
                    from .registry import IRError
                    raise IRError(f"cannot erase {self.name}: its result is used by "
                                  f"{users[0].name}")
        for inner in list(self.walk()):
            inner._operands.clear()
        if self.parent is not None:
            self.parent.ops.remove(self)
        for inner in self.walk():
            inner.parent = None

    def replace_with(self, values: list[Value]) -> None:
        """Replace every use of this op's results by ``values`` and erase it."""
        if len(values) != len(self.results):
            from .registry import IRError
            raise IRError(f"{self.name} has {len(self.results)} results, "
                          f"replaced by {len(values)} values")
        for r, v in zip(self.results, values):
            r.replace_all_uses_with(v)
        self.erase()

    def move_before(self, other: "Operation") -> None:
        self._detach()
        block = other.parent
        block.ops.insert(block.ops.index(other), self)
        self.parent = block

    def move_after(self, other: "Operation") -> None:
        self._detach()
        block = other.parent
        block.ops.insert(block.ops.index(other) + 1, self)
        self.parent = block

    def _detach(self) -> None:
        if self.parent is not None:
            self.parent.ops.remove(self)
            self.parent = None

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

    def insert(self, index: int, op: Operation) -> Operation:
        op.parent = self
        self.ops.insert(index, op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor), op)

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor) + 1, op)

    def keep_only(self, ops: list[Operation]) -> None:
        """Make ``ops`` (in order) this block's ops; an op of the block left out is dropped
        from the IR: its operands no longer count as uses (no lingering "ghost" users for
        ``live_uses``), its parent is None. Its regions are left alone (a pass may have
        moved them into a new op)."""
        kept = set(map(id, ops))
        for op in self.ops:
            if id(op) not in kept:
                op._operands.clear()
                op.parent = None
        for op in ops:
            op.parent = self
        self.ops = list(ops)

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
    # Set when solvent.jit is given a mesh: [[axis, size], ...] of the device mesh, and one
    # partition spec per argument (None: replicated; else one entry per dimension: None, an
    # axis name, or a list of axis names). Passes read it (halo_shifts); XLA's SPMD
    # partitioner splits the program by it.
    shardings: list = field(default_factory=list)
    # Filled in by the raising passes (passes/raising/): one line per loop raised, and for
    # each loop left in place (by op) the reason; ``analysis.explain_loops`` shows them.
    raised: list[str] = field(default_factory=list)
    not_raised: dict = field(default_factory=dict)
    # The raise_loops options (``RaiseLoops.Options`` field names) whose value decided
    # something raising built here: with the other value that loop would have stayed a
    # loop (a masked batch under a carried loop: masked_under_carried; an interchange whose
    # inner loop walks rows: strided_interchange). A backend whose pass_defaults set one of
    # them otherwise compiles the program again with its own (runtime.jit).
    raised_with: set = field(default_factory=set)

    @property
    def args(self) -> list[Value]:
        return self.body.args

    @property
    def result_types(self) -> list[Type]:
        term = self.body.terminator
        return [v.type for v in term.operands] if term is not None else []

    def walk(self) -> Iterator[Operation]:
        return self.body.walk()


def clone_op(op: Operation, vmap: dict) -> Operation:
    """A detached copy of ``op`` (regions included) whose operands are mapped through
    ``vmap`` (values not in it are kept); ``vmap`` learns the copy's values."""
    regions = []
    for r in op.regions:
        nb = Block()
        for a in r.block.args:
            vmap[a] = nb.add_arg(a.type, a.hint)
        for inner in r.block.ops:
            nb.append(clone_op(inner, vmap))
        regions.append(Region(nb))
    new = Operation(op.name, [vmap.get(o, o) for o in op.operands],
                    [r.type for r in op.results], dict(op.attrs), regions, op.loc)
    vmap.update(zip(op.results, new.results))
    return new


def clone_function(fn: Function) -> Function:
    """A copy of ``fn`` that shares no op, value or list with it (attribute dicts are
    copied one level deep, as ``clone_op`` does): passes rewrite the IR in place, so a
    stage run again from an earlier point (runtime.jit: raising with another backend's
    options) needs its own copy. Cheaper than a print and parse."""
    vmap: dict = {}
    body = Block()
    for a in fn.body.args:
        vmap[a] = body.add_arg(a.type, a.hint)
    for op in fn.body.ops:
        body.append(clone_op(op, vmap))
    ops = dict(zip(fn.walk(), body.walk()))   # the same program order
    new = Function(fn.name, body, list(fn.arg_names), list(fn.writeback),
                   [list(e) for e in fn.errors], list(fn.shardings), list(fn.raised),
                   {ops.get(k, k): v for k, v in fn.not_raised.items()},
                   set(fn.raised_with))
    for k, v in vars(fn).items():   # attributes a frontend or pass set beyond the fields
        if not hasattr(new, k):
            setattr(new, k, v)
    return new
