"""Lists that grow: ``hist = []`` and ``hist.append(v)``, the way people record a time
series or collect results.

Outside loops the list is a compile-time sequence: ``append`` rebinds the name to the list
with one more item (refused when another name holds the same list: both would see it grow).

Inside a ``for`` loop over ``range`` the list's final length is bounded before the loop
starts: its items so far plus the trip count times the number of ``append`` statements for
it in the loop body. The first translation of the loop meets ``hist.append(v)`` and stops
(``ListGrows``, carrying ``v``'s dtype and shape); the loop is translated again with a buffer
of that capacity allocated before it and a count carried through it (``Growing``): each
``append`` writes ``buffer[count] = v`` and adds one. After the loop the name holds a
``GrownList``: the buffer itself when every ``append`` runs exactly once per iteration (at
the top of the body, no ``break``/``continue``), else ``buffer[:count]``, whose length is
known only at run time (the native backend and the interpreter run that).

A ``GrownList`` is the array of the list's items stacked on a first axis. It acts as that
array where a Python list and a NumPy array agree (``np.array(hist)``, ``len``, indexing,
iteration, ``sum``/``max``/``min`` and NumPy reductions, ``in``); list arithmetic (``+``,
``*``, ``==``), printing and growing it again are refused with the line; returned, it is a
Python list of its items again.

Identity: a list of n items appended in order holds, at index i, the i-th value appended;
so does the buffer at row i, and ``np.array`` of the list stacks the items as the buffer
holds them. Refused, to keep that identity: appending an array that another name can still
change (Python's list would hold that array itself, so later writes show through), appends
inside a loop nested in the growing loop, and appends in a ``while`` loop (no bound).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from ..ir.types import dtype_name, np_dtype
from .indexing import SliceItem
from .values import ArrayRef, Const, ListVal, Tensor, seq_items


@dataclass(frozen=True)
class GrownList(Tensor):
    """The items of a list grown in a loop, stacked on a first axis (see the module doc).
    ``python_items``: every item was a Python number (returned, the list holds Python
    ints/floats/bools again, as ``tolist`` gives)."""
    python_items: bool = False


@dataclass(eq=False)
class Growing:
    """A list inside the loop that grows it: items go to ``buf[count]``."""
    buf: ArrayRef
    count: str          # the hidden name of the carried count
    loop: ast.AST       # the loop that grows it
    sites: frozenset    # ids of the append calls counted into the capacity
    exact: bool         # every site runs once per iteration: the final count is known
    python_items: bool  # every item is a Python number (weak)


class ListGrows(Exception):
    """Internal: ``name``'s list (``obj``) gets an item of ``dtype``/``shape`` in a loop."""

    def __init__(self, name, obj, dtype, shape, weak):
        self.name, self.obj, self.dtype, self.shape, self.weak = name, obj, dtype, shape, weak


def _count_name(name: str) -> str:
    return f"__solvent_count_{name}"


def _append_sites(stmts, name) -> tuple[list, bool]:
    """The ``name.append(...)`` calls of a loop body (not in nested defs), and whether each is
    a statement of the body itself (so it runs once per iteration)."""
    sites, top = [], True

    def is_site(n):
        return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
            n.func.attr == "append" and isinstance(n.func.value, ast.Name) and \
            n.func.value.id == name

    def visit(n, direct):
        nonlocal top
        if isinstance(n, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if is_site(n):
            sites.append(n)
            top = top and direct
        for c in ast.iter_child_nodes(n):
            visit(c, direct and isinstance(n, ast.Expr) and n.value is c)
    for st in stmts:
        visit(st, isinstance(st, ast.Expr))
    return sites, top


class ListGrowthMixin:
    def list_append(self, node: ast.Call, obj, args, kwargs):
        """``name.append(v)`` on a list (``obj``: the name's value); returns None."""
        if kwargs or len(args) != 1:
            raise TypeError(f"{self.b.loc}: list.append() takes exactly one argument")
        name_node = node.func.value
        from .list_items import ListRef
        if isinstance(obj, ListRef):
            raise self.unsupported("appending to a list whose items are also assigned by index",
                                   "make it an array with room for every item")
        if isinstance(obj, GrownList):
            raise self.unsupported("appending to a list after the loop that grew it",
                                   "grow it in one loop, or collect into a new list")
        if not isinstance(name_node, ast.Name):
            raise self.unsupported("list.append on a list that is not held in a name")
        name, value = name_node.id, args[0]
        if isinstance(obj, Growing):
            return self._append_growing(node, name, obj, value)
        if any(v is obj for k, v in self.env.items() if k != name):
            raise self.unsupported(f"{name!r} grows while another name holds the same list",
                                   "copy the list first: other = list(...)")
        if not self.in_loop:   # a compile-time list, one item longer
            self.env[name] = ListVal(self._items(obj) + (value,))
            return Const(None)
        t = self.tensor(value)
        raise ListGrows(name, obj, t.dtype, t.shape, t.weak and not t.type.rank)

    def _named(self, value: ArrayRef) -> bool:
        """Whether a name holds ``value``'s buffer (so later writes could change it)."""
        return any(isinstance(v, ArrayRef) and v.buf is value.buf for v in self.env.values())

    def _append_growing(self, node, name, g: Growing, value):
        if id(node) not in g.sites or self.loop_stack[-1] is not g.loop:
            raise self.unsupported(
                f"appending to {name!r} inside a loop nested in the loop that grows it (or "
                "in a function it calls)", "preallocate an array and index it")
        if isinstance(value, ArrayRef) and self._named(value):
            raise self.unsupported(
                "appending an array variable: the list would hold that array itself, and "
                "later writes to it would show in the list", "append a copy: x.copy()")
        t = self.tensor(value)
        item = g.buf.type
        if t.shape != item.shape[1:]:
            raise self.unsupported(f"items of shapes {item.shape[1:]} and {t.shape} appended "
                                   f"to {name!r}", "append items of one shape")
        dt = dtype_name(np.result_type(np_dtype(item.dtype), np_dtype(t.dtype)))
        weak = t.weak and not t.type.rank
        if dt != item.dtype or (g.python_items and not weak):
            # a wider item than the buffer was made for, or a NumPy scalar among Python
            # numbers: make it again
            raise ListGrows(name, g, dt, t.shape, weak)
        count = self.env[g.count]
        self.setitem(g.buf, [count], value)
        self.env[g.count] = self.ufunc(np.add, count, Const(1))
        return Const(None)

    # --- the loop that grows lists ---------------------------------------------------------
    def growing_counts(self, entry_env) -> list:
        """The hidden count names a loop must carry (lists growing in it)."""
        return [v.count for v in entry_env.values() if isinstance(v, Growing)]

    def grow_lists(self, node: ast.For, args, translate, first: ListGrows):
        """Translate the ``for`` loop ``node`` (``translate()``) with the lists it appends
        to made buffers; ``first``: what stopped the first translation."""
        entry = dict(self.env)
        kinds: dict = {}     # name -> (dtype, shape)
        g = first
        for _ in range(8):
            old = entry.get(g.name)
            if any(env.get(g.name) is old for env in self.loop_entry_envs) or not (
                    old is g.obj or (isinstance(g.obj, Growing) and g.name in kinds)):
                raise self.unsupported(
                    f"a list appended to in nested loops ({g.name!r} grows in an inner loop)",
                    "preallocate an array and index it")
            prev = kinds.get(g.name)
            dt = g.dtype if prev is None else dtype_name(np.result_type(
                np_dtype(prev[0]), np_dtype(g.dtype)))
            kinds[g.name] = (dt, g.shape, g.weak and (prev is None or prev[2]))
            self.env = dict(entry)
            for name, (dtype, shape, weak) in kinds.items():
                self.env[name] = self._growing(node, args, name, entry[name], dtype, shape,
                                               weak)
                self.env[_count_name(name)] = self.constant(
                    len(self._items(entry[name])), "i64", weak=False)
            try:
                translate()
            except ListGrows as again:
                g = again
                continue
            for name in kinds:
                self._finish(name)
            return
        raise self.unsupported("the items appended to a list do not settle on one type")

    def _items(self, obj) -> tuple:
        items = seq_items(obj)
        if items is None:
            raise self.unsupported("append on a value that is not a list")
        return items

    def _growing(self, node, args, name, obj, dtype, shape, weak) -> Growing:
        for a in args:
            if not isinstance(a, Const):
                if getattr(a, "deps", None):
                    raise self.need_static(a, "the trip count of a loop that grows a list")
                raise self.unsupported(
                    f"{name!r} grows in a loop whose trip count is computed at run time",
                    "preallocate an array (np.empty(n)) and write items by index")
        trips = len(range(*(int(a.value) for a in args)))
        sites, top = _append_sites(node.body, name)
        jumps = any(isinstance(n, (ast.Break, ast.Continue)) for st in node.body
                    for n in ast.walk(st))
        items = self._items(obj)
        for it in items:
            t = self.tensor(it)
            if t.shape != shape:
                raise self.unsupported(f"items of shapes {t.shape} and {shape} in {name!r}",
                                       "append items of one shape")
            dtype = dtype_name(np.result_type(np_dtype(dtype), np_dtype(t.dtype)))
            weak = weak and t.weak and not t.type.rank
        cap = len(items) + trips * len(sites)
        init = self.broadcast(self.convert(self.constant(0), dtype), (cap,) + tuple(shape))
        buf = self.new_buffer(init, name)
        for k, it in enumerate(items):
            self.setitem(buf, [Const(k)], it)
        return Growing(buf, _count_name(name), node, frozenset(map(id, sites)),
                       top and not jumps, weak)

    def _finish(self, name):
        g = self.env[name]
        count = self.env.pop(g.count)
        if g.exact:
            t = self.read(g.buf)
        else:
            t = self.tensor(self.getitem(g.buf, [SliceItem(None, count, None, None)]))
        self.env[name] = GrownList(t.v, python_items=g.python_items)

    # --- what a grown list refuses ---------------------------------------------------------
    def refuse_list_arithmetic(self, *values, what: str):
        from .list_items import ListRef
        if any(isinstance(v, (GrownList, Growing, ListRef)) for v in values):
            raise self.unsupported(f"{what} on a list grown in a loop (list semantics differ "
                                   "from the array solvent holds)",
                                   "convert it first: np.array(hist)")


def _empty_message(fn) -> str:
    try:
        fn([])
    except ValueError as e:
        return str(e)
    return f"{fn.__name__}() arg is an empty sequence"


_EMPTY_MAX, _EMPTY_MIN = _empty_message(max), _empty_message(min)


def list_max(seq):
    """Python's ``max`` of a grown list: the first item, replaced by each later item that
    is greater (a NaN item is never greater: it wins only when first); an empty list is
    Python's ValueError."""
    if len(seq) == 0:
        raise ValueError(_EMPTY_MAX)
    m = np.zeros(1, dtype=seq.dtype)[0]
    for k in range(len(seq)):
        if k == 0 or seq[k] > m:
            m = seq[k]
    return m


def list_min(seq):
    """Python's ``min`` of a grown list (see ``list_max``)."""
    if len(seq) == 0:
        raise ValueError(_EMPTY_MIN)
    m = np.zeros(1, dtype=seq.dtype)[0]
    for k in range(len(seq)):
        if k == 0 or seq[k] < m:
            m = seq[k]
    return m
