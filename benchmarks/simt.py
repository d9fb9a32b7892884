"""solvent.kernel on the CPU vs Numba's CUDA simulator vs a plain NumPy implementation, per
kernel of solvent/corpus_simt, side by side in one run; barriers kept/removed per kernel.

    PYTHONPATH=. python benchmarks/simt.py [--size N] [--no-sim]

Times are the best of a few runs after a warm-up call (solvent's compile time excluded and
printed separately). The simulator runs in a subprocess with NUMBA_ENABLE_CUDASIM=1.
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


def best(fn, reps=3):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=48)
    ap.add_argument("--no-sim", action="store_true")
    a = ap.parse_args()
    import solvent
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
    print(f"size {a.size}; times in ms; ratios > 1: solvent faster")
    print(f"{'kernel':18} {'grid x block':>16} {'compile':>8} {'solvent':>9} {'simulator':>10} "
          f"{'numpy':>9} {'sim/solv':>9} {'np/solv':>8}  barriers kept/removed  blocks")
    for c in all_cases():
        args = list(c.make_args(a.size, np.random.default_rng(0)))
        grid, block = c.config(a.size)
        launch = solvent.kernel(c.kernel)[grid, block]
        run = c.launch or (lambda k, xs: k(*xs))
        t0 = time.perf_counter()
        run(launch, args)
        compile_s = time.perf_counter() - t0
        t_solv = best(lambda: run(launch, args))
        ref = list(c.make_args(a.size, np.random.default_rng(0)))
        t_np = best(lambda: c.numpy(*ref))
        first = args if c.launch is None else (args[0], 1, args[2], args[3])
        rep = launch.report(*first)
        t_sim = sim.get(c.name)
        nb = np.prod(launch.config.grid)
        nt = np.prod(launch.config.block)
        print(f"{c.name:18} {f'{nb}x{nt}':>16} {compile_s * 1e3:8.0f} {t_solv * 1e3:9.3f} "
              f"{(t_sim * 1e3 if t_sim else float('nan')):10.1f} {t_np * 1e3:9.3f} "
              f"{(t_sim / t_solv if t_sim else float('nan')):9.0f} {t_np / t_solv:8.2f}  "
              f"{len(rep.kept):>10}/{len(rep.removed):<10}  "
              f"{'parallel' if rep.parallel else 'sequential'}")


if __name__ == "__main__":
    main()
