#!/usr/bin/env python
"""Parallel loops on the native backend: wall time with 1 thread against N threads.

Usage::

    python benchmarks/parallel_speedup.py [--kernels a,b] [--threads 1,2] [--repeat 7]

For every corpus kernel whose compiled program (automatic choice) holds a loop that
``mark_parallel`` proved independent (``parallel = true`` in ``solvent.explain``), or the
kernels named, times the steady-state call at the kernel's ``BENCH_SIZE`` in a fresh
process per thread count (``SOLVENT_NUM_THREADS``), wall clock, best of ``--repeat`` calls,
and prints the times side by side with the speedup over one thread. Each process also
checks its result against NumPy. Whether a loop forks at all is the run-time threshold's
decision (``SOLVENT_PARALLEL_THRESHOLD``, left at its default): a loop whose trips cost less
than the fork stays on the calling thread, and then the speedup is 1.
"""
import argparse
import importlib
import json
import os
import pkgutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import copy, importlib, json, sys, time
import numpy as np
import solvent
mod = importlib.import_module("solvent.corpus." + sys.argv[1])
args = mod.make_args(mod.BENCH_SIZE, np.random.default_rng(0))
f = solvent.jit(mod.kernel)
def flat(r, a):   # the results and the arguments (an in-place kernel returns None)
    return [x for x in (r if isinstance(r, tuple) else (r,)) + tuple(a) if x is not None]
with np.errstate(all="ignore"):
    wa, ga = copy.deepcopy(args), copy.deepcopy(args)
    want, got = flat(mod.kernel(*wa), wa), flat(f(*ga), ga)
ok = len(got) == len(want) and all(
    np.allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-9, equal_nan=True)
    for g, w in zip(got, want))
best = float("inf")
for _ in range(int(sys.argv[2])):
    a = copy.deepcopy(args)
    t = time.perf_counter()
    f(*a)
    best = min(best, time.perf_counter() - t)
print(json.dumps({"ms": best * 1e3, "ok": ok}))
"""


def parallel_kernels():
    import numpy as np
    import solvent
    import solvent.corpus as corpus
    out = []
    for m in pkgutil.iter_modules(corpus.__path__):
        mod = importlib.import_module(f"solvent.corpus.{m.name}")
        if not hasattr(mod, "make_args"):
            continue
        args = mod.make_args(mod.SIZES[0], np.random.default_rng(0))
        try:
            text = solvent.jit(mod.kernel).explain(*args)
        except Exception:  # noqa: BLE001 - a kernel the default choice refuses is skipped
            continue
        if "## backend: native" in text and "parallel = true" in text.split("## after")[-1]:
            out.append(m.name)
    return out


def run(kernel: str, threads: int, repeat: int) -> dict:
    env = dict(os.environ, SOLVENT_NUM_THREADS=str(threads), PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", _CHILD, kernel, str(repeat)], env=env,
                       capture_output=True, text=True, timeout=600)
    if r.returncode:
        return {"error": r.stderr.strip().splitlines()[-1] if r.stderr else "failed"}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", default="")
    p.add_argument("--threads", default=f"1,{os.cpu_count() or 1}")
    p.add_argument("--repeat", type=int, default=7)
    a = p.parse_args()
    sys.path.insert(0, ROOT)
    kernels = [k for k in a.kernels.split(",") if k] or parallel_kernels()
    counts = [int(t) for t in a.threads.split(",")]
    print(f"{'kernel':22s}" + "".join(f"{f'{t} thr ms':>12s}" for t in counts) +
          "".join(f"{f'x{t}':>8s}" for t in counts[1:]))
    for k in kernels:
        rows = [run(k, t, a.repeat) for t in counts]
        if any("error" in r for r in rows):
            print(f"{k:22s} error: {next(r['error'] for r in rows if 'error' in r)}")
            continue
        bad = "" if all(r["ok"] for r in rows) else "  MISMATCH vs NumPy"
        print(f"{k:22s}" + "".join(f"{r['ms']:12.3f}" for r in rows) +
              "".join(f"{rows[0]['ms'] / r['ms']:8.2f}" for r in rows[1:]) + bad)


if __name__ == "__main__":
    main()
