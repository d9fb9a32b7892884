"""Errors meant for users."""
from __future__ import annotations


class UnsupportedError(Exception):
    """Python that solvent cannot compile, with where it is and what to do instead."""

    def __init__(self, message: str, loc=None, hint: str | None = None):
        self.message = message
        self.loc = loc
        self.hint = hint
        text = f"{loc}: {message}" if loc else message
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)


class NeedStatic(Exception):
    """Internal: a value derived from these scalar arguments must be known at compile time.

    The runtime catches it and compiles again with those arguments specialized."""

    def __init__(self, args: frozenset, what: str, loc=None):
        self.args_needed = args
        self.what = what
        self.loc = loc
        super().__init__(f"{loc}: {what}")


class DivergentBarrierError(UnsupportedError):
    """A kernel's ``cuda.syncthreads()`` that some threads of a block would reach and others
    not (a barrier under a thread-dependent condition): refused at compile time when the
    condition depends on the thread index, raised at run time when the threads disagree."""


class ClampedWindowError(IndexError):
    """A slice ``x[i:i + w]`` compiled with its length ``w`` that, at run time, reaches past
    the end of its axis, where NumPy gives a shorter slice. The runtime catches it and
    compiles that function again with the slice's length known only at run time (the native
    backend runs it); where no backend can (``backend="xla"`` forced), the user sees it as
    the IndexError it is."""
