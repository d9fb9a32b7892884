"""Command line: ``solvent demo`` and ``solvent explain FILE:FUNC``."""
from __future__ import annotations

import argparse
import copy
import importlib.util
import statistics
import sys
import time

import numpy as np

DEMO_KERNELS = ("heat_2d_slices", "jacobi_2d", "fdtd_2d", "gemm", "softmax", "nbody")


def _copy(args):
    return tuple(copy.deepcopy(a) for a in args)


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if a is None or b is None:
        return a is b
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind in "fc":
        return bool(np.allclose(x, y, rtol=1e-6, atol=1e-9, equal_nan=True))
    return bool(np.array_equal(x, y))


def _time(fn, args, repeat):
    times = []
    for _ in range(repeat):
        a = _copy(args)
        t0 = time.perf_counter()
        fn(*a)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def demo(argv=None) -> int:
    import solvent
    from solvent.corpus import get

    p = argparse.ArgumentParser(prog="solvent demo", description="Run bundled kernels through "
                                "solvent, check them against NumPy and time both.")
    p.add_argument("--kernels", default=",".join(DEMO_KERNELS))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--scale", type=float, default=0.5,
                   help="fraction of each kernel's benchmark size (default 0.5)")
    ns = p.parse_args(argv)
    print(f"{'kernel':16s} {'matches':>8s} {'numpy ms':>9s} {'solvent ms':>11s} "
          f"{'speedup':>8s} {'first call s':>13s}")
    bad = 0
    for name in ns.kernels.split(","):
        k = get(name)
        n = max(k.sizes[-1], int(k.bench_size * ns.scale))
        args = k.make_args(n, np.random.default_rng(0))
        ref_args, sol_args = _copy(args), _copy(args)
        expected = k.func(*ref_args)
        f = solvent.jit(k.func)
        t0 = time.perf_counter()
        actual = f(*sol_args)
        first = time.perf_counter() - t0
        ok = _same(expected, actual) and all(
            _same(e, a) for e, a in zip(ref_args, sol_args) if isinstance(e, np.ndarray))
        bad += not ok
        t_np = _time(k.func, args, ns.repeat)
        t_sv = _time(f, args, ns.repeat)
        print(f"{name:16s} {'yes' if ok else 'NO':>8s} {t_np * 1e3:9.2f} {t_sv * 1e3:11.2f} "
              f"{t_np / t_sv:7.2f}x {first:13.2f}")
    print("\nspeedup = NumPy time / solvent time (steady state, median of "
          f"{ns.repeat}); first call includes compilation.")
    return 1 if bad else 0


def _load(path: str):
    spec = importlib.util.spec_from_file_location("_solvent_explain_target", path)
    if spec is None:
        raise SystemExit(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def explain(argv=None) -> int:
    import solvent

    p = argparse.ArgumentParser(prog="solvent explain", description="Print the IR after every "
                                "stage and the chosen backend for one call of FILE:FUNC.")
    p.add_argument("target", help="path/to/file.py:function")
    p.add_argument("--args", help="Python expression for the call's arguments, with numpy "
                   "as np, e.g. \"10, np.ones((8, 8)), np.ones((8, 8))\"")
    p.add_argument("--size", type=int, default=None,
                   help="if the file defines make_args(n, rng), the problem size n")
    ns = p.parse_args(argv)
    path, _, func = ns.target.rpartition(":")
    if not path:
        raise SystemExit("target must be FILE:FUNC")
    mod = _load(path)
    fn = getattr(mod, func)
    if ns.args is not None:
        args = eval(ns.args, {"np": np, "numpy": np})  # noqa: S307 (a developer's own CLI input)
        args = args if isinstance(args, tuple) else (args,)
    elif hasattr(mod, "make_args"):
        size = ns.size or getattr(mod, "SIZES", (16,))[0]
        args = mod.make_args(size, np.random.default_rng(0))
    else:
        raise SystemExit("give the call's arguments with --args (or define make_args(n, rng))")
    solvent.explain(fn, *args)
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: solvent {demo,explain,coverage} ...\n  demo      run bundled kernels vs "
              "NumPy\n  explain   print the IR stages of FILE:FUNC\n"
              "  coverage  print what solvent compiles (the generated docs/COVERAGE.md)")
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "demo":
        return demo(rest)
    if cmd == "explain":
        return explain(rest)
    if cmd == "coverage":
        from .coverage import generate
        print(generate(), end="")
        return 0
    print(f"unknown command {cmd!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
