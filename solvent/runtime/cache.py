"""The compiled versions of one function.

A compiled version is valid for a call when (1) the call's key matches: arrays by shape and
dtype; scalars by type; compile-time values by a typed value key
(``frontend.captures.value_key``: ``1``, ``True``, ``1.0`` and ``-0.0`` never share a version,
and NaN matches NaN, so a NaN compile-time value does not compile again on every call); and
(2) its guards hold (``frontend.captures.Guard``): every module global, closure variable and
helper function the translation read at compile time still has the value it had then.

``VersionCache`` keeps at most ``max_versions`` versions per function, least recently used
first out; an evicted version's executable is dropped, which frees XLA's compiled program.
``fast`` holds the runners of the cached-call fast path (runtime/fast_path.py) by raw key;
it is emptied whenever a version is added or dropped, so no runner outlives its version and
every version's first call after a change goes through ``get`` (and its LRU place).
"""
from __future__ import annotations

from collections import OrderedDict

from ..frontend.captures import guards_hold

DEFAULT_MAX_VERSIONS = 64


class VersionCache:
    """Compiled versions of one function, bounded, least recently used evicted first."""

    def __init__(self, max_versions: int = DEFAULT_MAX_VERSIONS):
        if isinstance(max_versions, bool) or not isinstance(max_versions, int) \
                or max_versions < 1:
            raise ValueError(f"max_versions must be a positive int, not {max_versions!r}")
        self.max_versions = max_versions
        self._d: OrderedDict = OrderedDict()
        self.evictions = 0
        self.fast: dict = {}   # raw key -> runner (runtime/fast_path.py)
        self.last = None       # the key most recently used or added: last in the LRU order

    def get(self, key):
        c = self._d.get(key)
        if c is None:
            return None
        if c.translation.guards and not guards_hold(c.translation.guards):
            del self._d[key]    # a global it read changed: compile again
            self.fast.clear()
            return None
        self._d.move_to_end(key)
        self.last = key
        return c

    def touch(self, key) -> None:
        """Mark ``key`` most recently used (a fast-path runner's call: runtime/fast_path.py,
        which calls this only when ``key is not self.last``: a function called again and again
        with one version skips the move, ~0.2 us of a ~3 us call)."""
        try:
            self._d.move_to_end(key)
        except KeyError:   # a version another thread dropped since the look-up
            return
        self.last = key

    def put(self, key, compiled) -> None:
        self.fast.clear()
        self._d[key] = compiled
        self._d.move_to_end(key)
        self.last = key
        while len(self._d) > self.max_versions:
            self._d.popitem(last=False)
            self.evictions += 1

    def __len__(self):
        return len(self._d)

    def __contains__(self, key):
        return key in self._d

    def values(self):
        return self._d.values()
