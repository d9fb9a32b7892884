"""Passes are objects with typed options; ``pipeline.build_pipeline`` assembles them.

A pass subclass names itself, declares its options as a dataclass (``Options``), and
implements ``run(fn) -> fn``. ``Pass(**options)`` checks option names and types, so a
benchmark that A/Bs a choice passes an option instead of patching a module global.
"""
from __future__ import annotations

import dataclasses
import typing
from typing import ClassVar

from ..ir.core import Function
from ..ir.rewrite import apply_patterns


@dataclasses.dataclass(frozen=True)
class NoOptions:
    pass


class Pass:
    name: ClassVar[str] = ""
    Options: ClassVar[type] = NoOptions
    # the IR holds no refs after this pass (the verifier checks it)
    tensor_only: ClassVar[bool] = True
    # set by a pass's last run when it found nothing to do: explain shows no stage for it
    idle: bool = False

    def __init__(self, **options):
        fields = {f.name: f for f in dataclasses.fields(self.Options)}
        hints = typing.get_type_hints(self.Options) if options else {}
        for k, v in options.items():
            if k not in fields:
                raise TypeError(f"pass {self.name!r} has no option {k!r}; options: "
                                f"{', '.join(fields) or 'none'}")
            want = hints.get(k) if isinstance(hints.get(k), type) else None
            if want is not None and not isinstance(v, want):
                raise TypeError(f"pass {self.name!r} option {k!r} takes {want.__name__}, "
                                f"got {type(v).__name__}")
        self.options = self.Options(**options)

    def run(self, fn: Function) -> Function:
        raise NotImplementedError

    def __repr__(self) -> str:
        opts = dataclasses.asdict(self.options)
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in opts.items())})"


@dataclasses.dataclass(frozen=True)
class OffByDefault:
    enabled: bool = False   # a backend turns it on (its ``pass_defaults``)


class BackendPass(Pass):
    """A pass off unless a backend's ``pass_defaults`` turn it on. ``transform(fn)`` changes
    ``fn`` in place and returns how many places it changed; none leaves the pass ``idle``,
    which automatic choice reads (runtime.jit: a backend's options that changed nothing
    need no second build)."""
    Options: ClassVar[type] = OffByDefault

    def transform(self, fn: Function) -> int:
        raise NotImplementedError

    def run(self, fn: Function) -> Function:
        self.idle = not self.options.enabled or not self.transform(fn)
        return fn


class RulesPass(Pass):
    """A pass that applies one rule set (``rules``: pattern records, each stating its
    identity) to a fixpoint with ``ir.rewrite.apply_patterns``."""
    rules: ClassVar[list] = []

    def run(self, fn: Function) -> Function:
        apply_patterns(fn, self.rules)
        return fn
