"""Lists assigned by index: ``counts = [0] * nbins`` and ``counts[k] += 1``, the counter and
accumulator lists of code ported from C.

A list of numbers held in a name is a compile-time sequence until an item is assigned; then
the name is bound to a ``ListRef``: a buffer holding the items (the dtype ``np.array`` of the
list gives), written in place. When the list was made before a loop that assigns into it,
the first translation of the loop stops (``ListMutates``) and the loop is translated again
with the buffer made before it, so every iteration writes the same buffer.

Identity: a Python list of n numbers assigned item by item holds at index i what was
assigned there last; so does the buffer. Item types stay as the buffer's dtype: a store that
Python's list would keep as another type (a float into a list of ints, a float32 into a list
of floats) is refused, never converted. Known difference: an item read back is a NumPy
scalar of the buffer's dtype, where Python may still hold a Python float; the two differ
only in arithmetic with float32 or complex64 values (``s[0] += x32[i]`` on ``s = [0.0]``
sums in float32 in Python, in float64 here). A ``ListRef`` acts as an array where lists and arrays agree (indexing, ``len``,
iteration, ``np.array``, ``sum``); list arithmetic, printing and appending are refused (see
list_growth.refuse_list_arithmetic); returned, it is a Python list again.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir.types import dtype_name, np_dtype
from .values import ArrayRef, Const, ListConst, ListVal, TupleVal, seq_items


@dataclass(frozen=True)
class ListRef(ArrayRef):
    """A list of numbers assigned by index, held in a buffer (see the module doc).
    ``python_items``: every item was a Python number (returned, a list of Python numbers)."""
    python_items: bool = False


class ListMutates(Exception):
    """Internal: an item of ``name``'s list (``obj``) is assigned inside a loop."""

    def __init__(self, name, obj):
        self.name, self.obj = name, obj


def is_plain_list(v) -> bool:
    """A list (not a tuple) of values, run-time or compile-time (``[0] * 3`` is a Const)."""
    return isinstance(v, (ListVal, ListConst)) or (isinstance(v, Const) and
                                                   type(v.value) is list)


class ListItemsMixin:
    def list_store_target(self, name_node, obj):
        """The value to store into for ``name[...] = v`` when ``obj`` (the name's value) is a
        list: the list made a ``ListRef`` (here, or before the loop being translated)."""
        import ast
        if not is_plain_list(obj) or not isinstance(name_node, ast.Name):
            return obj
        name = name_node.id
        if self.loop_entry_envs and any(env.get(name) is obj for env in self.loop_entry_envs):
            raise ListMutates(name, obj)     # made before the loop: made a buffer there
        ref = self.list_buffer(name, obj)
        self.env[name] = ref
        return ref

    def list_buffer(self, name, obj) -> ListRef:
        items = seq_items(obj) if isinstance(obj, TupleVal) else \
            tuple(Const(v) for v in obj.value)
        if not items:
            raise self.unsupported(f"assigning an item of the empty list {name!r}")
        if any(isinstance(i, TupleVal) or self.tensor_type(i).rank for i in items):
            raise self.unsupported(f"assigning into {name!r}, a list holding arrays or lists",
                                   "make it an array: np.array(...)")
        from .npapi_creation import _copy
        t = self.tensor(_copy(self, ListVal(items)))   # the dtype np.array of it gives
        ref = self.new_buffer(t, name)
        weak = all((isinstance(i, Const) and type(i.value) in (int, float, complex, bool)) or
                   (not isinstance(i, Const) and getattr(self.tensor(i), "weak", False))
                   for i in items)
        return ListRef(ref.buf, (), ref.type, python_items=weak)

    def check_list_store(self, target, value) -> None:
        """Refuse ``L[i] = v`` where Python's list would then hold an item of another type."""
        if not isinstance(target, ListRef):
            return
        t = self.tensor(value)
        strong = np.dtype(np_dtype(t.dtype))
        have = np.dtype(np_dtype(target.dtype))
        if dtype_name(np.result_type(have, strong)) != target.dtype or (
                t.weak and strong.kind != have.kind) or (
                not t.weak and strong.kind in "fc" and strong != have):
            # (a float32 stored among Python floats: np.array of the list is float32 only
            # once every item is, which depends on the run)
            raise self.unsupported(
                f"storing a {strong} value into a list of {np_dtype(target.dtype)} items "
                "(Python's list would hold it as it is)",
                "make the list's items of that type from the start (e.g. [0.0] * n)")

    def prepare_lists(self, saved_env, error: ListMutates):
        """Before the loop being retranslated: ``error.name``'s list becomes a buffer."""
        if saved_env.get(error.name) is not error.obj or any(
                env.get(error.name) is error.obj for env in self.loop_entry_envs):
            raise error        # made before an enclosing loop: that loop makes it
        saved_env[error.name] = self.list_buffer(error.name, error.obj)
