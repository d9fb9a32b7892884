#!/usr/bin/env python
"""Every op of the registry against NumPy's own function on the same input, one line per op.

Usage: python benchmarks/ops_vs_numpy.py [--sizes 1e3,1e5,1e7] [--ops exp,cumsum]
                                         [--dtype f8] [--backend auto|xla|native]
                                         [--repeat 5] [--clock wall|cpu] [--stat median|min]

The script walks ``solvent.ir.registry.REGISTRY``. Elementwise ops take their NumPy function
from the op family's own table (``solvent.ops.elementwise.UNARY``/``BINARY``, which the op
records are built from); the other ops that have a NumPy spelling are listed in ``CALLS``
below (the NumPy source that solvent's frontend turns into that op). Each call is written
as a one-line Python function in a temporary module, run by plain NumPy and by
``solvent.jit`` of the same function (after a warm-up call, results compared), median (or
least: --stat min) of --repeat calls each, in wall or (--clock cpu) CPU time, alternating. Ratio = NumPy time / solvent time (> 1: solvent faster);
``*`` marks ratios below 0.8. Ops with no NumPy spelling (loops, refs, checks, constants)
are listed at the end.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile

import numpy as np

from products import add_clock_options, median_s, set_clock  # benchmarks/products.py

# op name -> (NumPy source of the body over x (and y, idx), argument kinds)
# argument kinds: "x" float vector of n, "xc" complex vector, "m" sqrt(n) x sqrt(n) matrix,
# "idx" int64 index vector of n into x, "b" bool vector, "p" a symmetric positive definite
# sqrt(n) x sqrt(n) matrix
CALLS = {
    "tensor.reduce_sum": ("x.sum()", "x"),
    "tensor.reduce_prod": ("(x * 1e-300 + 1.0).prod()", "x"),
    "tensor.reduce_max": ("x.max()", "x"),
    "tensor.reduce_min": ("x.min()", "x"),
    "tensor.reduce_any": ("np.any(b)", "b"),
    "tensor.reduce_all": ("np.all(b)", "b"),
    "tensor.argmax": ("np.argmax(x)", "x"),
    "tensor.argmin": ("np.argmin(x)", "x"),
    "tensor.cumsum": ("np.cumsum(x)", "x"),
    "tensor.cumprod": ("np.cumprod(1.0 + x * 1e-9)", "x"),
    "tensor.sort": ("np.sort(x)", "x"),
    "tensor.argsort": ("np.argsort(x)", "x"),
    "tensor.repeat": ("np.repeat(x, 3)", "x"),
    "tensor.reverse": ("x[::-1].copy()", "x"),
    "tensor.slice": ("x[1::2].copy()", "x"),
    "tensor.transpose": ("m.T.copy()", "m"),
    "tensor.reshape": ("m.T.reshape(-1)", "m"),
    "tensor.concatenate": ("np.concatenate([x, y])", "xy"),
    "tensor.broadcast_to": ("m + x[:m.shape[1]]", "mx"),
    "tensor.gather": ("x[idx]", "xidx"),
    "tensor.scatter": ("_scatter(x, idx, y)", "xidxy"),
    "tensor.scatter_add": ("_scatter_add(x, idx, y)", "xidxy"),
    "tensor.update_slice": ("_update(x, y)", "xy"),
    "tensor.select": ("np.where(x > 0, x, y)", "xy"),
    "tensor.convert": ("x.astype(np.float32)", "x"),
    "tensor.iota": ("np.arange(x.shape[0]) * 1.0", "x"),
    "tensor.linspace": ("np.linspace(0.0, 1.0, x.shape[0])", "x"),
    "tensor.triangle": ("np.triu(m)", "m"),
    "tensor.dot_general": ("m @ m", "m"),
    "tensor.fft": ("np.fft.fft(xc)", "xc"),
    "tensor.abs+c": ("np.abs(xc)", "xc"),
    "tensor.max+c": ("np.maximum(xc, xc * 0.5)", "xc"),
    "tensor.reduce_max+c": ("xc.real.max()", "xc"),
    "tensor.concatenate+stack": ("np.stack((x, y))", "xy"),
    "tensor.reduce_sum+stack": ("np.stack((x, y)).mean(axis=0)", "xy"),
    "tensor.reshape+rows": ("np.concatenate((m.reshape(-1), x))", "mx"),
    "tensor.cummax": ("np.maximum.accumulate(x)", "x"),
    "tensor.cummin": ("np.minimum.accumulate(x)", "x"),
    "tensor.pad": ("np.pad(x, 3)", "x"),
    "tensor.fill": ("np.full(x.shape[0], 2.5)", "x"),
    "tensor.nonzero": ("np.nonzero(b)[0]", "b"),
    "tensor.mask_select": ("x[b]", "xb"),
    "tensor.complex": ("x + 1j * y", "xy"),
    "tensor.inv": ("np.linalg.inv(p)", "p"),
    "tensor.det": ("np.linalg.det(p)", "p"),
    "tensor.slogdet": ("np.linalg.slogdet(p)[1]", "p"),
    "tensor.solve": ("np.linalg.solve(p, x[:p.shape[0]])", "px"),
    "tensor.cholesky": ("np.linalg.cholesky(p)", "p"),
    "tensor.eigh": ("np.linalg.eigh(p)[0]", "p"),
    "tensor.qr": ("np.linalg.qr(m)[1]", "m"),
    "tensor.svd": ("np.linalg.svd(m, compute_uv=False)", "m"),
}
# decompositions are O(side^3) on a side x side matrix of n elements: measured up to this n
# (side 1000), so that one run of the table stays within minutes
CUBIC = {"tensor.inv", "tensor.det", "tensor.slogdet", "tensor.solve", "tensor.cholesky",
         "tensor.eigh", "tensor.qr", "tensor.svd"}
CUBIC_MAX_N = 10 ** 6
# Ops measured slower than NumPy by more than 20% at n >= 1e5 whose lowering was not (yet)
# changed, and the reason. Measured on 2026-11-27 (branch floor, after native vector math,
# the blocked argmax and native data movement) with every side on one thread and CPU time:
#   OPENBLAS_NUM_THREADS=1 XLA_FLAGS="--xla_cpu_multi_thread_eigen=false
#   intra_op_parallelism_threads=1" PYTHONPATH=. python benchmarks/ops_vs_numpy.py
#   --sizes 1e3,1e5,1e7 --clock cpu --stat min
# on the shared 2-core AMD EPYC (Zen 5, AVX-512) host (other jobs running; suspect rows
# re-measured alone); the ratios (NumPy time / solvent time at 1e5 / 1e7) are in the entries,
# the whole table in docs/measurements/ops_vs_numpy.txt. Shared by every op at small n: a
# cached XLA call costs 15-30 us of dispatch (jax.jit's own, plus solvent's boundary)
# against NumPy's ~1 us, and a native call 3-5 us, so at 1e3 elements most single-op
# functions are slower than NumPy (0.1-0.6x). Transcendental functions (exp, log, sin, tanh,
# arcsin, atan2...) are no longer here: the native backend calls glibc's vector math
# library, 1.2-12x NumPy at 1e5 and 1.2-8x at 1e7.
_DISPATCH = ("one pass over 1e5 one-byte or 8-byte elements takes NumPy 3-15 us, and the "
             "native call adds 3-5 us of its own (argument checks, result allocation); at "
             "1e7 the op runs at 0.9-1.0x")
KNOWN_SLOW = {
    **{f"tensor.{name}": _DISPATCH + f" ({ratios})" for name, ratios in (
        ("not", "0.41x / 0.94x, native alone"), ("and", "0.43x / 0.94x, native alone"),
        ("or", "0.40x / 0.93x, native alone"), ("xor", "0.43x / 0.99x, native alone"),
        ("isnan", "0.76x / 0.96x"), ("isinf", "0.79x / 1.00x"), ("min", "0.78x / 0.93x"),
        ("bitor", "0.79x / 1.02x"), ("eq", "0.75x / 0.95x"), ("le", "0.79x / 0.97x"),
        ("floor", "0.79x / 1.03x"), ("convert", "0.78x / 1.06x"),
        ("reduce_max", "0.70x / 0.96x under auto, 0.85x / 0.88x native alone"))},
    "tensor.real": "NumPy's np.real of a complex array is a view (no copy, O(1)); a compiled "
                   "function returns a new array, so it copies n elements (0.11x / 0.13x)",
    "tensor.imag": "as real (0.76x / 0.00x: NumPy's view costs nothing at 1e7)",
    "tensor.reduce_any": "NumPy's np.any/np.all of a bool array stop at the first deciding "
                         "element (here within the first few of random data); the native "
                         "reduction reads every element (0.85x / 0.01x; data-dependent: no "
                         "early exit is worth a branch per element on other data)",
    "tensor.reduce_all": "as reduce_any (0.51x / 0.02x)",
    "tensor.sort": "native under auto: a scalar LSD radix sort (radix_sort.py; 0.05x / 0.06x "
                   "with qsort and a comparison callback before it); NumPy's np.sort runs "
                   "x86-simd-sort's vectorized quicksort (AVX2 on this host, X86_V3), which "
                   "a scalar sort does not reach on random float64 (0.61x / 0.55x at 1e5 / "
                   "1e7; int8/uint8 keys, one pass, 20x). argsort carries indices, where "
                   "NumPy's vectorized path gains less: 1.0x / 2.5x",
    "tensor.reshape": "m.T.reshape(-1) is a transpose copy, native under auto (data movement "
                      "alone): 0.72x / 0.93x native alone (XLA, before: 0.31x / 0.49x); "
                      "0.81x / 0.97x on 2026-11-28 (floor3). A reshape read by another op "
                      "is read in place since floor3 (bufferize._view_reshape: "
                      "reshape+rows 0.65x / 0.70x -> 1.00x / 0.96x, np.stack 0.24x / 0.57x "
                      "-> 1.26x / 0.93x); a returned one is still a copy of its own (the "
                      "executable hands out each buffer in the shape it was allocated with)",
    "tensor.gather": "native under auto since its index checks count as data movement "
                     "(choice.ArrayWork.only_moves; on XLA 0.14-0.20x / 0.65x): 0.76-0.94x "
                     "at 1e5 (the native call's few us against NumPy's take, one loop), "
                     "0.94-0.99x at 1e7",
    "tensor.update_slice": "a strided store into a fresh zeros array (native under auto): "
                           "the native backend writes the zeros in one pass and the strided "
                           "elements in another, where NumPy's np.zeros is calloc (pages the "
                           "kernel zeroes on first touch, no pass) (0.90x / 0.71x)",
    "tensor.cbrt": "glibc's vector math library has no cbrt, so the native backend would "
                   "call scalar libm per element and auto sends it to XLA (choice.py "
                   "LIBM_COST), whose cbrt is slower than NumPy's SIMD loop (0.81-0.88x / "
                   "0.74-0.87x, two runs)",
    "tensor.max+c": "complex maximum compares (real, imag) lexicographically with NaN "
                    "propagation: several selects per element on XLA (1.38-1.51x / "
                    "0.79-0.84x, two runs)",
    "tensor.argmin": "the blocked two-pass rule (rules_reduce.ARG_BLOCK): 0.79-0.85x at 1e5 "
                     "(three runs, one at 0.79), 1.02x at 1e7; argmax the same rule at "
                     "0.94-0.97x; the 1e5 gap not investigated further",
    "tensor.nonzero": "native: a result of run-time length (a counting pass, then the "
                      "indices written into a buffer the native code allocates, which the "
                      "executable copies into a NumPy array and frees: backend._take) "
                      "against NumPy's one SIMD count and fill (0.12x / 0.14x at 1e5 / 1e6, "
                      "2026-11-28, floor3); which of the passes costs most is not measured",
    "tensor.fft": "XLA only (the native backend has no FFT): XLA:CPU's FFT (DUCC) against "
                  "NumPy's pocketfft, plus the boundary copy of the complex argument "
                  "(0.74x / 0.77x)",
}
HELPERS = '''
def _scatter(x, idx, y):
    z = x.copy()
    z[idx] = y
    return z


def _scatter_add(x, idx, y):
    z = x.copy()
    np.add.at(z, idx, y)
    return z


def _update(x, y):
    z = np.zeros(2 * x.shape[0])
    z[::2] = y
    return z
'''


def elementwise_calls():
    from solvent.ops.elementwise import BINARY, UNARY
    calls = {}
    for name, (np_fn, _, kinds, _) in UNARY.items():
        if getattr(np, np_fn.__name__, None) is not np_fn:   # erf/erfc: math's, not NumPy's
            continue
        arg = "x" if "f" in kinds else ("b" if kinds == "b" else "i")
        if name in ("arccosh",):
            body = f"np.{np_fn.__name__}(1.0 + np.abs(x))"
        elif name in ("arcsin", "arccos", "arctanh"):
            body = f"np.{np_fn.__name__}(np.tanh(x))"
        elif name in ("log", "log2", "log10", "log1p", "sqrt", "reciprocal"):
            body = f"np.{np_fn.__name__}(np.abs(x) + 1.0)"
        else:
            body = f"np.{np_fn.__name__}({arg})"
        calls[f"tensor.{name}"] = (body, arg)
    for name, (np_fn, _, kinds, _) in BINARY.items():
        if "f" in kinds:
            calls[f"tensor.{name}"] = (f"np.{np_fn.__name__}(x, y)", "xy")
        elif "i" in kinds:
            calls[f"tensor.{name}"] = (f"np.{np_fn.__name__}(i, j)", "ij")
        else:
            calls[f"tensor.{name}"] = (f"np.{np_fn.__name__}(b, c)", "bc")
    return calls


def build_module(calls: dict):
    lines = ["import numpy as np", HELPERS]
    params = {}
    for k, (body, kinds) in calls.items():
        ps = []
        for p in ("xc", "idx", "x", "y", "m", "p", "b", "c", "i", "j"):
            if p in kinds:
                ps.append(p)
                kinds = kinds.replace(p, "", 1)
        fname = "op_" + k.split(".", 1)[1].replace("+", "_")
        params[k] = (fname, ps)
        lines.append(f"\n\ndef {fname}({', '.join(ps)}):\n    return {body}\n")
    d = tempfile.mkdtemp(prefix="solvent_ops_")
    path = os.path.join(d, "ops_generated.py")
    with open(path, "w") as fh:
        fh.write("".join(lines))
    spec = importlib.util.spec_from_file_location("ops_generated", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, params


def _spd(rng, side):
    """A symmetric positive definite side x side matrix (cholesky, eigh, solve...)."""
    g = rng.standard_normal((side, side))
    return g @ g.T / side + np.eye(side)


def arguments(ps, n, rng):
    side = max(2, int(round(n ** 0.5)))
    made = {"x": rng.standard_normal(n), "y": rng.standard_normal(n),
            "xc": rng.standard_normal(n) + 1j * rng.standard_normal(n),
            "m": rng.standard_normal((side, side)), "idx": rng.integers(0, n, n),
            "p": _spd(rng, side),
            "b": rng.random(n) < 0.5, "c": rng.random(n) < 0.5,
            "i": rng.integers(1, 1 << 20, n), "j": rng.integers(1, 16, n)}
    return [made[p] for p in ps]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e3,1e5,1e7")
    ap.add_argument("--ops", default="", help="comma-separated op names without 'tensor.'")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--repeat", type=int, default=5)
    add_clock_options(ap)
    a = ap.parse_args()
    set_clock(a.clock, a.stat)
    import solvent
    from solvent.ir.registry import REGISTRY
    calls = elementwise_calls()
    calls.update(CALLS)
    wanted = {f"tensor.{o}" for o in a.ops.split(",") if o}
    listed = [k for k in calls if k.split("+")[0] in REGISTRY and (
        not wanted or k.split("+")[0] in wanted)]
    mod, params = build_module({k: calls[k] for k in listed})
    sizes = [int(float(s)) for s in a.sizes.split(",")]
    rng = np.random.default_rng(0)
    print(f"{'op':24s}" + "".join(f" {'n=%.0e' % n:>10s}" for n in sizes)
          + "   (NumPy time / solvent time; * below 0.8; backend at the largest size)")
    slow = []
    for k in listed:
        fname, ps = params[k]
        f = getattr(mod, fname)
        jf = solvent.jit(f, backend=None if a.backend == "auto" else a.backend)
        cells, pick = [], ""
        for n in sizes:
            if k in CUBIC and n > CUBIC_MAX_N:
                cells.append("-")
                continue
            args = arguments(ps, n, rng)
            try:
                with np.errstate(all="ignore"):
                    want = f(*args)
                    got = jf(*args)
                if not np.allclose(np.asarray(got, dtype=complex),
                                   np.asarray(want, dtype=complex), rtol=1e-6,
                                   atol=1e-9, equal_nan=True):
                    cells.append("MISMATCH")
                    continue
                with np.errstate(all="ignore"):
                    rounds = [(median_s(f, args, a.repeat), median_s(jf, args, a.repeat))
                              for _ in range(2)]
                r = statistics.median(t for t, _ in rounds) / statistics.median(
                    t for _, t in rounds)
                cells.append(f"{r:9.2f}" + ("*" if r < 0.8 else " "))
                pick = list(jf._cache.values())[-1].backend   # the last size's backend
                if r < 0.8 and n >= 10 ** 5:
                    slow.append((k, n, r))
            except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
                cells.append(type(e).__name__[:10])
        print(f"{k:24s}" + "".join(f" {c:>10s}" for c in cells) + f"  {pick}", flush=True)
    others = sorted(set(REGISTRY) - {k.split("+")[0] for k in calls})
    print("\nno NumPy spelling in this table (loops, refs, checks, decompositions):",
          ", ".join(others))
    if slow:
        print("\nslower than NumPy by more than 20% at n >= 1e5:")
        for k, n, r in slow:
            print(f"  {k:24s} n={n:.0e} {r:5.2f}  {KNOWN_SLOW.get(k, 'not yet explained')}")


if __name__ == "__main__":
    sys.exit(main())
