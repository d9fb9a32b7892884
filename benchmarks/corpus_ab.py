#!/usr/bin/env python
"""Side-by-side benchmark of one choice of solvent on the corpus kernels: a compile-time
option A/B, or the automatic backend choice against every backend forced.

Usage::

    python benchmarks/corpus_ab.py CHOICE [--kernels a,b] [--repeat N] [--stat median|min]
                                          [--twins]

Each kernel is compiled by ``solvent.jit`` once per side of the choice, the compiled versions
are checked to agree, and then they run interleaved (one round: the best of 3 calls of every
side in turn) on fresh copies of the bench-size arguments (copies not timed). The table gives,
per side, the median (or, with ``--stat min``, the least: the time the least disturbed by
other processes) over ``--repeat`` rounds, in ms of wall time (or, with ``--clock cpu``, of
the process's CPU time, summed over its threads: on a loaded machine the work done, not the
wait for a core). A side whose first timed call takes over a
second gets one call per round.
Choices:

* ``vector-width``: XLA:CPU's preferred vector width, A = XLA's default (256 bits on x86),
  B = 512 bits (``SOLVENT_XLA_VECTOR_WIDTH``; solvent's rule is in
  ``solvent/backends/xla_host.py``).
* ``copy-analysis``: XLA:CPU's copy insertion, A = XLA's default analysis, B = the
  region-based one solvent asks for (``SOLVENT_XLA_COPY_ANALYSIS``; see
  ``solvent/backends/xla_host.py``).
* ``update-pass``: which slice updates are lowered as one elementwise pass
  (``solvent/ops/structural.py: one_pass_update``). A = only stencil steps whose value reads
  neighbours of the updated array (the rule before updates from other arrays were added),
  B = as shipped.
* ``version-checks``: native backend, A = loops keep their index checks
  (``solvent/passes/version_checks.py`` off), B = as shipped (check-free copies).
* ``data-gathers``: native backend, A = loops whose batched form gathers from a shared
  array are raised (``raise_loops`` ``data_gathers=True``), B = as shipped (they stay loops).
  Kernels whose IR it does not change time the same code on both sides.
* ``check-exits``: native backend, A = a loop lowered with early returns returns on a
  failed check as value only at its yield (``NativeBackend(check_exits=False)``), B = as
  shipped (also right after each check: ``solvent/backends/native/error_exit.py``).
* ``opt-level``: native backend, A = LLVM's O2 pipeline (``NativeBackend(opt_level=2)``:
  among other differences, O2's full-unroll threshold), B = as shipped (O3).
* ``unroll-threshold``: native backend, A = LLVM's own full-unroll threshold at O3
  (``-unroll-threshold-aggressive=300``), B = as shipped (150, O2's:
  ``solvent/backends/native/engine.py``).
* ``backend``: the automatic choice (``solvent/backends/choice.py``) against each automatic
  backend forced with ``jit(backend=...)``. Columns: each side's ms (``refused`` where the
  backend does not accept the kernel), ``auto/best`` = auto's time over the fastest forced
  backend's (> 1.10 is a miss of issue 8's bar when the fastest forced backend is not the
  one auto picked; when it is, both sides ran the same code and the ratio is noise), the
  backend auto picked, the fastest forced one, and auto's reason.
  ``--twins`` adds the loop twins (their bench-size arguments; a side that refuses or fails
  is listed, not fatal).

For the two-sided choices the ratio is A/B (> 1: B is faster), and ``1st A``/``1st B`` give
each side's first call (translation, compilation and one run; B's compiled after A's in the
same process); for a choice of solvent's
passes, kernels whose two sides give XLA the same StableHLO are marked: only noise sets them
apart.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time

import numpy as np

import solvent
import solvent.ops.structural as structural
from solvent.backends import available_backends, get_backend
from solvent.backends.xla_host import COPY_ENV, ENV
from solvent.corpus import loop_twins, vectorized

from bench import compare, copy_args, flat


@contextlib.contextmanager
def _env(value, name=ENV):
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            del os.environ[name]
        else:
            os.environ[name] = saved


def _reads_updated_array(op):
    """Whether the update's fused value reads the array it updates (any region)."""
    x, seen, stack = op.operands[0], set(), [op.operands[1]]
    while stack:
        v = stack.pop()
        if v is x:
            return True
        d = v.owner
        if isinstance(d, type(op)) and id(d) not in seen and d.parent is op.parent:
            seen.add(id(d))
            stack.extend(d.operands)
    return False


@contextlib.contextmanager
def _neighbour_updates_only():
    shipped = structural.one_pass_update
    structural.one_pass_update = lambda op: shipped(op) and _reads_updated_array(op)
    try:
        yield
    finally:
        structural.one_pass_update = shipped


@contextlib.contextmanager
def _native_option(name, value):
    """The registered native backend with its option ``name`` set to ``value``."""
    native = get_backend("native")
    saved = getattr(native, name)
    setattr(native, name, value)
    try:
        yield
    finally:
        setattr(native, name, saved)


@contextlib.contextmanager
def _unroll_threshold(value):
    """The native backend's LLVM full-unroll threshold at ``value``."""
    from solvent.backends.native import engine
    saved, engine.UNROLL_THRESHOLD = engine.UNROLL_THRESHOLD, value
    try:
        yield
    finally:
        engine.UNROLL_THRESHOLD = saved


XLA_OPTIONS = {"vector-width", "copy-analysis"}  # the same StableHLO, compiled two ways
_PLAIN = contextlib.nullcontext
CHOICES = {
    # name: [(label, context, jit keywords), ...]
    "vector-width": [("default", lambda: _env("default"), {}), ("512", lambda: _env("512"), {})],
    "copy-analysis": [("default", lambda: _env("default", COPY_ENV), {}),
                      ("region", lambda: _env("region", COPY_ENV), {})],
    "update-pass": [("neighbours", _neighbour_updates_only, {}), ("shipped", _PLAIN, {})],
    "version-checks": [("off", _PLAIN, {"backend": "native",
                                        "passes": {"version_checks": {"enabled": False}}}),
                       ("shipped", _PLAIN, {"backend": "native"})],
    "data-gathers": [("gathers", _PLAIN, {"backend": "native",
                                          "passes": {"raise_loops": {"data_gathers": True}}}),
                     ("shipped", _PLAIN, {"backend": "native"})],
    "check-exits": [("at-yield", lambda: _native_option("check_exits", False),
                     {"backend": "native"}),
                    ("shipped", _PLAIN, {"backend": "native"})],
    "opt-level": [("O2", lambda: _native_option("opt_level", 2), {"backend": "native"}),
                  ("shipped", _PLAIN, {"backend": "native"})],
    "unroll-threshold": [("300", lambda: _unroll_threshold(300), {"backend": "native"}),
                         ("shipped", _PLAIN, {"backend": "native"})],
    "backend": [("auto", _PLAIN, {})] + [
        (b, _PLAIN, {"backend": b}) for b in available_backends() if get_backend(b).automatic],
}


def _compiled(kernel, context, args, jit_kwargs, want_hlo):
    """(jitted function, its result, the StableHLO it gave XLA or None), made in ``context``."""
    with context():
        f = solvent.jit(kernel, **jit_kwargs)
        call = copy_args(args)
        # XLA compiles on the first call, inside the context; the result is the returns
        # and the arguments after the call (kernels that update their arguments)
        out = (f(*call), tuple(x for x in call if isinstance(x, np.ndarray)))
        hlo = None
        if want_hlo:
            c = f.compile(args)
            ex = c.executable   # the native backend's code is its LLVM IR
            hlo = ex.llvm_ir if hasattr(ex, "llvm_ir") else \
                ex.lower_text(*[args[i] for i in c.translation.arg_map])
    return f, out, hlo


def _same(a, b):
    """Whether two sides' (returns, arguments after the call) agree, to bench.py's tolerance
    (float32 results are compared more loosely than float64 ones)."""
    return compare(flat(a[0]) + list(a[1]), flat(b[0]) + list(b[1])) is None


CLOCK = time.perf_counter


def _best_of(f, args, calls):
    best = float("inf")
    for _ in range(calls):
        call = copy_args(args)
        t0 = CLOCK()
        f(*call)
        best = min(best, CLOCK() - t0)
    return best


def _time_sides(fs, args, repeat, stat):
    """Interleaved rounds; per side, ``stat`` over rounds of the best of (up to) 3 calls."""
    calls = [3 if _best_of(f, args, 1) < 1.0 else 1 for f in fs]
    times = [[] for _ in fs]
    for _ in range(repeat):
        for f, n, ts in zip(fs, calls, times):
            ts.append(_best_of(f, args, n))
    return [stat(ts) * 1e3 for ts in times]


def _ab_row(k, sides, args, a):
    try:
        firsts = []
        for _, ctx, kw in sides:
            t0 = time.perf_counter()
            firsts.append(_compiled(k.func, ctx, args, kw, True))
            firsts[-1] += (time.perf_counter() - t0,)
        (fa, oa, ha, ca), (fb, ob, hb, cb) = firsts
    except solvent.UnsupportedError as e:   # a side's backend refuses it: say so, go on
        print(f"{k.name:22s}  refused: {str(e).splitlines()[0][:90]}", flush=True)
        return
    assert _same(oa, ob), f"{k.name}: the two sides disagree"
    ta, tb = _time_sides([fa, fb], args, a.repeat, a.stat)
    same = "  same code: the ratio is noise" if ha == hb and \
        a.choice not in XLA_OPTIONS | {"opt-level", "unroll-threshold"} else ""
    print(f"{k.name:22s}{ta:10.3f}{tb:10.3f}{ta / tb:7.2f}x{ca:8.2f}s{cb:7.2f}s{same}",
          flush=True)


def _backend_row(k, sides, args, a, misses, noisy):
    """auto and every forced backend; returns nothing, prints one row."""
    compiled, cells = [], []
    for label, ctx, kw in sides:
        try:
            compiled.append((label,) + _compiled(k.func, ctx, args, kw, False)[:2])
        except solvent.UnsupportedError:
            cells.append((label, "refused"))
        except Exception as e:  # noqa: BLE001 - a benchmark reports, never stops
            cells.append((label, f"error: {type(e).__name__}"))
    ref = compiled[0][2] if compiled else None
    auto = compiled[0][1] if compiled and compiled[0][0] == "auto" else None
    for label, _, out in compiled[1:]:
        if not _same(out, ref):
            cells.append((label, "MISMATCH"))
    good = [(label, f) for label, f, _ in compiled if label not in dict(cells)]
    ms = dict(zip([label for label, _ in good],
                  _time_sides([f for _, f in good], args, a.repeat, a.stat)))
    ms.update(cells)
    forced = {label: v for label, v in ms.items() if label != "auto" and isinstance(v, float)}
    best = min(forced, key=forced.get) if forced else "-"
    ratio = ms["auto"] / forced[best] if forced and isinstance(ms.get("auto"), float) else None
    picked, why = "-", ""
    if auto is not None:
        c = auto.compile(args)
        picked, why = c.backend, c.reason
    if ratio is not None and ratio > 1.10:
        # auto runs the executable of the backend it picked: when that is the fastest
        # forced one, the two timed the same code and the ratio is the machine's noise
        (misses if picked != best else noisy).append(k.name)
    cols = "".join(f"{v:10.3f}" if isinstance(v, float) else f"{str(v)[:9]:>10s}"
                   for v in (ms.get(label, "-") for label, _, _ in sides))
    r = "-" if ratio is None else f"{ratio:.2f}"
    print(f"{k.name:22s}{cols}{r:>10s}  {picked:7s} {best:7s} {why}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("choice", choices=sorted(CHOICES))
    p.add_argument("--kernels", default="")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--stat", choices=("median", "min"), default="median")
    p.add_argument("--twins", action="store_true", help="add the loop twins (backend choice)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="cpu: the process's CPU time (all its threads), which other "
                   "processes on a loaded machine disturb less than wall time")
    a = p.parse_args()
    global CLOCK
    CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}[a.clock]
    a.stat = {"median": statistics.median, "min": min}[a.stat]
    sides = CHOICES[a.choice]
    wanted = set(filter(None, a.kernels.split(",")))
    kernels = vectorized() + (loop_twins() if a.twins or wanted else [])
    print(", ".join(f"{'AB'[i] + ' = ' if len(sides) == 2 else ''}{label}"
                    for i, (label, _, _) in enumerate(sides)) + f"  ({a.choice})")
    if a.choice == "backend":
        print(f"{'kernel':22s}" + "".join(f"{label + ' ms':>10s}" for label, _, _ in sides)
              + f"{'auto/best':>10s}  picked  fastest why")
    else:
        print(f"{'kernel':22s}{'A ms':>10s}{'B ms':>10s}{'A/B':>8s}{'1st A':>9s}{'1st B':>8s}")
    misses, noisy = [], []
    for k in kernels:
        if wanted and k.name not in wanted:
            continue
        args = k.make_args(k.bench_size, np.random.default_rng(0))
        if a.choice == "backend":
            _backend_row(k, sides, args, a, misses, noisy)
        else:
            _ab_row(k, sides, args, a)
    if a.choice == "backend":
        print(f"\nauto/best > 1.10 with another backend faster: {len(misses)} kernel(s): "
              f"{', '.join(misses) or 'none'}")
        print(f"auto/best > 1.10 on the backend auto picked (the same code: noise): "
              f"{len(noisy)} kernel(s): {', '.join(noisy) or 'none'}")


if __name__ == "__main__":
    main()
