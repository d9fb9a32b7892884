#!/usr/bin/env python
"""A/B benchmark of the row fold in the XLA lowering of float sum/max/min reductions.

Usage::

    python benchmarks/fold_reduce.py [--repeat N] [--steps T]

Each case is a small time loop whose body reduces a computed operand of the given shape
over all its axes (``s += np.max(np.abs(x - y * s))`` and ``s += np.sum(x * y + s) * 1e-9``),
compiled twice by ``solvent.jit``: once as shipped (``fold``) and once with
``solvent.ops.reductions._fold_leading_axes`` replaced by the identity (``xla``: XLA's own
reduction). Both are run alternately; the table gives the median ms per call and the ratio
xla/fold (> 1: folding is faster). The shapes inside the fold window (see
``solvent/ops/reductions.py``) and a few outside it are listed; outside the window the two
columns compile to the same program, so their ratio shows the noise of the machine.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import solvent
import solvent.ops.reductions as reductions


def loop_max(x, y, T):
    s = 0.0
    for t in range(T):
        s += np.max(np.abs(x - y * s))
    return s


def loop_sum(x, y, T):
    s = 0.0
    for t in range(T):
        s += np.sum(x * y + s) * 1e-9
    return s


SHAPES = [(64, 64), (100, 100), (200, 200), (30, 30, 50),            # folded
          (300, 300), (500, 500), (16, 4096), (4096, 16), (60, 1000)]  # not folded


def _compile(fn, fold: bool, x, y, steps):
    original = reductions._fold_leading_axes
    if not fold:
        reductions._fold_leading_axes = lambda x, axes, kind: x
    try:
        f = solvent.jit(fn)
        result = f(x, y, steps)  # compiles (the lowering runs now) and warms up
    finally:
        reductions._fold_leading_axes = original
    return f, result


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--steps", type=int, default=50)
    a = p.parse_args()
    print(f"{'kernel':9s} {'shape':>14s} {'xla ms':>9s} {'fold ms':>9s} {'xla/fold':>9s}")
    for fn in (loop_max, loop_sum):
        for shape in SHAPES:
            rng = np.random.default_rng(0)
            x, y = rng.random(shape), rng.random(shape)
            runs = {}
            for fold in (False, True):
                runs[fold], r = _compile(fn, fold, x, y, a.steps)
                assert np.isclose(r, fn(x, y, a.steps), rtol=1e-9), (fn.__name__, shape, fold)
            times = {False: [], True: []}
            for _ in range(a.repeat):
                for fold in (False, True):
                    t0 = time.perf_counter()
                    runs[fold](x, y, a.steps)
                    times[fold].append(time.perf_counter() - t0)
            off, on = (statistics.median(times[k]) * 1e3 for k in (False, True))
            print(f"{fn.__name__:9s} {str(shape):>14s} {off:9.3f} {on:9.3f} {off / on:8.2f}x")


if __name__ == "__main__":
    main()
