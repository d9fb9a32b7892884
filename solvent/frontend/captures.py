"""What a translation read at compile time besides its arguments, and typed value keys.

A compiled version is valid only while every module global, closure variable and helper
function the translation read still has the value it had then: each read is a ``Guard``.
``value_key`` is a hashable key equal only for values solvent compiles identically: Python's
``==``/``hash`` make ``1``, ``True`` and ``1.0`` (and ``0.0``/``-0.0``) one dict key, and
NaN unequal to itself.
"""
from __future__ import annotations

import math

import numpy as np

_MISSING = object()


def value_key(v):
    """A hashable key that is equal only for values solvent compiles identically."""
    if isinstance(v, tuple):
        return ("tuple",) + tuple(value_key(x) for x in v)
    if isinstance(v, float):
        return ("float", v.hex() if not math.isnan(v) else "nan")
    if isinstance(v, complex):
        return ("complex", value_key(v.real), value_key(v.imag))
    if isinstance(v, (bool, int, str, type(None))):
        return (type(v).__name__, v)
    if isinstance(v, np.generic):
        return ("np", v.dtype.str, value_key(v.item()))
    try:  # functions, modules...: by identity, holding the object so its id is not reused
        hash(v)
        return ("obj", v)
    except TypeError:
        return ("id", id(v))


def _immutable(v) -> bool:
    if isinstance(v, tuple):
        return all(_immutable(x) for x in v)
    return isinstance(v, (bool, int, float, complex, str, type(None), np.generic))


class Guard:
    """One name the translation read at compile time: a module global (looked up in the
    function's globals dict) or a closure cell, with the value it had."""

    __slots__ = ("holder", "name", "value", "key")

    def __init__(self, holder, name: str, value):
        self.holder = holder      # a globals dict, or a closure cell
        self.name = name
        self.value = value
        self.key = value_key(value) if _immutable(value) else None

    def current(self):
        if isinstance(self.holder, dict):
            return self.holder.get(self.name, _MISSING)
        try:
            return self.holder.cell_contents
        except ValueError:
            return _MISSING

    def holds(self) -> bool:
        now = self.current()
        if now is self.value:
            return True
        return self.key is not None and _immutable(now) and value_key(now) == self.key

    def __repr__(self):
        return f"Guard({self.name!r} = {self.value!r})"


def guards_hold(guards) -> bool:
    for g in guards:
        if not g.holds():
            return False
    return True
