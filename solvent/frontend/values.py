"""What the frontend knows about each Python value while it translates a function.

- ``Const``: a compile-time Python value (ints from shapes, literals, tuples, modules...).
- ``Tensor``: a runtime value (an SSA tensor; rank 0 is a scalar). ``weak`` marks Python
  scalars (NEP 50: they take the dtype of the array they meet); ``deps`` lists the scalar
  arguments it was computed from, so a value needed at compile time can be specialized.
- ``ArrayRef``: a NumPy array variable: a mutable ``Buffer`` seen through a chain of views.
- ``TupleVal``: a tuple holding runtime values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir.core import Block, Value
from ..ir.types import TensorType


@dataclass(frozen=True)
class Const:
    value: Any


@dataclass(frozen=True)
class Tensor:
    v: Value
    weak: bool = False
    deps: frozenset = frozenset()
    # a rank-0 value that NumPy would hand back as a 0-d ndarray rather than a scalar
    array0d: bool = False
    # a number that is a 0-d array variable on some paths (``a = a * 2`` of a 0-d argument
    # under an if or in a loop): why changing it in place (``a += 1``) is refused
    guard: str | None = None

    @property
    def type(self) -> TensorType:
        return self.v.type

    @property
    def shape(self):
        return self.v.type.shape

    @property
    def dtype(self) -> str:
        return self.v.type.dtype


@dataclass(eq=False)
class Buffer:
    """One NumPy buffer. ``block`` is where it was allocated (None for arguments);
    ``guard``, when set, is why writing into it would not match NumPy."""

    ref: Value
    name: str
    block: Block | None = None
    guard: str | None = None
    # element strides of the caller's array when it is not C-contiguous (Fortran-ordered,
    # sliced with a step...): NumPy's view-or-copy rule for reshape/ravel depends on them
    strides: tuple | None = None


@dataclass(frozen=True)
class ArrayRef:
    buf: Buffer
    # view steps from the buffer: ("index", spec, dyn Values) | ("transpose", perm) |
    # ("reshape", shape)
    chain: tuple = ()
    type: TensorType = field(default=None)

    @property
    def shape(self):
        return self.type.shape

    @property
    def dtype(self) -> str:
        return self.type.dtype


@dataclass(frozen=True)
class Formatted:
    """An f-string with run-time fields, usable only as an argument of ``print``: parts are
    ``str`` literals and ``(value, conversion, format_spec)`` fields."""
    parts: tuple


@dataclass(frozen=True)
class TupleVal:
    items: tuple


@dataclass(frozen=True)
class ListVal(TupleVal):
    """A list (``[i, j]``): as an index it selects elements (integer-array indexing), where a
    tuple ``(i, j)`` indexes several axes; otherwise it behaves as a TupleVal."""


@dataclass(frozen=True)
class ListConst(Const):
    """A compile-time list (stored as a tuple, see ListVal)."""


def like_seq(template, items: tuple):
    """``items`` as the same kind of sequence as ``template`` (a list stays a list)."""
    return ListVal(items) if isinstance(template, (ListVal, ListConst)) else TupleVal(items)


# the list methods that change a list's length: refused (a compiled value has one shape)
LIST_GROWTH = ("append", "extend", "insert", "pop", "remove", "clear")


def is_list(v) -> bool:
    return isinstance(v, (ListVal, ListConst))


def make_seq(items, listy: bool):
    """A tuple (``listy``: a list) of ``items``: compile-time when every item is a plain
    compile-time value (a list item keeps the whole run-time so it stays a list)."""
    items = tuple(items)
    if all(isinstance(i, Const) and not isinstance(i, ListConst) for i in items):
        return (ListConst if listy else Const)(tuple(i.value for i in items))
    return ListVal(items) if listy else TupleVal(items)


def seq_items(v) -> tuple | None:
    """The items of a tuple or list value (run-time TupleVal/ListVal or a compile-time one),
    each a value; None for anything else."""
    if isinstance(v, TupleVal):
        return v.items
    if isinstance(v, Const) and isinstance(v.value, (tuple, range)):
        return tuple(Const(x) for x in v.value)
    from .arg_trees import Record
    if isinstance(v, Record) and v.kind == "object" and issubclass(v.cls, tuple):
        return tuple(x for _, x in v.fields)   # a namedtuple: a tuple of its fields
    return None


def is_tuple_index(v) -> bool:
    """A tuple value (not a list) used whole as an index: NumPy indexes several axes."""
    return not isinstance(v, (ListVal, ListConst)) and seq_items(v) is not None


@dataclass(frozen=True)
class ReturnChoice:
    """A returned array that is the caller's argument on one path of a run-time ``if`` and
    another array on the other: NumPy hands back the argument object itself on its path.
    ``flag`` (i1) is true on the ``then`` path; ``then``/``other`` are the argument views
    (ArrayRef), a nested ReturnChoice (an if inside that path), or None for a computed array,
    whose value is ``merged`` (both paths' contents, used for everything but the identity of
    the returned object)."""
    flag: Tensor
    then: ArrayRef | None
    other: ArrayRef | None
    merged: Any

    @property
    def shape(self):
        return self.merged.shape

    @property
    def dtype(self) -> str:
        return self.merged.dtype


def same_binding(a, b) -> bool:
    """True when two bindings of a name are the same value (no merge needed)."""
    if a is b:
        return True
    if isinstance(a, ArrayRef) and isinstance(b, ArrayRef):
        return a.buf is b.buf and a.chain == b.chain
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return a.v is b.v and a.weak == b.weak
    if isinstance(a, Const) and isinstance(b, Const):
        return type(a.value) is type(b.value) and _const_eq(a.value, b.value)
    if isinstance(a, TupleVal) and isinstance(b, TupleVal):
        return len(a.items) == len(b.items) and all(map(same_binding, a.items, b.items))
    return False


def _const_eq(x, y) -> bool:
    try:
        return bool(x == y) if not (isinstance(x, float) and x != x) else (y != y)
    except Exception:
        return x is y
