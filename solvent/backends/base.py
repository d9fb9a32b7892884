"""The interface every backend implements, and the checks most of them share.

A backend says whether it can run a function and why not (``accepts``), compiles it to an
executable (a callable from NumPy arguments to a list of NumPy results), and describes itself
in one line for ``explain``. Backends are registered by name in ``solvent.backends``; the
runtime chooses among them and a user may force one with ``jit(backend=...)``.
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Callable

from ..ir.core import Function
from ..ir.registry import get, lowerings
from ..ir.types import TensorType

# callable(*numpy args) -> list of numpy results
Executable = Callable[..., list]


class Backend(ABC):
    name: str = ""
    # The IR levels ("tensor", "array", "control") this backend runs in full: the registry
    # test holds it to a rule for every op of these levels. A backend that runs only some
    # ops of a level leaves it out and refuses the rest in ``accepts``.
    levels: frozenset = frozenset()
    # Whether the runtime may choose it without being asked (the reference interpreter
    # is never chosen automatically).
    automatic: bool = True
    # Pass options (by pass name, as ``jit(passes=...)`` takes them) this backend's code is
    # best compiled with; the user's own options override them (runtime/jit.py).
    pass_defaults: dict = {}

    def accepts(self, fn: Function) -> tuple[bool, str]:
        """(True, why) when every op of ``fn`` has a rule in this backend's table; else
        (False, reason naming the first op without one and its source line)."""
        return missing_rule(fn, self.name)

    @abstractmethod
    def compile(self, fn: Function) -> Executable:
        """An executable of ``fn``: call it with NumPy arguments, get NumPy results."""

    @abstractmethod
    def describe(self) -> str:
        """One line for ``explain``: what this backend is and what it runs on."""


def _at(op) -> str:
    return f" at {op.loc}" if op.loc else ""


def missing_rule(fn: Function, backend: str) -> tuple[bool, str]:
    table = lowerings(backend)
    for op in fn.walk():
        if op.name not in table and not get(op.name).terminator:
            return False, f"{op.name}{_at(op)} has no {backend} rule"
    return True, f"every op has a {backend} rule"


def run_time_shape(fn: Function) -> str | None:
    """A description of the first value whose type is not a tensor of static shape (a
    mutable ref, a dimension known only at run time) or of the first run-time slice (whose
    length is ``?`` even when a scalar fills it), or None when there is none."""
    def bad(t):
        return not isinstance(t, TensorType) or not all(
            isinstance(d, numbers.Integral) for d in t.shape)
    for v in fn.args:
        if bad(v.type):
            return f"argument {v.hint or v.index} has type {v.type}"
    for op in fn.walk():
        if any(it[0] == "r" for it in op.attrs.get("spec", ())):
            return (f"a slice with run-time bounds ({op.name}){_at(op)} has a length known "
                    "only at run time (?)")
        values = list(op.results) + [a for r in op.regions for a in r.block.args]
        for v in values:
            if bad(v.type):
                what = _RUN_TIME_CONSTRUCTS.get(op.name, op.name)
                return f"{what}{_at(op)} has a value of type {v.type}"
    return None


# the source constructs behind the ops that make run-time shapes, for refusals
_RUN_TIME_CONSTRUCTS = {
    "tensor.slice": "a slice with run-time bounds (tensor.slice)",
    "array.read": "a slice with run-time bounds (array.read)",
    "tensor.mask_select": "a boolean-mask read x[mask] or np.unique (tensor.mask_select)",
    "tensor.nonzero": "np.nonzero/np.flatnonzero/np.argwhere (tensor.nonzero)",
    "tensor.fill": "np.bincount without minlength, or np.zeros/np.ones/np.full of a length "
                   "computed from data (tensor.fill)",
}
