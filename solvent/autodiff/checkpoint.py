"""Checkpointing for long loops: a memory budget for the reverse pass (issue 11).

A ``loop.for`` with ``n`` trips records, per trip, what its reverse step needs (its tape):
``n`` times the carried state, which for a 10,000-step time loop over a large array does not
fit in memory. Checkpointing keeps the state of only ``c`` trips (the snapshots) and
recomputes the others from the nearest snapshot below them. The schedule is Griewank's
binomial one (Revolve; Griewank & Walther, ACM TOMS 26(1), 2000), which is optimal: reversing
``n`` steps with ``c`` snapshots takes

    t(n, c) = r n - C(c + r, r - 1)   forward steps, r the least with C(c + r, c) >= n

(the *repetition number*: no step runs more than ``r`` times, the reverse steps' own
recomputation of their step not counted). It is the recursion: with ``x_s`` in a snapshot,
reverse the steps ``s .. e-1`` by advancing to a split point ``m``, storing ``x_m``,
reversing ``m .. e-1`` with one snapshot fewer, then ``s .. m-1`` with as many
(``_split`` picks ``m`` so that both parts stay within the binomial bound).

How the gradient program runs it (``transform.emit_revolve_for``): the schedule becomes three
integer tables, arguments of the gradient program, read by index:

* ``store_slot[i]``: the snapshot slot that receives the state of trip ``i`` whenever a run
  passes trip ``i`` (the forward sweep, or an advance in the reverse pass), or the scratch
  slot. A trip is stored into one slot only, and a run passing it before its turn writes a
  slot above the live snapshots that a later store overwrites: the tables need no phase.
* ``restore_pos[k]``, ``restore_slot[k]``: where reverse step ``k`` restores from (the
  deepest live snapshot at or below ``k``); it then advances ``k - restore_pos[k]`` trips.

The slots: ``c`` snapshots, one for the state of the last trip (which the forward sweep
passes and Revolve would still hold in memory), and a scratch slot. ``Schedule.simulate``
replays the tables and checks every restore reads the state it should.

The policy (``checkpoints=``): ``None`` (automatic) checkpoints a loop whose tape would take
more than ``AUTO_BYTES`` with the fewest snapshots that keep the repetition number at 2 (one
extra forward run: about ``sqrt(2 n)`` snapshots); ``0`` never checkpoints; an int ``k > 0``
gives every loop of more than ``k + 1`` trips ``k`` snapshots.
"""
from __future__ import annotations

import math

import numpy as np

from ..ir.types import TensorType, np_dtype

AUTO_BYTES = 64 << 20  # a loop's tape above this is checkpointed by default


def nbytes(t) -> int:
    return int(t.size) * np_dtype(t.dtype).itemsize if isinstance(t, TensorType) else 0


def beta(c: int, r: int) -> int:
    """The most steps ``c`` snapshots reverse with repetition number ``r``: C(c + r, c)."""
    return math.comb(c + r, c) if r >= 0 and c >= 0 else 0


def repetitions(n: int, c: int) -> int:
    """The least ``r`` with ``beta(c, r) >= n``."""
    r = 0
    while beta(c, r) < n:
        r += 1
    return r


def binomial_cost(n: int, c: int) -> int:
    """t(n, c): the forward steps of the optimal schedule reversing ``n`` steps with ``c``
    snapshots (the first of which holds the initial state), reverse steps not counted."""
    if n <= 1:
        return 0
    r = repetitions(n, c)
    return r * n - beta(c + 1, r - 1)


def snapshots(n: int, per_trip: int, policy) -> int | None:
    """The number of snapshots for a loop of ``n`` trips whose tape takes ``per_trip``
    bytes a trip, or None (tape every trip)."""
    if policy is None:
        if n * per_trip <= AUTO_BYTES or n < 4:
            return None
        c = 1
        while beta(c, 2) < n:  # the fewest snapshots with one extra forward run
            c += 1
        return c
    if isinstance(policy, bool) or not isinstance(policy, int) or policy < 0:
        raise ValueError(f"checkpoints must be None (automatic), 0 (never) or a positive "
                         f"int, got {policy!r}")
    return policy if 0 < policy < n - 1 else None  # n - 1 snapshots: as much as the tape


def _split(l: int, c: int) -> int:
    """The length of the first part when ``l`` steps, their start in a snapshot and ``c``
    more snapshots free, are split optimally: with ``s = c + 1`` snapshots and repetition
    number ``r``, the first part (reversed last, with ``s`` snapshots) has a length in
    ``[max(beta(s, r-2), l - beta(s-1, r)), min(beta(s, r-1), l - beta(s-1, r-1))]``, so
    that each part's steps run once more or as often as the bound allows."""
    s = c + 1
    r = repetitions(l, s)
    lo = max(beta(s, r - 2), l - beta(s - 1, r))
    return min(max(lo, 1), l - 1)


class Schedule:
    """The binomial schedule of ``n`` trips with ``c`` snapshots as tables (module doc)."""

    def __init__(self, n: int, c: int):
        if n < 2 or c < 1:
            raise ValueError(f"a schedule needs at least 2 trips and 1 snapshot ({n}, {c})")
        self.n, self.c = n, c
        self.last, self.scratch = c, c + 1  # slots beyond the snapshots
        self.slots = c + 2
        self.store_slot = np.full(n, self.scratch, dtype=np.int64)
        self.restore_pos = np.zeros(n, dtype=np.int64)
        self.restore_slot = np.zeros(n, dtype=np.int64)
        self.store_slot[0] = 0
        self._splits(0, n, 0, c - 1)
        if self.store_slot[n - 1] == self.scratch:  # the forward sweep keeps the last state
            self.store_slot[n - 1] = self.last
        # each reverse step restores the highest trip at or below it that a slot holds
        held: dict = {}  # slot -> trip
        for i in range(n):
            held[int(self.store_slot[i])] = i
        held.pop(self.scratch, None)
        for k in range(n - 1, -1, -1):
            a, p = max(((a, p) for a, p in held.items() if p <= k), key=lambda ap: ap[1])
            self.restore_pos[k], self.restore_slot[k] = p, a
            for i in range(p, k):
                held[int(self.store_slot[i])] = i
            held.pop(self.scratch, None)
        # the forward steps of the reverse pass (the forward sweep runs all n)
        self.advances = int(np.sum(np.arange(n) - self.restore_pos))

    def _splits(self, s: int, e: int, depth: int, free: int) -> None:
        """Give the split points of the steps ``s .. e-1`` (``x_s`` in slot ``depth``,
        ``free`` slots above it) their slots."""
        while e - s > 1 and free > 0:
            m = s + _split(e - s, free)
            self.store_slot[m] = depth + 1
            self._splits(m, e, depth + 1, free - 1)
            e = m

    def simulate(self) -> int:
        """Replay the tables as the gradient program runs them (the forward sweep, then for
        k = n-1 .. 0 restore and advance, every passed trip written to its slot); raise if a
        restore reads a slot holding another trip's state. Returns the forward steps run
        (forward sweep included)."""
        slots: dict = {}
        for i in range(self.n):
            slots[int(self.store_slot[i])] = i
        steps = self.n
        for k in range(self.n - 1, -1, -1):
            p, a = int(self.restore_pos[k]), int(self.restore_slot[k])
            if slots.get(a) != p:
                raise AssertionError(f"step {k}: slot {a} holds {slots.get(a)}, not {p}")
            for i in range(p, k):
                slots[int(self.store_slot[i])] = i
                steps += 1
        return steps
