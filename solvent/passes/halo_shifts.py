"""Stencil updates as full-domain computations on shifted arrays, for sharded domains.

Identity. Let ``B`` have shape ``N``, ``R = t + k*s`` (``0 <= k < n``) a box of static
slices with positive steps ``s``, and ``f`` an elementwise function of slices
``X_j[R + o_j]`` (the same counts and steps) of arrays ``X_j`` shaped like ``B`` (``o_j`` is
slice j's offset from R) and of scalars. Then

    update_slice(B, f(X_1[R + o_1], ...), R)  ==  select(in_R, f(shift(X_1, o_1), ...), B)

where ``shift(X, o)[i] = X[i + o]`` where ``i + o`` is inside ``X`` and 0 elsewhere (a
``tensor.pad`` of a slice), and ``in_R`` is true exactly on R. On R every shifted operand
holds the same element the slice held, so f computes the same values; off R, ``select``
keeps B and f's values (computed on zeros) are discarded. With a step ``s > 1`` (a red-black
sweep ``A[1:-1:2] = f(A[:-2:2], A[2::2])``) ``in_R`` also tests ``i % s == t % s``, and f is
computed on s times the elements it needs. f is elementwise, so computing it on more
elements raises nothing (run-time checks are separate ``error.check`` ops).

Why. XLA's SPMD partitioner splits a slice of length ``N - 2`` into blocks that do not line
up with the blocks of its length-``N`` operand, so every differently shifted slice is
realigned with extra collective-permutes (and all-gathers); a full-size shift keeps the
blocks aligned and needs only the halo rows: one exchange each way per array and sharded
dimension. A strided slice is worse: a red-black Gauss-Seidel step on 8 devices took 6
collective-permutes and 7 all-gathers (of the whole array), rewritten 4 permutes and 5.5x
less time (256x256, 100 steps, 8 simulated CPU devices). Measured on 4 and 8 simulated
devices (benchmarks/sharding_scaling.py): see the README's "Many devices". The rewrite changes nothing for a single device except more
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
    """(starts, counts, steps) of a spec made only of static slices with positive steps,
    else None."""
    if len(spec) != len(shape) or any(e[0] != "s" or not isinstance(e[3], int) or e[3] < 1
                                      for e in spec):
        return None
    return ([e[1] for e in spec], [len(range(e[1], e[2], e[3])) for e in spec],
            [e[3] for e in spec])


def _same_steps(a, b, counts) -> bool:
    """Two boxes of ``counts`` elements that step alike (a dimension of one element steps
    anyhow)."""
    return all(x == y or n <= 1 for x, y, n in zip(a, b, counts))


def _leaves(v: Value, region: tuple, steps, full: tuple, out: dict) -> bool:
    """Walk the elementwise DAG computing ``v`` (shape ``region``, the update's ``steps``);
    record each slice leaf's start in ``out`` (value -> (array, starts)). False if anything
    else is found."""
    if v.type.rank == 0 or v in out:
        return True
    op = defining(v)
    if op is None or v.type.shape != region:
        return False
    if op.name == "tensor.slice" and len(op.operands) == 1:
        box = _box(op.attrs["spec"], op.operands[0].type.shape)
        if box is None or op.operands[0].type.shape != full or \
                not _same_steps(box[2], steps, region):
            return False
        out[v] = (op.operands[0], box[0])
        return True
    if op.name == "tensor.broadcast_to":
        return op.operands[0].type.rank == 0
    if get(op.name).elementwise and not op.regions:
        return all(_leaves(o, region, steps, full, out) for o in op.operands)
    return False


def _shifted(rw: Rewriter, x: Value, offsets: list[int]) -> Value:
    n = x.type.shape
    if not any(offsets):
        return x
    spec = [["s", max(o, 0), d + min(o, 0), 1] for o, d in zip(offsets, n)]
    s = rw.one("tensor.slice", x, spec=spec)
    return rw.one("tensor.pad", s, low=[max(-o, 0) for o in offsets],
                  high=[max(o, 0) for o in offsets])


def _inside(rw: Rewriter, shape: tuple, starts, counts, steps) -> Value:
    """True exactly on the box of ``counts`` elements from ``starts`` by ``steps`` (a bound
    at the array's edge needs no test; the box is never the whole array, so at least one
    comparison is made)."""
    mask = None
    for d, (lo, n, step) in enumerate(zip(starts, counts, steps)):
        hi = lo + (n - 1) * step + 1 if n else lo
        tests = [(cmp, bound) for cmp, bound, edge in (("tensor.ge", lo, 0),
                                                       ("tensor.lt", hi, shape[d]))
                 if bound != edge]
        if step > 1 and n > 1:   # every step-th index: i % step == lo % step
            tests.append(("step", step))
        if tests:
            i = rw.one("tensor.iota", dim=d, dtype="i64", shape=list(shape))
        for cmp, bound in tests:
            if cmp == "step":
                m = rw.one("tensor.eq", rw.one("tensor.mod", i, rw.constant_like(i, bound)),
                           rw.constant_like(i, lo % bound))
            else:
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
    starts, counts, steps = box
    region = tuple(counts)
    if region == full or v.type.shape != region:
        return False
    leaves: dict = {}
    # a fill by a scalar (no slice read) is rewritten only where it steps: the partitioner
    # gathers the whole array for a strided update, and splits a step-1 one well
    if not _leaves(v, region, steps, full, leaves) or \
            not leaves and all(s == 1 or n <= 1 for s, n in zip(steps, region)):
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

    mask = _inside(rw, full, starts, counts, steps)
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
