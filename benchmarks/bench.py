#!/usr/bin/env python
"""Side-by-side benchmark of the corpus kernels: NumPy vs solvent vs Numba vs JAX hand ports.

Usage::

    python benchmarks/bench.py [--kernels a,b] [--repeat N] [--size-scale F] [--json PATH]
                               [--competitors numpy,solvent,numba,jax]
                               [--clock wall|cpu] [--stat median|min]

For every kernel in ``solvent.corpus`` except the loop twins (``benchmarks/loop_twins.py``
times those without running their Python loops under NumPy) the arguments are built once at ``BENCH_SIZE``
(times ``--size-scale``) and every call gets fresh copies of them (copying is not timed).

* NumPy: the unmodified kernel; one warm-up call, then the median of N calls.  Its
  first call's results (returns + final argument values) are the reference.
* solvent: ``solvent.jit(kernel)``; first call (= compile + run) in seconds, then the
  median of N further calls.
* Numba: ``numba.njit(kernel)`` when the module says ``NUMBA_OK``; same protocol.
* JAX: the hand port named by ``JAX_PORT`` in ``benchmarks/jax_ports.py``, run under
  ``jax.enable_x64(True)``; timed calls include ``block_until_ready``.

After the first calls, the timed calls of the competitors are interleaved, one call each per
round, so that every ratio compares calls made at the same moments (``measure_all``).

Each competitor's first-call results are compared to NumPy (``np.allclose`` with
rtol 1e-6 for 64-bit floats, 1e-4 for 32-bit; exact for ints/bools; same dtype and
shape).  In-place competitors (solvent, Numba) are compared on their returns and on
all array arguments after the call; JAX ports return
``(returns..., mutated args in argument order)`` and are compared on exactly that.
A differing result prints ``MISMATCH`` instead of a time; an exception prints
``error: <type>``; details of both are listed under the table.

Ratios are ``other_time / solvent_time`` (> 1 means solvent is faster); the last row
holds the geometric mean of each ratio column over the kernels where both exist. Below it,
the dot-dominated and the memory-bound kernels (tagged so in their docstring's category)
are summarized: geometric mean and minimum of their ratios vs NumPy, and those below 1.0x.
"""
import argparse
import importlib
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

COMPETITORS = ("numpy", "solvent", "numba", "jax")


# --------------------------------------------------------------------------- imports


def _short(exc, limit=60):
    msg = str(exc).strip().splitlines()
    msg = msg[0] if msg else ""
    s = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return s if len(s) <= limit else s[: limit - 3] + "..."


def import_solvent():
    """Return (module or None, error string or None)."""
    try:
        import solvent  # noqa: F401

        if not hasattr(solvent, "jit"):
            return None, "solvent has no attribute 'jit'"
        return solvent, None
    except Exception as e:  # the core may be missing or broken
        return None, _short(e, 200)


def import_corpus(solvent_ok):
    """Import solvent.corpus; if the solvent package itself cannot be imported, load the
    corpus directory standalone so the other competitors still run."""
    if solvent_ok:
        return importlib.import_module("solvent.corpus")
    path = os.path.join(ROOT, "solvent", "corpus")
    name = "_solvent_corpus_standalone"
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(path, "__init__.py"), submodule_search_locations=[path])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def import_optional(name):
    try:
        return importlib.import_module(name), None
    except Exception as e:
        return None, _short(e, 200)


# --------------------------------------------------------------------------- helpers


def copy_args(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def flat(ret):
    if ret is None:
        return []
    if isinstance(ret, tuple):
        return list(ret)
    return [ret]


def array_arg_indices(args):
    return [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]


def _equal_nan(a, b):
    return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def compare(expected, got):
    """Return None if ``got`` matches ``expected`` (lists of values), else a reason."""
    if len(expected) != len(got):
        return f"{len(got)} outputs, expected {len(expected)}"
    for i, (e, g) in enumerate(zip(expected, got)):
        e = np.asarray(e)
        try:
            g = np.asarray(g)
        except Exception as exc:
            return f"output {i}: not convertible to an array ({_short(exc)})"
        if e.shape != g.shape:
            return f"output {i}: shape {g.shape}, expected {e.shape}"
        if e.dtype != g.dtype:
            return f"output {i}: dtype {g.dtype}, expected {e.dtype}"
        if e.dtype.kind in "fc":
            low = e.dtype.itemsize <= (4 if e.dtype.kind == "f" else 8)
            rtol, atol = (1e-4, 1e-5) if low else (1e-6, 1e-8)
            if not np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True):
                with np.errstate(all="ignore"):
                    diff = np.nanmax(np.abs(g.astype(np.complex128) - e.astype(np.complex128)))
                return f"output {i}: values differ (max abs diff {diff:.3g})"
        elif not np.array_equal(e, g):
            return f"output {i}: values differ ({int(np.sum(e != g))} elements)"
    return None


# the clock of the timed calls and the statistic over them (--clock, --stat): wall time or
# the process's CPU time (all threads summed: on a shared machine the work done, not the wait
# for a core; compare single-threaded sides with it), median or least
TIMING = {"clock": time.perf_counter, "stat": statistics.median}


def median_ms(times):
    return TIMING["stat"](times) * 1e3


# --------------------------------------------------------------------------- runners
#
# A runner is ``run(args) -> (elapsed_seconds, outputs)`` where ``args`` is a fresh copy
# and ``outputs`` is a list of values comparable with the NumPy reference.


def inplace_runner(fn, arr_idx):
    """For callables with NumPy semantics (NumPy, solvent, Numba): outputs are the
    returns followed by every array argument after the call."""

    def run(args):
        clock = TIMING["clock"]
        t0 = clock()
        ret = fn(*args)
        dt = clock() - t0
        return dt, flat(ret) + [args[i] for i in arr_idx]

    return run


def jax_runner(jax, port):
    def run(args):
        with jax.enable_x64(True):
            clock = TIMING["clock"]
            t0 = clock()
            out = port(*args)
            out = jax.block_until_ready(out)
            dt = clock() - t0
        return dt, [np.asarray(o) for o in out]

    return run


def measure_all(entries, repeat):
    """Time several competitors on the same arguments, their calls interleaved.

    ``entries``: ``(label, make_runner, base_args, reference)``. Each runner is made and
    called once (compile + run, ``first_s``; its outputs checked against ``reference`` unless
    that is None), then the competitors still ``ok`` are called in rounds, one call each
    per round on fresh copies of their arguments, the order rotated each round, ``repeat``
    rounds. Measured one after the other, two competitors saw different moments of a shared
    machine's load (a kernel's NumPy time moved 2x between runs minutes apart here), so
    their ratio did too; interleaved, both see the same. Returns ``{label: record}``."""
    recs, runners = {}, {}
    for label, make_runner, base, reference in entries:
        try:
            run = make_runner()
            first, out = run(copy_args(base))
            rec = {"status": "ok", "first_s": first}
            why = None if reference is None else compare(reference, out)
            del out
            if why is not None:
                rec.update(status="mismatch", detail=why)
            else:
                runners[label] = (run, base)
                rec["times_s"] = []
        except Exception as e:  # noqa: BLE001 - a benchmark reports, never stops
            rec = error_rec(e)
        recs[label] = rec
    order = list(runners)
    for r in range(repeat):
        for label in order[r % len(order):] + order[:r % len(order)] if order else ():
            run, base = runners[label]
            args = copy_args(base)
            dt, _out = run(args)
            recs[label]["times_s"].append(dt)
            del _out, args
    for label in runners:
        recs[label]["steady_ms"] = median_ms(recs[label]["times_s"])
    return recs


# --------------------------------------------------------------------------- main


def fmt_ms(rec):
    if rec is None:
        return "n/a"
    if rec["status"] == "mismatch":
        return "MISMATCH"
    if rec["status"] == "error":
        t = rec["error_type"]
        return "error: " + (t[:-5] if t.endswith("Error") and len(t) > 5 else t)
    if rec["status"] == "skipped":
        return "n/a"
    return f"{rec['steady_ms']:.2f}"


def fmt_first(rec):
    if rec is None or rec["status"] in ("skipped",):
        return "n/a"
    if rec["status"] == "error":
        return "error"
    if "first_s" not in rec:
        return "-"
    return f"{rec['first_s']:.2f}"


def ratio(other, sol):
    if other is None or sol is None:
        return None
    if other.get("status") != "ok" or sol.get("status") != "ok":
        return None
    return other["steady_ms"] / sol["steady_ms"] if sol["steady_ms"] > 0 else None


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


def geomean(vals):
    vals = [v for v in vals if v is not None and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


# kernel groups summarized under the table (issue 9's targets: every dot-dominated kernel at
# least NumPy's speed and 1.2x in geometric mean; every single-pass memory-bound kernel at
# least NumPy's speed), by the tag in the module's docstring ("Category: linalg
# (dot-dominated)")
GROUPS = (("dot-dominated", "dot-dominated"), ("memory-bound", "memory-bound"))

COLS = [
    ("kernel", 18), ("n", 7), ("numpy ms", 9), ("solvent ms", 20), ("solvent 1st s", 13),
    ("numba ms", 20), ("jax ms", 20), ("vs numpy", 9), ("vs numba", 9), ("vs jax", 9),
]


def row_str(cells):
    out = []
    for (name, w), c in zip(COLS, cells):
        c = str(c)
        if len(c) > w:
            c = c[: w - 1] + "~"
        out.append(c.ljust(w) if name == "kernel" else c.rjust(w))
    return " ".join(out)


def error_rec(exc):
    return {"status": "error", "error_type": type(exc).__name__, "error": _short(exc, 300),
            "traceback": traceback.format_exc(limit=8)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", default="", help="comma-separated kernel names (default: all)")
    p.add_argument("--repeat", type=int, default=5, help="timed calls per competitor (median)")
    p.add_argument("--size-scale", type=float, default=1.0, help="multiply BENCH_SIZE by this")
    p.add_argument("--json", default=None, help="write raw numbers to this path")
    p.add_argument("--competitors", default=",".join(COMPETITORS),
                   help="subset of numpy,solvent,numba,jax (numpy is always run: it is the reference)")
    p.add_argument("--verbose", action="store_true", help="print tracebacks of errors")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="time the calls by wall clock or by the process's CPU time")
    p.add_argument("--stat", choices=("median", "min"), default="median",
                   help="the statistic over the timed calls")
    a = p.parse_args(argv)
    TIMING["clock"] = time.process_time if a.clock == "cpu" else time.perf_counter
    TIMING["stat"] = min if a.stat == "min" else statistics.median

    wanted = {c.strip() for c in a.competitors.split(",") if c.strip()} | {"numpy"}
    unknown = wanted - set(COMPETITORS)
    if unknown:
        p.error(f"unknown competitors: {sorted(unknown)}")

    notes = []
    solvent = None
    if "solvent" in wanted:
        solvent, err = import_solvent()
        if solvent is None:
            notes.append(f"NOTE: solvent unavailable ({err}); solvent columns show n/a")
    corpus = import_corpus(solvent is not None or _solvent_package_importable())

    numba = jax = jax_ports = None
    if "numba" in wanted:
        numba, err = import_optional("numba")
        if numba is None:
            notes.append(f"NOTE: numba unavailable ({err})")
        else:
            import warnings

            warnings.filterwarnings("ignore", category=numba.NumbaPerformanceWarning)
    if "jax" in wanted:
        jax, err = import_optional("jax")
        if jax is None:
            notes.append(f"NOTE: jax unavailable ({err})")
        else:
            jax_ports, err = import_optional("jax_ports")
            if jax_ports is None:
                notes.append(f"NOTE: benchmarks/jax_ports.py failed to import ({err})")
                jax = None

    if a.kernels:
        kernels = [corpus.get(n.strip()) for n in a.kernels.split(",") if n.strip()]
        twins = [k.name for k in kernels if k.twin_of]
        if twins:
            p.error(f"loop twins {twins}: NumPy would run their Python loops at BENCH_SIZE; "
                    "use benchmarks/loop_twins.py")
    else:
        kernels = corpus.vectorized()

    for n in notes:
        print(n)
    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "numba": getattr(numba, "__version__", None), "jax": getattr(jax, "__version__", None),
                "solvent": getattr(solvent, "__version__", None) if solvent else None}
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items() if v))
    print(f"repeat={a.repeat} size-scale={a.size_scale} clock={a.clock}  (times: {a.stat} ms; "
          "first call in s; "
          "ratios: other/solvent, >1 = solvent faster)\n")
    header = row_str([c for c, _ in COLS])
    print(header)
    print("-" * len(header))

    results = []
    details = []
    for k in kernels:
        size = max(1, int(round(k.bench_size * a.size_scale)))
        rec = {"kernel": k.name, "category": k.category, "size": size,
               "groups": [label for label, tag in GROUPS if tag in (k.module.__doc__ or "")]}
        base = k.make_args(size, np.random.default_rng(0))
        arr_idx = array_arg_indices(base)

        # NumPy: the reference (its first call), then every competitor timed interleaved
        try:
            ref_args = copy_args(base)
            t0 = time.perf_counter()
            ref_ret = flat(k.func(*ref_args))
            first = time.perf_counter() - t0
            reference = ref_ret + [ref_args[i] for i in arr_idx]
            mutated = [i for i in arr_idx if not _equal_nan(base[i], ref_args[i])]
            jax_reference = ref_ret + [ref_args[i] for i in mutated]
            rec["mutated_args"] = mutated
        except Exception as e:
            reference = jax_reference = None
            rec["numpy"] = error_rec(e)
            details.append(f"{k.name} [numpy]: {rec['numpy']['error']}")
        entries = []
        if reference is not None:
            entries.append(("numpy", lambda: inplace_runner(k.func, arr_idx), base, None))
            if "solvent" in wanted and solvent is not None:
                entries.append(("solvent", lambda: inplace_runner(solvent.jit(k.func), arr_idx),
                                base, reference))
            if numba is not None and k.numba_ok:
                entries.append(("numba", lambda: inplace_runner(numba.njit(k.func), arr_idx),
                                base, reference))
            if jax is not None and k.jax_port:
                entries.append(("jax", lambda: jax_runner(jax, getattr(jax_ports, k.jax_port)),
                                base, jax_reference))
        recs = measure_all(entries, a.repeat)
        for label, r in recs.items():
            if r["status"] == "mismatch":
                details.append(f"{k.name} [{label}]: MISMATCH {r['detail']}")
            elif r["status"] == "error":
                details.append(f"{k.name} [{label}]: {r['error']}")
                if a.verbose:
                    details.append(r["traceback"])
        if reference is not None:
            rec["numpy"] = recs["numpy"]
            rec["numpy"]["first_s"] = first
        skipped = {"status": "skipped", "why": "numpy reference failed"}
        for c in ("solvent", "numba", "jax"):
            rec[c] = recs.get(c, skipped if reference is None and c in wanted else None)
        np_rec = rec["numpy"]

        sol = rec["solvent"]
        rec["ratio_vs_numpy"] = ratio(np_rec, sol)
        rec["ratio_vs_numba"] = ratio(rec["numba"], sol)
        rec["ratio_vs_jax"] = ratio(rec["jax"], sol)
        results.append(rec)
        print(row_str([k.name, size, fmt_ms(np_rec), fmt_ms(sol), fmt_first(sol),
                       fmt_ms(rec["numba"]), fmt_ms(rec["jax"]), fmt_ratio(rec["ratio_vs_numpy"]),
                       fmt_ratio(rec["ratio_vs_numba"]), fmt_ratio(rec["ratio_vs_jax"])]),
              flush=True)
        del base

    gm = {c: geomean([r[f"ratio_vs_{c}"] for r in results]) for c in ("numpy", "numba", "jax")}
    cnt = {c: sum(r[f"ratio_vs_{c}"] is not None for r in results) for c in ("numpy", "numba", "jax")}
    print("-" * len(header))
    print(row_str(["geomean"] + [""] * 6 + [fmt_ratio(gm["numpy"]), fmt_ratio(gm["numba"]),
                                            fmt_ratio(gm["jax"])]))
    print(row_str(["(kernels counted)"] + [""] * 6 + [cnt["numpy"], cnt["numba"], cnt["jax"]]))
    for label, what in GROUPS:
        rs = [(r["kernel"], r["ratio_vs_numpy"]) for r in results if label in r["groups"]]
        got = [v for _, v in rs if v is not None]
        if rs:
            below = ", ".join(f"{k} {v:.2f}x" for k, v in rs if v is not None and v < 1.0)
            missing = [k for k, v in rs if v is None]
            print(f"{label} ({len(got)} of {len(rs)} kernels): vs numpy geomean "
                  f"{fmt_ratio(geomean(got))}, min {fmt_ratio(min(got) if got else None)}"
                  + (f"; below 1.0x: {below}" if below else "")
                  + (f"; no ratio: {', '.join(missing)}" if missing else ""))
    firsts = []
    for c in ("solvent", "numba", "jax"):
        fs = [r[c]["first_s"] for r in results if r.get(c) and r[c].get("status") == "ok"]
        if fs:
            firsts.append(f"{c} {geomean(fs):.3f} s (max {max(fs):.2f} s, {len(fs)} kernels)")
    if firsts:
        print("first call (compile + run), geomean: " + "; ".join(firsts))
    if details:
        print("\nDetails:")
        for d in details:
            print("  " + d)

    if a.json:
        for r in results:
            for c in ("numpy", "solvent", "numba", "jax"):
                if r.get(c):
                    r[c].pop("traceback", None)
        payload = {"versions": versions, "repeat": a.repeat, "size_scale": a.size_scale,
                   "platform": platform.platform(), "cpu_count": os.cpu_count(),
                   "notes": notes, "geomean": gm, "results": results}
        with open(a.json, "w") as f:
            json.dump(payload, f, indent=1, default=float)
        print(f"\nwrote {a.json}")
    return 0


def _solvent_package_importable():
    try:
        importlib.import_module("solvent")
        return True
    except Exception:
        return False


if __name__ == "__main__":
    sys.exit(main())
