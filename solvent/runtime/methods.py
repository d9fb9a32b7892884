"""Methods compiled by solvent: ``@solvent.jit`` on a ``def`` in a class, or
``solvent.jit(obj.method)``. The object is the method's first argument, passed as a
container (frontend/arg_trees.py): its array attributes are arguments of their own, written
in place (``self.u[1:-1] = ...`` reaches the object's array), its numbers run-time values;
assigning an attribute is refused with the line (it would not reach the object). Only the
attributes the method's source reads (frontend/self_reads.py) are passed, so the others
(a growing list of snapshots, a figure) neither recompile it nor need to be passable.
"""
from __future__ import annotations

from ..frontend.arg_trees import reading_only
from ..frontend.self_reads import self_reads


class BoundJit:
    """A compiled function bound to an object, called with the object first."""

    def __init__(self, jitted, obj):
        self.jitted, self.obj = jitted, obj
        reads = jitted.__dict__.setdefault("_self_reads", {})
        cls = type(obj)
        if cls not in reads:
            reads[cls] = self_reads(jitted.pyfn, cls)
        self.reads = reads[cls]

    def __call__(self, *args, **kwargs):
        with reading_only(self.obj, self.reads):
            return self.jitted(self.obj, *args, **kwargs)

    def explain(self, *args, **kwargs) -> str:
        with reading_only(self.obj, self.reads):
            return self.jitted.explain(self.obj, *args, **kwargs)

    def __repr__(self):
        return f"<solvent method {self.jitted.pyfn.__qualname__} of {self.obj!r}>"


class PartialJit:
    """``solvent.jit(functools.partial(f, *args, **keywords))``: ``f`` compiled, called
    with the partial's arguments first and its keywords under the call's own (as the
    partial itself calls ``f``)."""

    def __init__(self, jitted, partial):
        self.jitted, self.args, self.keywords = jitted, partial.args, partial.keywords

    def _merged(self, args, kwargs):
        return (*self.args, *args), {**self.keywords, **kwargs}

    def __call__(self, *args, **kwargs):
        a, k = self._merged(args, kwargs)
        return self.jitted(*a, **k)

    def explain(self, *args, **kwargs) -> str:
        a, k = self._merged(args, kwargs)
        return self.jitted.explain(*a, **k)

    def __repr__(self):
        return f"<solvent partial of {self.jitted.pyfn.__qualname__}>"

