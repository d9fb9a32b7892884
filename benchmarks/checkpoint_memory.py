#!/usr/bin/env python
"""Peak memory of a 10,000-step time loop's gradient, taped vs checkpointed, side by side.

Usage::

    python benchmarks/checkpoint_memory.py [--steps 10000] [--n 4096] [--backend xla]

Each configuration runs in a fresh subprocess (peak RSS is per process): ``primal`` (the
jitted loop alone: the process's baseline), ``taped`` (``checkpoints=0``: one tape row per
step) and ``auto`` (the default policy: the fewest snapshots, about ``sqrt(2 steps)``, with
which the binomial schedule runs the loop forward twice) and ``k=10`` (ten snapshots on the
binomial schedule: more recomputation, less memory). Printed: peak RSS,
its growth over the primal's, the tape bytes the transform reports, the time of one
gradient call (after compilation) and the gradient's largest difference from the taped one.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def heat(u, c, steps):
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2.0 * u[1:-1] + u[:-2]) + 0.01 * np.sin(u[1:-1])
    return np.sum(u * u)


def child(mode, steps, n, backend):
    import solvent
    u = np.random.default_rng(0).standard_normal(n)
    out = {"mode": mode}
    if mode == "primal":
        f = solvent.jit(heat, backend=backend)
        f(u.copy(), 0.2, steps)
        t0 = time.perf_counter()
        f(u.copy(), 0.2, steps)
        out["seconds"] = time.perf_counter() - t0
    else:
        ck = {"taped": 0, "auto": None}[mode] if mode in ("taped", "auto") else int(mode[2:])
        gf = solvent.grad(heat, 0, checkpoints=ck, backend=backend)
        g = gf(u.copy(), 0.2, steps)
        t0 = time.perf_counter()
        g = gf(u.copy(), 0.2, steps)
        out["seconds"] = time.perf_counter() - t0
        rep = gf.compiled(u.copy(), 0.2, steps).report
        out["tape_bytes"] = rep["tape_bytes"]
        out["checkpointed"] = rep["checkpointed"]
        np.save(f"/tmp/checkpoint_memory_{os.getpid()}.npy", g)
        out["grad_file"] = f"/tmp/checkpoint_memory_{os.getpid()}.npy"
    out["peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(out))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10_000)
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--backend", default="xla")
    p.add_argument("--child", default="")
    o = p.parse_args()
    if o.child:
        return child(o.child, o.steps, o.n, o.backend)
    rows = []
    for mode in ("primal", "taped", "auto", "k=10"):
        r = subprocess.run([sys.executable, __file__, "--child", mode, "--steps", str(o.steps),
                            "--n", str(o.n), "--backend", o.backend],
                           capture_output=True, text=True)
        if r.returncode:
            print(f"{mode}: failed\n{r.stderr[-2000:]}")
            continue
        rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
    print(f"{o.steps} steps of a {o.n}-element float64 state ({o.n * 8 / 1e3:.1f} kB; "
          f"a full tape: {o.steps * o.n * 8 / 1e6:.0f} MB), backend {o.backend}")
    base = rows[0]["peak_rss"]
    ref = None
    for r in rows:
        line = (f"{r['mode']:7s} peak RSS {r['peak_rss'] / 1e6:8.1f} MB  "
                f"(+{(r['peak_rss'] - base) / 1e6:7.1f} MB over primal)  "
                f"time {r['seconds'] * 1e3:8.1f} ms")
        if "tape_bytes" in r:
            g = np.load(r["grad_file"])
            os.remove(r["grad_file"])
            ref = g if ref is None else ref
            line += (f"  tape {r['tape_bytes'] / 1e6:8.2f} MB  checkpointed {r['checkpointed']}"
                     f"  max|g - g_taped| {np.max(np.abs(g - ref)):.1e}")
        print(line)


if __name__ == "__main__":
    main()
