#!/usr/bin/env python
"""Loop twins against their vectorized twins, side by side in one run.

Usage::

    python benchmarks/loop_twins.py [--kernels a_loops,b_loops] [--repeat N] [--size-scale F]
                                    [--clock wall|cpu] [--stat median|min]

For every loop twin (``solvent.corpus.<name>_loops``, see ``solvent/corpus/__init__.py``) the
arguments are built once at the twin's ``BENCH_SIZE`` (times ``--size-scale``); every call
gets fresh copies (copying is not timed). Columns:

* ``numpy vec``: the vectorized twin under plain NumPy; its results are the reference. The
  loop twin never runs under NumPy here (its Python loops would take minutes).
* ``solvent vec``: ``solvent.jit`` of the vectorized twin.
* ``solvent loop``: ``solvent.jit`` of the loop twin (automatic backend choice; ``picks``
  names the backend it chose for the loops).
* ``numba loop``: ``numba.njit`` of the same loop source, where the module says ``NUMBA_OK``.

Times are medians (``--stat min``: the least) of N calls (with ``--clock cpu``: of the
process's CPU time, summed over its threads, which a loaded machine disturbs less; first
calls then count CPU time too) after a first call, the competitors' calls interleaved round
by round (``bench.measure_all``); the first call of the loop twin (translation +
compilation + one run) is listed separately for solvent and Numba.
Every first call's results are compared with the reference (``bench.compare``); a difference
prints MISMATCH instead of a time. Ratios: ``loop/vec`` = solvent loop time / solvent
vectorized time (1 = the loops cost nothing over whole-array code); ``numba/loop`` = Numba loop
time / solvent loop time (> 1: solvent is faster on the same loop source).
"""
import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import solvent  # noqa: E402
import bench  # noqa: E402
from bench import (array_arg_indices, copy_args, error_rec, fmt_ms, geomean,  # noqa: E402
                   inplace_runner, measure_all, ratio)
from solvent import corpus  # noqa: E402

COLS = [("loop twin", 22), ("n", 6), ("numpy vec", 10), ("solvent vec", 12),
        ("solvent loop", 13), ("picks", 7), ("numba loop", 11), ("loop 1st s", 11),
        ("numba 1st s", 12), ("loop/vec", 9), ("numba/loop", 11)]


def _row(cells):
    return " ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                    for i, ((_, w), c) in enumerate(zip(COLS, cells)))


def _first(rec):
    return f"{rec['first_s']:.2f}" if rec and rec.get("status") == "ok" else "-"


def _ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def bench_twin(k, size, repeat, numba, details):
    """Time one loop twin and its vectorized twin; returns the row's records."""
    vec = corpus.get(k.twin_of)
    args = k.make_args(size, np.random.default_rng(0))
    vargs = k.vectorized_args(args)
    vec_idx = array_arg_indices(vargs)
    # the twin's arguments that hold the vectorized twin's arrays, in the vectorized order
    twin_idx = [k.twin_args.index(p) for p in vec_idx]

    ref_args = copy_args(vargs)
    ret = vec.func(*ref_args)
    reference = (list(ret) if isinstance(ret, tuple) else [] if ret is None else [ret]) + \
        [ref_args[i] for i in vec_idx]
    loop = solvent.jit(k.func)
    entries = [("numpy_vec", lambda: inplace_runner(vec.func, vec_idx), vargs, None),
               ("solvent_vec", lambda: inplace_runner(solvent.jit(vec.func), vec_idx), vargs,
                reference),
               ("solvent_loop", lambda: inplace_runner(loop, twin_idx), args, reference)]
    if numba is not None and k.numba_ok:
        entries.append(("numba_loop", lambda: inplace_runner(numba.njit(k.func), twin_idx),
                        args, reference))
    recs = measure_all(entries, repeat)
    for label, rec in recs.items():
        if rec["status"] == "mismatch":
            details.append(f"{k.name} [{label.replace('_', ' ')}]: MISMATCH {rec['detail']}")
        elif rec["status"] == "error":
            details.append(f"{k.name} [{label.replace('_', ' ')}]: {rec['error']}")
    try:
        recs["picks"] = loop.compile(args).backend
    except Exception:  # noqa: BLE001
        recs["picks"] = "-"
    recs.setdefault("numba_loop", None)
    return recs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", default="", help="comma-separated loop twin names (default: all)")
    p.add_argument("--repeat", type=int, default=5, help="timed calls per competitor (median)")
    p.add_argument("--size-scale", type=float, default=1.0, help="multiply BENCH_SIZE by this")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="cpu: the process's CPU time (all its threads) instead of wall time")
    p.add_argument("--stat", choices=("median", "min"), default="median",
                   help="the statistic over the timed calls (min: on a shared, loaded machine)")
    a = p.parse_args(argv)
    bench.TIMING["stat"] = {"median": statistics.median, "min": min}[a.stat]
    bench.TIMING["clock"] = {"wall": time.perf_counter, "cpu": time.process_time}[a.clock]
    twins = corpus.loop_twins()
    if a.kernels:
        wanted = [n.strip() for n in a.kernels.split(",") if n.strip()]
        twins = [corpus.get(n) for n in wanted]
        bad = [k.name for k in twins if not k.twin_of]
        if bad:
            p.error(f"not loop twins: {bad}")
    try:
        import numba
        warnings.filterwarnings("ignore", category=numba.NumbaPerformanceWarning)
    except Exception as e:  # noqa: BLE001
        numba = None
        print(f"NOTE: numba unavailable ({e})")
    print(f"repeat={a.repeat} size-scale={a.size_scale} clock={a.clock}  (times: {a.stat} ms; first calls in s; "
          "loop/vec: solvent loop / solvent vectorized; numba/loop > 1: solvent faster)\n")
    header = _row([c for c, _ in COLS])
    print(header)
    print("-" * len(header))
    details, rows = [], []
    for k in twins:
        size = max(1, int(round(k.bench_size * a.size_scale)))
        r = bench_twin(k, size, a.repeat, numba, details)
        r["loop_vs_vec"] = ratio(r["solvent_loop"], r["solvent_vec"])
        r["numba_vs_loop"] = ratio(r["numba_loop"], r["solvent_loop"])
        rows.append(r)
        print(_row([k.name, size, fmt_ms(r["numpy_vec"]), fmt_ms(r["solvent_vec"]),
                    fmt_ms(r["solvent_loop"]), r["picks"], fmt_ms(r["numba_loop"]),
                    _first(r["solvent_loop"]), _first(r["numba_loop"]),
                    _ratio(r["loop_vs_vec"]), _ratio(r["numba_vs_loop"])]), flush=True)
    print("-" * len(header))
    for key, what in (("loop_vs_vec", "solvent loop / solvent vectorized"),
                      ("numba_vs_loop", "Numba loop / solvent loop (> 1: solvent faster)")):
        vals = [r[key] for r in rows if r[key] is not None]
        g = geomean(vals)
        if g is not None:
            print(f"geomean {what}: {g:.2f}x over {len(vals)} twins")
    if details:
        print("\nDetails:")
        for d in details:
            print("  " + d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
