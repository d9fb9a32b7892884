"""Arguments that hold other arguments: a dict of parameters, a dataclass,
``types.SimpleNamespace`` or plain object of state (a method's ``self``), a namedtuple, a
tuple or list of arrays.

Scientists pass ``step(u, params)`` with ``params = {"dt": 0.1, "nu": 0.5}`` or a dataclass;
solvent takes such a call unchanged. Each container is walked in a fixed order (dict
insertion order, dataclass fields, attributes of a namespace, items of a sequence) to its
*leaves*: arrays and numbers become arguments of the compiled function of their own,
appended after the call's own arguments (``extend``), so they are passed, specialized,
written back and checked exactly as top-level arguments are; strings, None, dtypes and
functions inside stay compile-time values. The version key holds the containers' structure
(``structure``): another set of keys, another class or another length compiles again.

In the function a container is read only: ``p["dt"]``, ``p.dt``, ``xs[0]``, ``len(xs)``,
``for x in xs``. Arrays inside may be written in place (``p["u"][:] = ...`` reaches the
caller's array, as in NumPy). Changing the container itself (a new key, an attribute
assigned, ``xs.append``) would not reach the caller's object in compiled code, so it is
refused with the line. A list or tuple passed in and returned comes back as a new list or
tuple of the same items (Python would return the caller's object); a dict or object is not
returned.
"""
from __future__ import annotations

import contextvars
import dataclasses
import functools
import os
import sys
import sysconfig
import types
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .values import ListVal



def _static_leaf(v) -> bool:
    from .translator import is_dtype_value
    return v is None or isinstance(v, (str, types.FunctionType, np.ufunc)) or \
        is_dtype_value(v)


def _is_leaf(v) -> bool:
    return type(v) is np.ndarray or isinstance(v, (bool, int, float, complex, np.generic))


def _fields(v):
    """(kind, class, [(key, item)]) of a container, else None."""
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            return None
        return "dict", dict, list(v.items())
    if isinstance(v, tuple) and hasattr(type(v), "_fields"):       # a namedtuple
        return "object", type(v), list(zip(type(v)._fields, v))
    if isinstance(v, (tuple, list)):
        return ("list" if isinstance(v, list) else "tuple"), type(v), list(enumerate(v))
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return "object", type(v), [(f.name, getattr(v, f.name))
                                   for f in dataclasses.fields(v)]
    if type(v) is types.SimpleNamespace:
        return "object", type(v), list(vars(v).items())
    if plain_object(v):
        only = _ONLY.get()
        items = list(vars(v).items())
        if only is not None and only[0] == id(v):   # the attributes the method reads
            items = [(k, x) for k, x in items if k in only[1]]
            items += _class_data(v, only[1] - {k for k, _ in items})
        return "object", type(v), items
    return None


def _class_data(v, names) -> list:
    """[(name, value)] of the attributes in ``names`` that ``v`` reads from its class (a
    constant or an array defined in the class body: ``nu = 0.1``), read now as Python reads
    them through the instance; methods and properties are left to the translator."""
    import inspect
    out = []
    for k in sorted(names):
        m = inspect.getattr_static(type(v), k, None)
        if m is not None and not callable(m) and not isinstance(
                m, (property, staticmethod, classmethod)) and not hasattr(m, "__get__"):
            out.append((k, getattr(v, k)))
    return out


# (id of a method's ``self``, the attributes its source reads), while that method is called
_ONLY: contextvars.ContextVar = contextvars.ContextVar("solvent_self_reads", default=None)


@contextmanager
def reading_only(obj, names):
    """During the block, the plain object ``obj`` is passed as only its attributes ``names``
    (frontend/self_reads.py: those the method reads), so an attribute it never reads (a
    growing list of snapshots, a figure) neither recompiles it nor needs to be passable."""
    token = _ONLY.set(None if names is None else (id(obj), names))
    try:
        yield
    finally:
        _ONLY.reset(token)


def plain_object(v) -> bool:
    """An instance of an ordinary Python class that keeps its state in attributes (the
    ``self`` of a method: ``self.u``, ``self.nu``); not a class, module, function or other
    callable, not a NumPy or builtin object."""
    return (hasattr(v, "__dict__") and not isinstance(v, (type, types.ModuleType))
            and not callable(v) and plain_object_class(type(v)))


@functools.lru_cache(maxsize=1024)
def plain_object_class(cls) -> bool:
    """A class the user's own code defines (a ``class`` statement in a file outside the
    standard library and installed packages; not a namedtuple): a library's objects (a
    DataFrame, a logger) stay refused as arguments, with their type named."""
    if not cls.__flags__ & _HEAP_TYPE or issubclass(cls, tuple):
        return False            # a C type (a file, a lock) or a namedtuple
    mod = sys.modules.get(cls.__module__)
    path = getattr(mod, "__file__", None)
    if path is None:            # defined at the prompt or in a notebook cell
        return cls.__module__ == "__main__"
    path = os.path.realpath(path)
    return not (any(part in path for part in ("site-packages", "dist-packages"))
                or path.startswith(_STDLIB))


_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])


_HEAP_TYPE = 1 << 9    # Py_TPFLAGS_HEAPTYPE: classes made by `class`, not C types (files...)


@dataclass(frozen=True)
class Unreadable:
    """An attribute of an object passed in that compiled code cannot hold (a file, a
    figure, a lock): the call is accepted, and reading it is refused with the line."""
    path: str
    type_name: str


def _static_tuple(v) -> bool:
    if isinstance(v, tuple):
        return all(_static_tuple(x) for x in v)
    return isinstance(v, (bool, int, float, complex, str, type(None)))


def _plain_static_tuple(v) -> bool:
    return isinstance(v, tuple) and not hasattr(type(v), "_fields") and _static_tuple(v)


def node(v, depth: int = 0):
    """The container ``v`` as a tree: ("leaf", value), ("static", value), ("bad", value) or
    (kind, class, [(key, subtree)]) with kind dict/object/tuple/list."""
    if _is_leaf(v):
        return ("leaf", v)
    if _plain_static_tuple(v) or _static_leaf(v):
        return ("static", v)
    f = _fields(v) if depth <= 8 else None
    if f is None:
        return ("bad", v)
    kind, cls, items = f
    subs = [(k, node(x, depth + 1)) for k, x in items]
    if plain_object(v):   # what the method does not read need not be passable
        subs = [(k, ("opaque", x) if sub[0] == "bad" else sub) for (k, x), (_, sub)
                in zip(items, subs)]
    return (kind, cls, subs)


def is_tree(v) -> bool:
    """A container argument solvent opens (a tuple of plain numbers and strings stays one
    compile-time value, as before)."""
    return not _plain_static_tuple(v) and _fields(v) is not None


def structure(t):
    """The hashable version key of tree ``t``: its kinds, classes, keys, where leaves are
    and the values of static items."""
    from .captures import value_key
    if t[0] == "leaf":
        return ("leaf",)
    if t[0] == "static":
        return ("static", value_key(t[1]))
    if t[0] in ("bad", "opaque"):
        return (t[0], type(t[1]).__name__)
    if t[0] == "dict":
        return ("dict", tuple((k, structure(sub)) for k, sub in t[2]))
    if t[0] in ("list", "tuple"):
        return (t[0], tuple(structure(sub) for _, sub in t[2]))
    return (t[0], t[1], tuple((k, structure(sub)) for k, sub in t[2]))


def _path(path: str, kind: str, k) -> str:
    return f"{path}.{k}" if kind == "object" else f"{path}[{k!r}]"


def walk(t, path: str):
    """(path, tree) of every item of tree ``t``, depth first, in order."""
    yield path, t
    if t[0] in ("dict", "object", "tuple", "list"):
        for k, sub in t[2]:
            yield from walk(sub, _path(path, t[0], k))


def first_bad(t, path: str) -> str | None:
    """Where in tree ``t`` an item solvent cannot pass is, as a path, else None."""
    for p, sub in walk(t, path):
        if sub[0] == "bad":
            return f"{p} (a {type(sub[1]).__name__})"
    return None


def leaves(t, path: str) -> list:
    """[(path, value)] of the leaves of tree ``t``, in order."""
    return [(p, sub[1]) for p, sub in walk(t, path) if sub[0] == "leaf"]


_SCALARS = (float, int, bool, complex)
_LEAF = ("leaf",)


def flatten(v, out: list, depth: int = 0):
    """One pass over container ``v``: appends its leaves to ``out`` (the order of ``node``)
    and returns its version key (the same information as ``structure(node(v))``, built
    without the tree: this runs on every call)."""
    t = type(v)
    if t is np.ndarray or t in _SCALARS or isinstance(v, np.generic):
        out.append(v)
        return _LEAF
    if t is dict and depth <= 8:
        for k in v:
            if type(k) is not str:
                return structure(node(v, depth))
        return ("dict", tuple((k, flatten(x, out, depth + 1)) for k, x in v.items()))
    if t is list and depth <= 8:
        return ("list", tuple(flatten(x, out, depth + 1) for x in v))
    if t is tuple and depth <= 8 and not _plain_static_tuple(v):
        return ("tuple", tuple(flatten(x, out, depth + 1) for x in v))
    tree = node(v, depth)                  # objects, namedtuples, static and bad items
    out.extend(x for _, x in leaves(tree, ""))
    return structure(tree)


def extend_keyed(args: tuple):
    """(``args`` followed by the leaves of its containers in order, {position of a
    container: its version key})."""
    out, keys = None, {}
    for i, a in enumerate(args):
        if type(a) is not np.ndarray and type(a) not in _SCALARS and is_tree(a):
            if out is None:
                out = list(args)
            keys[i] = flatten(a, out)
    return (args if out is None else tuple(out)), keys


def extend(args: tuple) -> tuple:
    """``args`` followed by the leaves of its containers, in order."""
    return extend_keyed(args)[0]


def leaf_paths(args: tuple, names: list) -> list:
    """The paths (``params['dt']``, ``state.u``, ``xs[0]``) of the leaves ``extend`` appends."""
    return [p for a, n in zip(args, names) if is_tree(a) for p, _ in leaves(node(a), n)]


# --- the frontend's value of a container ------------------------------------------------------
@dataclass(frozen=True)
class Record:
    """A dict (``kind`` "dict": subscripts by key) or an object (``kind`` "object": attribute
    access; a namedtuple also by position) passed in; ``fields`` maps each key to the
    frontend value of the item; ``name`` is its path, for messages."""
    kind: str
    cls: type
    fields: tuple     # ((key, value), ...)
    name: str
    local: bool = False   # built in the compiled function ({...}, dict(...), a namedtuple)
    loops: int = 0        # how many loops around the place it was built (translated loops)

    def get(self, key, fe):
        for k, v in self.fields:
            if k == key:
                if isinstance(getattr(v, "value", None), Unreadable):
                    raise fe.unsupported(f"{v.value.path} (a {v.value.type_name}) cannot be "
                                         "read in compiled code", "pass what the function "
                                         "needs as arrays and numbers")
                return v
        what = "key" if self.kind == "dict" else "attribute"
        raise fe.unsupported(f"{self.name} has no {what} {key!r}") if self.kind != "dict" \
            else KeyError(f"{fe.b.loc}: {key!r} (not a key of the dict {self.name})")


def leaf_values(t, path: str, index: list, make_leaf):
    """The frontend value of tree ``t``: ``make_leaf(path, value, k)`` for each leaf (``k``:
    its position among the call's extended arguments, ``index[0]``, advanced here),
    compile-time values for static items."""
    from .values import Const, TupleVal
    if t[0] == "leaf":
        k = index[0]
        index[0] += 1
        return make_leaf(path, t[1], k)
    if t[0] in ("static", "bad"):
        return Const(t[1])
    if t[0] == "opaque":
        return Const(Unreadable(path, type(t[1]).__name__))
    kind, cls, items = t
    vals = tuple((k, leaf_values(sub, _path(path, kind, k), index, make_leaf))
                 for k, sub in items)
    if kind == "tuple":
        return TupleVal(tuple(x for _, x in vals))
    if kind == "list":
        return ArgList(tuple(x for _, x in vals), path)
    return Record(kind, cls, vals, path)


@dataclass(frozen=True)
class ArgList(ListVal):
    """A list passed in: read like any list; changing it is refused (the change would not
    reach the caller's list)."""
    name: str = ""


def refuse_change(fe, v, what: str):
    """The error for changing a container passed in (or a dict built in the function)."""
    if isinstance(v, Record) and v.local:
        return fe.unsupported(f"{what} of {v.name}: solvent's dicts and namedtuples built in "
                              "a compiled function keep the items they were built with",
                              "build it with all its items at once, or keep the values in "
                              "variables")
    name = v.name if isinstance(v, (Record, ArgList)) else "an argument"
    return fe.unsupported(f"{what} of {name}, a container passed in: the change would not "
                          "reach the caller's object", "copy what you change into a local "
                          "variable or an array, and return it")
