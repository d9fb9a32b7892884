"""Rewriting as a core service: pattern records, one ``Rewriter``, one greedy driver.

A ``Pattern`` is a row of data: the op name it matches at, a function that rewrites a
matching op through the ``Rewriter`` (returning True when it did, False when the op does
not match), the identity it relies on, and a sample builder for translation validation
(``tests/passes/test_patterns.py`` runs the interpreter before and after every pattern on
random inputs). Pattern sets are lists: they compose by ``+``.

``apply_patterns(fn, patterns)`` is the greedy worklist driver: every op is visited, a
pattern that fires queues the ops it created and the users of the values it replaced, and
the driver runs until nothing fires or the budget of rewrites is spent (then it raises
``IRError`` naming the patterns still firing: a set that never stops is a bug). Pure ops left
without uses are erased as it goes.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from .builder import Builder
from .core import Block, Function, Operation, Value
from .registry import IRError, get


@dataclass(frozen=True)
class Pattern:
    name: str
    op: str
    rewrite: Callable[[Operation, "Rewriter"], bool]
    doc: str  # the identity: "x * 1 -> x (any dtype: exact)"
    # () -> (Function, [input generators by seed]) where the pattern fires; see the tests
    sample: Callable | None = field(default=None, compare=False)


class Rewriter:
    """The one way patterns change IR: creates ops before the matched op (result types from
    the op registry), replaces and erases ops keeping use lists right, and tells the driver
    what changed."""

    def __init__(self):
        self.changed: list[Operation] = []
        self.builder = Builder(Block())
        self._anchor = None

    def at(self, op: Operation):
        """Position the builder before ``op`` (the driver does this before each pattern).
        The position in the block is found when the pattern first creates an op: most
        patterns tried do not match, and finding it is a search of the block (a block of
        n ops tried against its patterns was n searches, quadratic in n)."""
        self.builder.block = op.parent
        self.builder.index = None
        self.builder.loc = op.loc
        self._anchor = op

    def _place(self) -> None:
        if self._anchor is not None:
            self.builder.index = self._anchor.parent.ops.index(self._anchor)
            self._anchor = None

    def create(self, name: str, operands: list[Value], **attrs) -> Operation:
        self._place()
        op = self.builder.create(name, list(operands), attrs)
        self.changed.append(op)
        return op

    def one(self, name: str, *operands: Value, **attrs) -> Value:
        return self.create(name, list(operands), **attrs).result

    def constant_like(self, v: Value, value) -> Value:
        """A constant of ``v``'s type (broadcast to its shape)."""
        self._place()
        c = self.builder.constant(value, v.type.dtype)
        self.changed.append(c.owner)
        if v.type.rank:
            return self.one("tensor.broadcast_to", c, shape=list(v.type.shape))
        return c

    def replace_op(self, op: Operation, values: list[Value]) -> None:
        # the replaced op's operands may lose their last use: let the driver look again
        self.changed.extend(d for o in op.operands if (d := defining(o)) is not None)
        for r, v in zip(op.results, values):
            if r.type != v.type:
                raise IRError(f"a rewrite replaced {op.name}'s {r.type} by a {v.type}")
            self.changed.extend(u for u, _ in r.live_uses())
        op.replace_with(values)

    def erase_op(self, op: Operation) -> None:
        op.erase()

    def replace_all_uses(self, old: Value, new: Value) -> None:
        self.changed.extend(u for u, _ in old.live_uses())
        old.replace_all_uses_with(new)


def defining(v: Value, name: str | None = None) -> Operation | None:
    """The op producing ``v`` (if it is ``name`` when given)."""
    op = v.owner if isinstance(v.owner, Operation) else None
    if op is not None and name is not None and op.name != name:
        return None
    return op


def constant_value(v: Value):
    """The Python value of a ``tensor.constant`` (possibly broadcast), else None."""
    op = defining(v)
    while op is not None and op.name == "tensor.broadcast_to":
        op = defining(op.operands[0])
    if op is not None and op.name == "tensor.constant":
        return op.attrs["value"]
    return None


def index_attrs(op, spec: list | None = None) -> dict:
    """Attributes for an access at the slots ``op`` (a slice or update) touches: its spec (or
    ``spec``), and its ``unchecked`` mark: an access if-conversion or LICM speculated may
    have an index out of bounds where the program did not make it, and a copy of it (in the
    forward pass, a tape, a cotangent's read or write) must clamp there as it does, not
    raise IndexError."""
    attrs = {"spec": op.attrs["spec"] if spec is None else spec}
    if op.attrs.get("unchecked"):
        attrs["unchecked"] = True
    return attrs


def same_slots(a: Operation, b: Operation) -> bool:
    """Two slices/updates index the same slots: same spec, same index values."""
    ia = a.operands[2:] if a.name == "tensor.update_slice" else a.operands[1:]
    ib = b.operands[2:] if b.name == "tensor.update_slice" else b.operands[1:]
    return a.attrs.get("spec") == b.attrs.get("spec") and len(ia) == len(ib) and all(
        p is q for p, q in zip(ia, ib))


def pure_between(ops: list, first: int, last: int) -> bool:
    """Only pure ops strictly between positions ``first`` and ``last`` of a block's ops (a
    rewrite that moves a read across them must not cross a barrier or a write)."""
    return all(get(o.name).pure for o in ops[first + 1:last])


def is_zeros(v: Value) -> bool:
    """``v`` is a zero tensor made by ``zeros``."""
    op = v.owner
    if getattr(op, "name", None) == "tensor.broadcast_to":
        op = op.operands[0].owner
    return getattr(op, "name", None) == "tensor.constant" and op.attrs["value"] == 0


def _dead(op: Operation) -> bool:
    record = get(op.name)
    return (record.pure and not op.regions and not record.terminator and op.results
            and not any(r.has_uses for r in op.results))


# rewrites allowed per op of the function, beyond ``max_rewrites``: the rewrites a
# fixpoint needs grow with the code (long straight-line code made more than any fixed
# budget allowed when a read moved back one update per rewrite; read_after_update now
# moves it past the whole chain at once); a pattern set that cycles still stops, later
REWRITES_PER_OP = 50


def apply_patterns(fn: Function, patterns: list[Pattern], max_rewrites: int = 10000) -> int:
    """Rewrite ``fn`` in place with ``patterns`` to a fixpoint; returns the rewrite count.
    Raises IRError past ``max_rewrites`` plus ``REWRITES_PER_OP`` per op of ``fn`` (a set of
    patterns that undo each other)."""
    by_op: dict[str, list[Pattern]] = {}
    for p in patterns:
        by_op.setdefault(p.op, []).append(p)
    rw = Rewriter()
    worklist = list(reversed(list(fn.walk())))
    queued = set(map(id, worklist))
    fired: Counter = Counter()
    max_rewrites += REWRITES_PER_OP * len(worklist)
    while worklist:
        op = worklist.pop()
        queued.discard(id(op))
        if op.parent is None:
            continue  # erased meanwhile
        if _dead(op):
            operands = [o for o in op.operands]
            op.erase()
            # an operand's defining op may now be dead, and its other users may match a
            # pattern that a use by this op prevented (dot-of-transpose: every use a product)
            for d in [defining(o) for o in operands] + [u for o in operands
                                                         for u, _ in o.live_uses()]:
                if d is not None and id(d) not in queued:
                    worklist.append(d)
                    queued.add(id(d))
            continue
        for p in by_op.get(op.name, ()):
            rw.at(op)
            rw.changed = []
            if p.rewrite(op, rw):
                fired[p.name] += 1
                if sum(fired.values()) > max_rewrites:
                    top = ", ".join(f"{n} ({k}x)" for n, k in fired.most_common(3))
                    raise IRError(f"rewriting @{fn.name} did not settle within {max_rewrites} "
                                  f"rewrites; still firing: {top}")
                for c in rw.changed:
                    if c.parent is not None and id(c) not in queued:
                        worklist.append(c)
                        queued.add(id(c))
                break
    return sum(fired.values())
