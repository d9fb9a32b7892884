#!/usr/bin/env python
"""A/B benchmark of one compile-time choice of solvent on the corpus kernels.

Usage::

    python benchmarks/corpus_ab.py CHOICE [--kernels a,b] [--repeat N]

Each kernel is compiled by ``solvent.jit`` once per side of the choice, the two compiled
versions are checked to agree, and then they run alternately on fresh copies of the
bench-size arguments (copies not timed). The table gives the median over ``--repeat`` rounds
of the best of 3 calls, in ms, and the ratio A/B (> 1: B is faster); for a choice of solvent's
passes, kernels whose two sides give XLA the same StableHLO are marked: only noise sets them
apart.
Choices:

* ``vector-width``: XLA:CPU's preferred vector width, A = XLA's default (256 bits on x86),
  B = 512 bits (``SOLVENT_XLA_VECTOR_WIDTH``; solvent's rule is in
  ``solvent/backends/xla_host.py``).
* ``copy-analysis``: XLA:CPU's copy insertion, A = XLA's default analysis, B = the
  region-based one solvent asks for (``SOLVENT_XLA_COPY_ANALYSIS``; see
  ``solvent/backends/xla_host.py``).
* ``update-pass``: which slice updates are lowered as one elementwise pass
  (``solvent/ops/structural.py: one_pass_update``). A = only stencil steps whose value reads
  neighbours of the updated array (the rule before updates from other arrays were added),
  B = as shipped.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time

import numpy as np

import solvent
import solvent.ops.structural as structural
from solvent.backends.xla_host import COPY_ENV, ENV
from solvent.corpus import vectorized

from bench import copy_args


@contextlib.contextmanager
def _env(value, name=ENV):
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            del os.environ[name]
        else:
            os.environ[name] = saved


def _reads_updated_array(op):
    """Whether the update's fused value reads the array it updates (any region)."""
    x, seen, stack = op.operands[0], set(), [op.operands[1]]
    while stack:
        v = stack.pop()
        if v is x:
            return True
        d = v.owner
        if isinstance(d, type(op)) and id(d) not in seen and d.parent is op.parent:
            seen.add(id(d))
            stack.extend(d.operands)
    return False


@contextlib.contextmanager
def _neighbour_updates_only():
    shipped = structural.one_pass_update
    structural.one_pass_update = lambda op: shipped(op) and _reads_updated_array(op)
    try:
        yield
    finally:
        structural.one_pass_update = shipped


XLA_OPTIONS = {"vector-width", "copy-analysis"}  # the same StableHLO, compiled two ways
CHOICES = {
    # name: (label A, context A, label B, context B)
    "vector-width": ("default", lambda: _env("default"), "512", lambda: _env("512")),
    "copy-analysis": ("default", lambda: _env("default", COPY_ENV),
                      "region", lambda: _env("region", COPY_ENV)),
    "update-pass": ("neighbours", _neighbour_updates_only, "shipped", contextlib.nullcontext),
}


def _compiled(kernel, context, args):
    """(jitted function, its result, the StableHLO it gave XLA), made inside ``context``."""
    with context():
        f = solvent.jit(kernel)
        out = f(*copy_args(args))  # XLA compiles on the first call, inside the context
        c = f.compile(args)
        hlo = c.executable.lower_text(*[args[i] for i in c.translation.arg_map])
    return f, out, hlo


def _same(a, b):
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b))
    return a is None and b is None or np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("choice", choices=sorted(CHOICES))
    p.add_argument("--kernels", default="")
    p.add_argument("--repeat", type=int, default=7)
    a = p.parse_args()
    label_a, ctx_a, label_b, ctx_b = CHOICES[a.choice]
    wanted = set(filter(None, a.kernels.split(",")))
    print(f"{a.choice}: A = {label_a}, B = {label_b}")
    print(f"{'kernel':18s}{'A ms':>10s}{'B ms':>10s}{'A/B':>8s}")
    for k in vectorized():  # loop twins: XLA would run their loops at ~1 us per step
        if wanted and k.name not in wanted:
            continue
        args = k.make_args(k.bench_size, np.random.default_rng(0))
        (fa, oa, ha), (fb, ob, hb) = (_compiled(k.func, ctx_a, args),
                                      _compiled(k.func, ctx_b, args))
        assert _same(oa, ob), f"{k.name}: the two sides disagree"
        times = ([], [])
        for _ in range(a.repeat):
            for f, ts in zip((fa, fb), times):
                best = float("inf")
                for _ in range(3):
                    call = copy_args(args)
                    t0 = time.perf_counter()
                    f(*call)
                    best = min(best, time.perf_counter() - t0)
                ts.append(best)
        ta, tb = (statistics.median(ts) * 1e3 for ts in times)
        same = "  same StableHLO: the ratio is noise" if ha == hb and \
            a.choice not in XLA_OPTIONS else ""
        print(f"{k.name:18s}{ta:10.3f}{tb:10.3f}{ta / tb:7.2f}x{same}")


if __name__ == "__main__":
    main()
