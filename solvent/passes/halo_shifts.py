"""Stencil updates as full-domain computations on shifted arrays, for sharded domains.

Identity. Let ``B`` have shape ``N``, ``R = [t, u)`` a box of static step-1 slices, and ``f``
an elementwise function of slices ``X_j[t + o_j, u + o_j)`` of arrays ``X_j`` shaped like
``B`` (``o_j`` is slice j's offset from R) and of scalars. Then

    update_slice(B, f(X_1[R + o_1], ...), R)  ==  select(in_R, f(shift(X_1, o_1), ...), B)

where ``shift(X, o)[i] = X[i + o]`` where ``i + o`` is inside ``X`` and 0 elsewhere (a
``tensor.pad`` of a slice), and ``in_R`` is true exactly on R. On R every shifted operand
holds the same element the slice held, so f computes the same values; off R, ``select``
keeps B and f's values (computed on zeros) are discarded. f is elementwise, so computing
it on more elements raises nothing (run-time checks are separate ``error.check`` ops).

Why. XLA's SPMD partitioner splits a slice of length ``N - 2`` into blocks that do not line
up with the blocks of its length-``N`` operand, so every differently shifted slice is
realigned with extra collective-permutes (and all-gathers); a full-size shift keeps the
blocks aligned and needs only the halo rows: one exchange each way per array and sharded
dimension. Measured on 4 and 8 simulated devices (benchmarks/sharding_scaling.py): see
the README's "Many devices". The rewrite changes nothing for a single device except more
arithmetic, so by default it runs only on a function whose IR carries shardings with some
argument split (``Function.shardings``, set when ``solvent.jit`` is given a mesh); option
``enabled`` forces it on or off.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Function, Operation, Value
from ..ir.registry import get
from ..ir.rewrite import Pattern, Rewriter, apply_patterns, defining
from .base import Pass


def _box(spec, shape):
    """(starts, stops) of a spec made only of static step-1 slices, else None."""
    if len(spec) != len(shape) or any(e[0] != "s" or e[3] != 1 for e in spec):
        return None
    return [e[1] for e in spec], [e[2] for e in spec]


def _leaves(v: Value, region: tuple, full: tuple, out: dict) -> bool:
    """Walk the elementwise DAG computing ``v`` (shape ``region``); record each slice leaf's
    offset in ``out`` (value -> (array, offsets)). False if anything else is found."""
    if v.type.rank == 0 or v in out:
        return True
    op = defining(v)
    if op is None or v.type.shape != region:
        return False
    if op.name == "tensor.slice" and len(op.operands) == 1:
        box = _box(op.attrs["spec"], op.operands[0].type.shape)
        if box is None or op.operands[0].type.shape != full:
            return False
        out[v] = (op.operands[0], box[0])
        return True
    if op.name == "tensor.broadcast_to":
        return op.operands[0].type.rank == 0
    if get(op.name).elementwise and not op.regions:
        return all(_leaves(o, region, full, out) for o in op.operands)
    return False


def _shifted(rw: Rewriter, x: Value, offsets: list[int]) -> Value:
    n = x.type.shape
    if not any(offsets):
        return x
    spec = [["s", max(o, 0), d + min(o, 0), 1] for o, d in zip(offsets, n)]
    s = rw.one("tensor.slice", x, spec=spec)
    return rw.one("tensor.pad", s, low=[max(-o, 0) for o in offsets],
                  high=[max(o, 0) for o in offsets])


def _inside(rw: Rewriter, shape: tuple, starts, stops) -> Value:
    """True exactly on the box [starts, stops) (a bound at the array's edge needs no test;
    the box is never the whole array, so at least one comparison is made)."""
    mask = None
    for d, (lo, hi) in enumerate(zip(starts, stops)):
        tests = [(cmp, bound) for cmp, bound, edge in (("tensor.ge", lo, 0),
                                                       ("tensor.lt", hi, shape[d]))
                 if bound != edge]
        if tests:
            i = rw.one("tensor.iota", dim=d, dtype="i64", shape=list(shape))
        for cmp, bound in tests:
            m = rw.one(cmp, i, rw.constant_like(i, bound))
            mask = m if mask is None else rw.one("tensor.and", mask, m)
    return mask


def _rewrite(op: Operation, rw: Rewriter) -> bool:
    if len(op.operands) != 2:
        return False  # run-time positions
    b, v = op.operands
    full = b.type.shape
    box = _box(op.attrs["spec"], full)
    if box is None or not full:
        return False
    starts, stops = box
    region = tuple(hi - lo for lo, hi in zip(starts, stops))
    if region == full or v.type.shape != region:
        return False
    leaves: dict = {}
    if not _leaves(v, region, full, leaves) or not leaves:
        return False
    memo: dict = {}
    for leaf, (x, at) in leaves.items():
        memo[leaf] = _shifted(rw, x, [a - t for a, t in zip(at, starts)])

    def grow(w: Value) -> Value:
        if w.type.rank == 0:
            return w
        if w not in memo:
            d = defining(w)
            if d.name == "tensor.broadcast_to":
                memo[w] = rw.one("tensor.broadcast_to", d.operands[0], shape=list(full))
            else:
                memo[w] = rw.create(d.name, [grow(o) for o in d.operands], **d.attrs).result
        return memo[w]

    mask = _inside(rw, full, starts, stops)
    rw.replace_op(op, [rw.one("tensor.select", mask, grow(v), b)])
    return True


PATTERNS = [Pattern("stencil_update_as_shifts", "tensor.update_slice", _rewrite, __doc__)]


class HaloShifts(Pass):
    name = "halo_shifts"

    @dataclass(frozen=True)
    class Options:
        enabled: bool | None = None  # None: where the IR says an argument is split

    def run(self, fn: Function) -> Function:
        on = self.options.enabled
        if on is None:
            on = bool(fn.shardings) and any(s is not None for s in fn.shardings[1])
        if on:
            apply_patterns(fn, PATTERNS)
        return fn
