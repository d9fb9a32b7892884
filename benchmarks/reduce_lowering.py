#!/usr/bin/env python
"""A/B benchmark of two choices in the XLA lowering of float reductions.

Usage::

    python benchmarks/reduce_lowering.py [--which fold,nan-guard] [--repeat N] [--steps T]

Each kernel is compiled by ``solvent.jit`` twice, once as shipped and once with one helper of
``solvent/ops/reductions.py`` replaced, and the two are run alternately; the tables give the
median ms per call and the ratio.

* ``fold``: ``_fold_leading_axes`` replaced by the identity (XLA's own reduction). Kernels
  are time loops reducing a computed operand of the given shape over all its axes each step.
  Shapes inside the fold window and a few outside it are listed; outside the window both
  columns are the same program, so their ratio shows the machine's noise. Ratio xla/fold
  (> 1: folding is faster).
* ``nan-guard``: ``_nan_guard`` replaced by one that returns the reduction unchanged
  (YNNPACK's NaN-skipping result, wrong when the input holds a NaN). Ratio off/guard (< 1:
  the price of NumPy's NaN semantics).
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


def max_once(x, y, T):
    return np.max(x)


def max_loop(x, y, T):
    s = 0.0
    for t in range(T):
        s += np.max(x * (1.0 + s * 1e-9))
    return s


FOLD_SHAPES = [(64, 64), (100, 100), (200, 200), (30, 30, 50),            # folded
               (300, 300), (500, 500), (16, 4096), (4096, 16), (60, 1000)]  # not folded
GUARD_SHAPES = [(300, 300), (2000, 2000)]

EXPERIMENTS = {
    # name: (helper replaced, replacement, kernels, shapes, column labels (replaced, shipped))
    "fold": ("_fold_leading_axes", lambda x, axes, kind: x, (loop_max, loop_sum),
             FOLD_SHAPES, ("xla", "fold")),
    "nan-guard": ("_nan_guard", lambda x, axes, r: r, (max_once, max_loop),
                  GUARD_SHAPES, ("off", "guard")),
}


def _compile(fn, replace, args):
    """``solvent.jit(fn)`` compiled for ``args``, with ``replace = (name, new)`` swapped into
    the reductions module while it compiles (the lowering runs on the first call)."""
    saved = {}
    if replace:
        name, new = replace
        saved[name] = getattr(reductions, name)
        setattr(reductions, name, new)
    try:
        f = solvent.jit(fn)
        result = f(*args)
    finally:
        for name, old in saved.items():
            setattr(reductions, name, old)
    return f, result


def run(name, repeat, steps):
    helper, new, kernels, shapes, (a_label, b_label) = EXPERIMENTS[name]
    print(f"\n{name}: {helper} replaced ({a_label}) vs as shipped ({b_label})")
    print(f"{'kernel':9s} {'shape':>14s} {a_label + ' ms':>9s} {b_label + ' ms':>9s} "
          f"{a_label + '/' + b_label:>10s}")
    for fn in kernels:
        for shape in shapes:
            rng = np.random.default_rng(0)
            args = (rng.random(shape), rng.random(shape), steps)
            (fa, _), (fb, rb) = _compile(fn, (helper, new), args), _compile(fn, None, args)
            assert np.isclose(rb, fn(*args), rtol=1e-9), (fn.__name__, shape)
            times = ([], [])
            for _ in range(repeat):
                for f, ts in zip((fa, fb), times):
                    t0 = time.perf_counter()
                    f(*args)
                    ts.append(time.perf_counter() - t0)
            ta, tb = (statistics.median(ts) * 1e3 for ts in times)
            print(f"{fn.__name__:9s} {str(shape):>14s} {ta:9.3f} {tb:9.3f} {ta / tb:9.2f}x")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--which", default="fold,nan-guard")
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--steps", type=int, default=50)
    a = p.parse_args()
    for name in a.which.split(","):
        run(name, a.repeat, a.steps)


if __name__ == "__main__":
    main()
