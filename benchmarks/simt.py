"""solvent.kernel on the CPU vs Numba's CUDA simulator vs a plain NumPy implementation, per
kernel of solvent/corpus_simt, side by side in one run; barriers kept/removed per kernel.

    PYTHONPATH=. python benchmarks/simt.py [--size N] [--no-sim] [--xla]

Times are the best of a few runs after a warm-up call (solvent's compile time excluded and
printed separately). ``solvent`` is the native backend with the blocks on the thread pool
(all cores); ``--xla`` adds the same lowered kernel on the XLA backend and how many of its
loops the raising pass turned into tensor ops (``whole``: no loop left, the kernel is a
tensor program; else raised/all loops). ``--only a,b`` runs those kernels alone.
Every solvent result is compared with the NumPy implementation's (``check``). The simulator
runs in a subprocess with NUMBA_ENABLE_CUDASIM=1. A kernel launched in a host loop
(pathfinder) is timed as the user's Python loop of launches and again with that loop in a
``solvent.jit`` function (``<name> [jit host]``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

SIM_SCRIPT = r"""
import json, sys, time
import numpy as np
from solvent.corpus_simt import all_cases
n = int(sys.argv[1])
out = {}
for c in all_cases():
    args = list(c.make_args(n, np.random.default_rng(0)))
    grid, block = c.config(n)
    launch = c.kernel[grid, block]
    t = time.perf_counter()
    (c.launch or (lambda k, a: k(*a)))(launch, args)
    out[c.name] = time.perf_counter() - t
print(json.dumps(out))
"""


REPS = [5]


def best(fn, reps=None):
    reps = reps or REPS[0]
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def fresh(c, size):
    return list(c.make_args(size, np.random.default_rng(0)))


def check(c, size, run) -> str:
    got, ref = fresh(c, size), fresh(c, size)
    run(got)
    c.numpy(*ref)
    same = all(np.allclose(got[i], ref[i], rtol=max(c.rtol, 1e-9), atol=1e-12)
               for i in c.outputs)
    return "ok" if same else "WRONG"


def raised(launch, args) -> str:
    """``whole`` when no loop is left in the XLA program, else raised/all loops."""
    jf = launch.jit(*args)
    c = jf.compile(list(args))
    loops = sum(op.name in ("loop.for", "loop.while") for op in c.fn.walk())
    if not loops:
        return "whole"
    text = jf.explain(*args)
    lines = text.split("## loops", 1)[-1].split("## backend", 1)[0].strip().splitlines()
    return f"{sum(': raised' in s for s in lines)}/{len(lines)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=48)
    ap.add_argument("--no-sim", action="store_true")
    ap.add_argument("--xla", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated kernel names")
    ap.add_argument("--reps", type=int, default=5, help="best of this many runs")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    REPS[0] = a.reps
    import solvent
    from solvent.backends.native import threads
    from solvent.corpus_simt import all_cases
    sim = {}
    if not a.no_sim:
        env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
        r = subprocess.run([sys.executable, "-c", SIM_SCRIPT, str(a.size)], env=env,
                           capture_output=True, text=True)
        if r.returncode == 0:
            sim = json.loads(r.stdout.strip().splitlines()[-1])
        else:
            print("simulator failed:", r.stderr[-500:])
    print(f"size {a.size}; times in ms; ratios > 1: solvent faster; native pool: "
          f"{threads.settings()['threads']} threads")
    xla_head = f" {'xla':>9} {'raised':>7}" if a.xla else ""
    print(f"{'kernel':24} {'grid x block':>12} {'compile':>8} {'solvent':>9}{xla_head} "
          f"{'simulator':>10} {'numpy':>9} {'sim/solv':>9} {'np/solv':>8} {'check':>5}  "
          "barriers kept/removed  blocks")
    for c in all_cases():
        if only and c.name not in only:
            continue
        grid, block = c.config(a.size)
        launch = solvent.kernel(c.kernel)[grid, block]
        run = c.launch or (lambda k, xs: k(*xs))
        args = fresh(c, a.size)
        first = args if c.launch is None else (args[0], 1, args[2], args[3])
        t0 = time.perf_counter()
        run(launch, args)
        compile_s = time.perf_counter() - t0
        t_solv = best(lambda: run(launch, args))
        ok = check(c, a.size, lambda xs: run(launch, xs))
        ref = fresh(c, a.size)
        t_np = best(lambda: c.numpy(*ref))
        rep = launch.report(*first)
        t_sim = sim.get(c.name)
        xla = ""
        if a.xla:
            xl = solvent.kernel(c.kernel)[grid, block].on("xla")
            try:
                run(xl, fresh(c, a.size))
                xargs = fresh(c, a.size)
                t_x = best(lambda: run(xl, xargs))
                xla = f" {t_x * 1e3:9.3f} {raised(xl, first):>7}"
                ok += "" if check(c, a.size, lambda xs: run(xl, xs)) == "ok" else " xla WRONG"
            except Exception as e:  # noqa: BLE001 - printed: the backend's refusal
                xla = f" {'refused':>9} {'':>7}"
                print(f"  xla refused {c.name}: {e}")
        nb = np.prod(launch.config.grid)
        nt = np.prod(launch.config.block)
        print(f"{c.name:24} {f'{nb}x{nt}':>12} {compile_s * 1e3:8.0f} {t_solv * 1e3:9.3f}{xla} "
              f"{(t_sim * 1e3 if t_sim else float('nan')):10.1f} {t_np * 1e3:9.3f} "
              f"{(t_sim / t_solv if t_sim else float('nan')):9.0f} {t_np / t_solv:8.2f} "
              f"{ok:>5}  {len(rep.kept):>10}/{len(rep.removed):<10}  "
              f"{'parallel' if rep.parallel else 'sequential'}")
        if c.jit_host is not None:
            host = c.jit_host(launch)
            hargs = fresh(c, a.size)
            t0 = time.perf_counter()
            host(*hargs)
            compile_h = time.perf_counter() - t0
            t_h = best(lambda: host(*hargs))
            ok_h = check(c, a.size, lambda xs: host(*xs))
            blank = " " * len(xla)
            print(f"{c.name + ' [jit host]':24} {'':>12} {compile_h * 1e3:8.0f} "
                  f"{t_h * 1e3:9.3f}{blank} {(t_sim * 1e3 if t_sim else float('nan')):10.1f} "
                  f"{t_np * 1e3:9.3f} {(t_sim / t_h if t_sim else float('nan')):9.0f} "
                  f"{t_np / t_h:8.2f} {ok_h:>5}")


if __name__ == "__main__":
    main()
