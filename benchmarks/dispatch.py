#!/usr/bin/env python
"""Per-call overhead: microseconds per cached call of tiny functions, side by side.

Usage: python benchmarks/dispatch.py [--calls 5000] [--rounds 5] [--clock wall|cpu]

Four functions (a 10-element add, an in-place update, a 0-d result, one element read plus a
float: ``x[0] + 1.0``) run under plain NumPy, solvent on every registered backend that
accepts them (the interpreter excluded: it is the oracle, not a runtime) and with the
automatic choice, Numba (njit of the same source) and jax.jit (float64 enabled in
scope; NumPy arrays passed in, as a solvent user would; jax.jit->numpy: its results made
NumPy arrays, as solvent returns them). Each figure is the median of --rounds
rounds of --calls calls after a warm-up call (``--clock cpu``: the least of them in the
process's CPU time, which other processes on a loaded machine disturb less).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def add10(a, b):
    return a + b


def inplace(a, b):
    a[1:] += b[:-1]


def zero_d(a, b):
    return (a * b).sum()


def first(a, b):
    return a[0] + 1.0


KERNELS = [add10, inplace, zero_d, first]


CLOCK, STAT = time.perf_counter, statistics.median


ROUNDS = 5


def per_call_us(fn, args, calls):
    fn(*args)
    rounds = []
    for _ in range(ROUNDS):
        t = CLOCK()
        for _ in range(calls):
            fn(*args)
        rounds.append((CLOCK() - t) / calls * 1e6)
    return STAT(rounds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5,
                    help="timed rounds per figure (more: steadier on a loaded machine)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    opts = ap.parse_args()
    calls = opts.calls
    global CLOCK, STAT, ROUNDS
    ROUNDS = opts.rounds
    if opts.clock == "cpu":
        CLOCK, STAT = time.process_time, min
    import jax
    import solvent
    from solvent.backends import available_backends
    backends = [b for b in available_backends() if b != "interp"]
    try:
        import numba
    except ImportError:
        numba = None
    backends.append(None)   # the automatic choice
    cols = ["numpy"] + [f"solvent-{b or 'auto'}" for b in backends] + ["numba", "jax.jit",
                                                                      "jax.jit->numpy"]
    print(f"{'kernel':10s}" + "".join(f"{c:>16s}" for c in cols) + "   (us per call)")
    for k in KERNELS:
        args = (np.ones(10), np.ones(10))
        row = [per_call_us(k, args, calls)]
        for b in backends:
            try:
                row.append(per_call_us(solvent.jit(k, backend=b), args, calls))
            except solvent.UnsupportedError:
                row.append(float("nan"))
        row.append(per_call_us(numba.njit(k), args, calls) if numba else float("nan"))
        with jax.enable_x64(True):
            jk = jax.jit(k) if k is not inplace else jax.jit(
                lambda a, b: a.at[1:].add(b[:-1]))
            row.append(per_call_us(jk, args, calls))
            # what a solvent user gets back: NumPy values, not jax.Arrays
            row.append(per_call_us(lambda *a: jax.tree_util.tree_map(np.asarray, jk(*a)),
                                   args, calls))
        print(f"{k.__name__:10s}" + "".join(f"{v:16.2f}" for v in row))


if __name__ == "__main__":
    main()
