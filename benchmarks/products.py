#!/usr/bin/env python
"""Matrix products, solvent vs NumPy's own call on the same operands, side by side.

Usage: python benchmarks/products.py [--sizes 16,64,256,1024,4096] [--dtypes f4,f8,c16]
                                     [--kinds mv,mm] [--backends auto,xla,native] [--repeat 5]
                                     [--clock wall|cpu] [--stat median|min]

For every size n, dtype and operand layout the script times a matrix-vector (``mv``,
n x n times n) and a matrix-matrix (``mm``, n x n times n x n; sizes above --mm-max are
skipped, default 2048) product through plain NumPy and through ``solvent.jit`` of the same
one-line function, under automatic choice and under each backend forced, and prints the
ratio NumPy time / solvent time (> 1: solvent faster) and the backend automatic choice
took. Layouts: ``plain`` (A @ B), ``A.T`` (A.T @ B), ``B.T`` (A @ B.T, mm only) and
``slice`` (A[:, ::2] @ B[::2]: strided operands). Each figure is the median (--stat min: the
least) of --repeat calls after two warm-up calls, in wall time or (--clock cpu) the process's
CPU time; NumPy and solvent alternate within one process.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def plain(A, B):
    return A @ B


def a_t(A, B):
    return A.T @ B


def b_t(A, B):
    return A @ B.T


def sliced(A, B):
    return A[:, ::2] @ B[::2]


LAYOUTS = {"plain": plain, "A.T": a_t, "B.T": b_t, "slice": sliced}


def operands(kind, layout, n, dtype, rng):
    def mat(r, c):
        x = rng.standard_normal((r, c))
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal((r, c))
        return x.astype(dtype)
    rows = 2 * n if layout == "slice" else n
    A = mat(n, rows)
    if kind == "mv":
        return A, mat(rows, 1)[:, 0].copy()
    B = mat(rows, n)
    return A, (np.ascontiguousarray(B.T) if layout == "B.T" else B)


# what median_s reads and reports (set by --clock and --stat): wall time or the process's
# CPU time (all its threads summed: on a machine shared with other jobs, the work done
# rather than the wait for a core; compare single-threaded sides with it, e.g.
# OPENBLAS_NUM_THREADS=1 and XLA_FLAGS=--xla_cpu_multi_thread_eigen=false), median or least
CLOCK = {"clock": time.perf_counter, "stat": statistics.median}


def set_clock(clock: str, stat: str) -> None:
    CLOCK["clock"] = time.process_time if clock == "cpu" else time.perf_counter
    CLOCK["stat"] = min if stat == "min" else statistics.median


def add_clock_options(ap) -> None:
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--stat", choices=("median", "min"), default="median")


def median_s(f, args, repeat):
    """Two warm-up calls, then the median (or least, --stat min) of ``repeat`` calls."""
    f(*args)
    f(*args)
    clock = CLOCK["clock"]
    ts = []
    for _ in range(repeat):
        t = clock()
        f(*args)
        ts.append(clock() - t)
    return CLOCK["stat"](ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="16,64,256,1024,4096")
    ap.add_argument("--dtypes", default="f4,f8,c16")
    ap.add_argument("--kinds", default="mv,mm")
    ap.add_argument("--layouts", default="plain,A.T,B.T,slice")
    ap.add_argument("--backends", default="auto,xla,native")
    ap.add_argument("--mm-max", type=int, default=2048)
    ap.add_argument("--repeat", type=int, default=5)
    add_clock_options(ap)
    a = ap.parse_args()
    set_clock(a.clock, a.stat)
    import solvent
    rng = np.random.default_rng(0)
    backends = a.backends.split(",")
    print(f"{'kind':4s} {'dtype':>5s} {'n':>5s} {'layout':>6s} {'numpy ms':>10s}"
          + "".join(f" {'x ' + b:>9s}" for b in backends) + "  auto picks")
    ratios = {b: [] for b in backends}
    for kind in a.kinds.split(","):
        for dt in a.dtypes.split(","):
            for n in (int(s) for s in a.sizes.split(",")):
                if kind == "mm" and n > a.mm_max:
                    continue
                for layout in a.layouts.split(","):
                    if kind == "mv" and layout == "B.T":
                        continue
                    fn = LAYOUTS[layout]
                    args = operands(kind, layout, n, dt, rng)
                    t_np = median_s(fn, args, a.repeat)
                    row, pick = [], ""
                    for b in backends:
                        try:
                            jf = solvent.jit(fn, backend=None if b == "auto" else b)
                            got = jf(*args)
                            tol = 1e-3 if np.dtype(dt) in (np.float32, np.complex64) else 1e-8
                            if not np.allclose(got, fn(*args), rtol=tol, atol=tol * n):
                                row.append("MISMATCH")
                                continue
                            r = t_np / median_s(jf, args, a.repeat)
                            ratios[b].append(r)
                            row.append(f"{r:9.2f}")
                            if b == "auto":
                                pick = next(iter(jf._cache.values())).backend
                        except solvent.UnsupportedError:
                            row.append(f"{'-':>9s}")
                    print(f"{kind:4s} {dt:>5s} {n:5d} {layout:>6s} {t_np * 1e3:10.3f}"
                          + "".join(f" {v:>9s}" for v in row) + f"  {pick}", flush=True)
    print("geomean" + " " * 27 + "".join(
        f" {statistics.geometric_mean(v) if v else float('nan'):9.2f}"
        for v in ratios.values()))
    print("min    " + " " * 27 + "".join(
        f" {min(v) if v else float('nan'):9.2f}" for v in ratios.values()))


if __name__ == "__main__":
    main()
