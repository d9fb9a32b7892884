#!/usr/bin/env python
"""First call (translation + compilation + one run) of solvent vs Numba, each in a fresh
process, on the sequential / run-time-shape corpus kernels (issue 8's acceptance point).

Usage::

    python benchmarks/first_call.py [--kernels a,b] [--competitors auto,native,numba]
                                    [--rounds N] [--profile KERNEL:COMPETITOR]

Every (kernel, competitor, round) runs in its own ``python`` subprocess, so no cache of
solvent's, Numba's or LLVM's is warm: the child imports the library and the corpus module,
builds the ``BENCH_SIZE`` arguments, then times the first call of ``solvent.jit(kernel)``
(``auto``), ``solvent.jit(kernel, backend="native")`` (``native``) or
``numba.njit(kernel)`` (``numba``) in wall and process-CPU time, then one second call (the
run alone). Import time is not counted for either side. The child then checks the first
call's results (returns and array arguments after the call) against plain NumPy on the same
arguments (``bench.compare``); a difference prints MISMATCH. Numba runs with its on-disk
cache off (``njit`` without ``cache=True``); solvent keeps no cache across processes.

The default kernel set: the non-twin corpus kernels that Numba compiles (``NUMBA_OK``)
whose category is sequential, scalar-loop or sparse, plus those on which solvent's automatic
choice picks the native backend (run-time shapes, scalar loops). The table gives the least
CPU time of ``--rounds`` fresh processes per cell, and solvent/Numba ratios (< 1: solvent's
first call is the shorter). ``--warm`` first compiles and calls a small loop function with
the same library in the child, so each library's one-time start-up (Numba's type system,
llvmlite's initialization, solvent's lazy imports) is left out and the kernel's own
translation and compilation is what is timed. ``--profile K:C`` runs one child under cProfile and prints the
top functions by cumulative time, with solvent's own split of the compile (``--phases``).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (ROOT, HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

CATEGORIES = ("sequential", "scalar-loop", "sparse")


def _warm_loop(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * 2.0
    return s


def child(kernel, competitor, profile=False, warm=False):
    import numpy as np
    from solvent.corpus import get
    k = get(kernel)
    if competitor == "numba":
        import numba
        import warnings
        warnings.filterwarnings("ignore", category=numba.NumbaPerformanceWarning)
        jit = numba.njit
    else:
        import solvent
        jit = lambda fn: solvent.jit(fn, backend=None if competitor == "auto" else competitor)  # noqa: E731
    if warm:   # the library's own one-time start-up, paid on another function
        jit(_warm_loop)(np.ones(8))
    f = jit(k.func)
    from bench import array_arg_indices, compare, copy_args, flat
    base = k.make_args(k.bench_size, np.random.default_rng(0))
    arr_idx = array_arg_indices(base)
    args = copy_args(base)
    prof = None
    if profile:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    w0, c0 = time.perf_counter(), time.process_time()
    ret = f(*args)
    c1, w1 = time.process_time(), time.perf_counter()
    if prof is not None:
        prof.disable()
        import pstats
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
    got = flat(ret) + [args[i] for i in arr_idx]
    args2 = copy_args(base)
    w2, c2 = time.perf_counter(), time.process_time()
    f(*args2)
    c3, w3 = time.process_time(), time.perf_counter()
    ref_args = copy_args(base)
    ref = flat(k.func(*ref_args)) + [ref_args[i] for i in arr_idx]
    why = compare(ref, got)
    out = {"wall": w1 - w0, "cpu": c1 - c0, "run_wall": w3 - w2, "run_cpu": c3 - c2,
           "mismatch": why}
    if competitor != "numba":
        c = next(iter(f._cache._d.values()), None)
        if c is not None:
            out["backend"] = c.backend
            out["compile_s"] = c.compile_seconds
            out["native_seconds"] = getattr(c.executable, "seconds", None)
    print("RESULT " + json.dumps(out))


def default_kernels():
    from solvent.corpus import vectorized
    out = []
    for k in vectorized():
        if not k.numba_ok:
            continue
        if k.category in CATEGORIES or _auto_native(k):
            out.append(k.name)
    return out


def _auto_native(k):
    """Whether solvent's automatic choice picks native on ``k`` (at its first SIZES)."""
    import numpy as np
    import solvent
    try:
        args = k.make_args(k.sizes[0], np.random.default_rng(0))
        return solvent.jit(k.func).compile(args).backend == "native"
    except Exception:
        return False


def run_child(kernel, competitor, profile=False, warm=False):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", f"{kernel}:{competitor}"]
    if profile:
        cmd.append("--profile-child")
    if warm:
        cmd.append("--warm")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    if profile:
        sys.stdout.write(p.stderr)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": (p.stderr.strip().splitlines() or ["?"])[-1][:120]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="")
    ap.add_argument("--competitors", default="auto,native,numba")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child")
    ap.add_argument("--profile-child", action="store_true")
    ap.add_argument("--profile")
    ap.add_argument("--warm", action="store_true",
                    help="before the kernel, compile and call a small loop function with the "
                    "same library in the same process (its one-time start-up is then not "
                    "counted in the kernel's first call)")
    a = ap.parse_args()
    if a.child:
        kernel, comp = a.child.split(":")
        child(kernel, comp, a.profile_child, a.warm)
        return
    if a.profile:
        kernel, comp = a.profile.split(":")
        print(run_child(kernel, comp, profile=True, warm=a.warm))
        return
    kernels = [s for s in a.kernels.split(",") if s] or default_kernels()
    comps = [c for c in a.competitors.split(",") if c]
    print(f"first call, fresh process per cell{' after a warm-up function' if a.warm else ''}, "
          f"least CPU s of {a.rounds} round(s); "
          "ratio = solvent / numba (< 1: solvent shorter)")
    head = ["kernel"] + [f"{c} s" for c in comps] + \
        [f"{c}/numba" for c in comps if c != "numba" and "numba" in comps] + ["auto backend"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    rows = {}
    for name in kernels:
        recs = {}
        for c in comps:
            best = None
            for _ in range(a.rounds):
                r = run_child(name, c, warm=a.warm)
                if "error" in r or r.get("mismatch"):
                    best = r
                    break
                if best is None or r["cpu"] < best["cpu"]:
                    best = r
            recs[c] = best
        rows[name] = recs

        def cell(r):
            if "error" in r:
                return "error: " + r["error"]
            if r.get("mismatch"):
                return "MISMATCH " + r["mismatch"]
            return f"{r['cpu']:.3f}"
        cells = [name] + [cell(recs[c]) for c in comps]
        for c in comps:
            if c == "numba" or "numba" not in comps:
                continue
            s, n = recs[c], recs["numba"]
            ok = all("cpu" in r and not r.get("mismatch") for r in (s, n))
            cells.append(f"{s['cpu'] / n['cpu']:.2f}" if ok else "-")
        cells.append(recs.get("auto", {}).get("backend", "-"))
        print("| " + " | ".join(cells) + " |", flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
