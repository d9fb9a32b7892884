#!/usr/bin/env python
"""Native backend vs NumPy, solvent-XLA and Numba on every corpus kernel the native backend
accepts, side by side (loop twins aside: ``benchmarks/loop_twins.py``).

Usage::

    python benchmarks/native_loops.py [--kernels a,b] [--repeat N] [--size-scale F]

Arguments are built once at ``BENCH_SIZE`` (times ``--size-scale``); every call gets fresh
copies (copying is not timed). Steady-state times are the best of N calls after the first (the least disturbed by other
processes), the competitors' calls interleaved round by round.
"first call" is translation + pipeline + compilation + one run, for solvent-native and for
``numba.njit`` on the same unmodified source (only where the module says ``NUMBA_OK``).
Every competitor's first-call result is compared with NumPy's (returns and arguments after
the call); a mismatch prints MISMATCH instead of a time. The steady-state calls of all
competitors, NumPy included, are interleaved round by round.

``--clock cpu`` times steady-state calls in CPU time (first calls stay wall time).
Parallel loops: "native" is compiled as shipped (passes/mark_parallel.py marks the loops the
dependence test proves parallel; the thread pool runs them when trip count x body cost is
over the threshold), "native seq" with the pass turned off
(``passes={"mark_parallel": {"enabled": False}}``); "par x" = native seq / native. ``--threads N`` sets the pool's threads.
"auto/best" compares the automatic choice with the fastest forced backend.
"""
import argparse
import copy
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import solvent  # noqa: E402
from solvent.backends.native import NativeBackend, threads  # noqa: E402
from solvent.corpus import vectorized  # noqa: E402


def _same(got, exp, strict=True):
    """solvent's result is NumPy's, scalar types included; another compiler's (``strict``
    False: Numba returns Python floats where NumPy returns np.float64) by its values."""
    from differential import assert_same_value
    if not strict:
        if isinstance(exp, (tuple, list)):
            return isinstance(got, (tuple, list)) and len(got) == len(exp) and all(
                _same(g, e, False) for g, e in zip(got, exp))
        g, e = np.asarray(got), np.asarray(exp)
        return g.shape == e.shape and np.allclose(g, e, rtol=1e-6, atol=1e-9, equal_nan=True)
    try:
        assert_same_value(got, exp, "r")
        return True
    except AssertionError:
        return False


CLOCK = time.perf_counter


def _first(f, args):
    """The first call (translation + compilation + one run), timed on the wall clock, and its
    results: (seconds, (returned value, the arguments after the call))."""
    a = copy.deepcopy(args)
    t0 = time.perf_counter()
    out = f(*a)
    return time.perf_counter() - t0, (out, a)


def _steady(fns, args, repeat):
    """The least time of ``repeat`` calls of each of ``fns`` ({name: f}), their calls
    interleaved round by round (the order rotated each round) on fresh copies of ``args``:
    timed one competitor after the other, two of them saw different moments of this shared
    machine's load, and a forced backend and the automatic choice that picked it differed
    by up to 1.9x on the same compiled code (three_mm, spmv_ell)."""
    names, times = list(fns), {n: [] for n in fns}
    for r in range(repeat):
        for n in names[r % len(names):] + names[:r % len(names)]:
            a = copy.deepcopy(args)
            t0 = CLOCK()
            fns[n](*a)
            times[n].append(CLOCK() - t0)
    return {n: min(t) for n, t in times.items()}


def _fmt(t):
    if isinstance(t, str):
        return t
    return f"{t * 1e3:.3f}" if t < 1 else f"{t * 1e3:.0f}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kernels")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--size-scale", type=float, default=1.0)
    p.add_argument("--threads", type=int)
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="steady-state times in the process's CPU time (all threads) instead "
                   "of wall time: on a loaded machine, the work done rather than the wait")
    p.add_argument("--no-xla", action="store_true", help="skip the XLA and auto columns")
    opts = p.parse_args()
    global CLOCK
    CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}[opts.clock]
    if opts.threads:
        threads.configure(threads=opts.threads)
    print(f"# thread pool: {threads.settings()}")
    wanted = set(opts.kernels.split(",")) if opts.kernels else None
    rows = []
    for k in vectorized():
        if wanted and k.name not in wanted:
            continue
        n = max(1, int(k.bench_size * opts.size_scale))
        args = k.make_args(n, np.random.default_rng(0))
        ok, reason = NativeBackend().accepts(solvent.jit(k.func).compile(args).fn)
        if not ok:
            print(f"# {k.name}: not accepted: {reason}")
            continue
        _, ref = _first(k.func, args)
        row = {"kernel": k.name, "n": n}
        auto = solvent.jit(k.func)
        row["chosen"] = auto.compile(args).backend
        competitors = [("native", solvent.jit(k.func, backend="native")),
                       ("native_seq", solvent.jit(k.func, backend="native",
                                                  passes={"mark_parallel": {"enabled": False}})),
                       ("xla", solvent.jit(k.func, backend="xla")), ("auto", auto)]
        if opts.no_xla:
            competitors = competitors[:2]
        if k.numba_ok:
            import numba
            competitors.append(("numba", numba.njit(k.func)))
        timed = {"numpy": k.func}
        for name, f in competitors:
            try:
                first, res = _first(f, args)
                strict = name != "numba"
                good = _same(res[0], ref[0], strict) and all(
                    _same(g, e, strict) for g, e in zip(res[1], ref[1])
                    if isinstance(e, np.ndarray))
                row[name + "_first"] = first
                if good:
                    timed[name] = f
                else:
                    row[name] = "MISMATCH"
            except Exception as e:  # noqa: BLE001 - a benchmark reports, never stops
                row[name] = f"error: {type(e).__name__}"
        row.update(_steady(timed, args, opts.repeat))
        rows.append(row)
        print(f"# done {k.name}", file=sys.stderr, flush=True)
    for r in rows:  # automatic choice vs the best forced backend (> 1: auto is slower)
        forced = [r[b] for b in ("native", "xla") if isinstance(r.get(b), float)]
        if forced and isinstance(r.get("auto"), float):
            r["auto_vs_best"] = f"{r['auto'] / min(forced):.2f}"
        if isinstance(r.get("native"), float) and isinstance(r.get("native_seq"), float):
            r["par"] = f"{r['native_seq'] / r['native']:.2f}"
    cols = ["kernel", "n", "numpy", "native", "native_seq", "par", "xla", "numba",
            "native_first", "numba_first", "chosen", "auto_vs_best"]
    heads = ["kernel", "n", "NumPy ms", "native ms", "native seq ms", "par x", "XLA ms",
             "Numba ms", "native 1st ms", "Numba 1st ms", "auto picks", "auto/best"]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for r in rows:
        print("| " + " | ".join(_fmt(r.get(c, "-")) if c not in ("kernel", "n", "chosen", "par")
                                else str(r[c]) for c in cols) + " |")
    ratios = [r["numpy"] / r["native"] for r in rows if isinstance(r.get("native"), float)]
    if ratios:
        g = float(np.exp(np.mean(np.log(ratios))))
        print(f"\ngeometric mean of NumPy/native over {len(ratios)} kernels: {g:.2f}x")
    nb = [r["numba"] / r["native"] for r in rows
          if isinstance(r.get("native"), float) and isinstance(r.get("numba"), float)]
    if nb:
        print(f"geometric mean of Numba/native over {len(nb)} kernels: "
              f"{float(np.exp(np.mean(np.log(nb)))):.2f}x (> 1: native faster)")


if __name__ == "__main__":
    main()
