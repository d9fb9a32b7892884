"""Which attributes of ``self`` a method reads, from its source: the attributes a compiled
method's object is passed with (arg_trees.reading_only).

``self.u``, ``self.nu`` and ``self.helper(...)`` name attributes; a helper method or a
property of the class is read in turn (its own ``self`` reads count). When ``self`` is used any other way
(passed to a function, returned, assigned, ``getattr(self, name)``), the reads cannot be
known from the source: None, and the object is passed whole.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types


def self_reads(fn, cls) -> frozenset | None:
    """The attribute names method ``fn`` of ``cls`` (and the methods it calls on ``self``)
    reads from its first parameter, or None when that cannot be told from the source."""
    names: set = set()
    return frozenset(names) if _collect(fn, cls, names, set()) else None


def _collect(fn, cls, names: set, seen: set) -> bool:
    if fn in seen:
        return True
    seen.add(fn)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    node = tree.body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.args.args:
        return False
    me = node.args.args[0].arg
    through = set()        # the Name nodes of `me` read as `me.attr`
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me:
            through.add(id(n.value))
            names.add(n.attr)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == me and id(n) not in through:
            return False   # self escapes: passed, returned, rebound
        if isinstance(n, (ast.Lambda, ast.FunctionDef)) and n is not node and \
                me in {a.arg for a in n.args.args + n.args.kwonlyargs}:
            return False   # a nested function's own `self` shadows it
    for attr in list(names):
        member = inspect.getattr_static(cls, attr, None)
        if isinstance(member, types.FunctionType) and not _collect(member, cls, names, seen):
            return False
        if isinstance(member, property) and (
                not isinstance(member.fget, types.FunctionType)
                or not _collect(member.fget, cls, names, seen)):
            return False
    return True
