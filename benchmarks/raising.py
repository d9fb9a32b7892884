#!/usr/bin/env python
"""Loop kernels with raising on and off, side by side in one run.

Usage::

    python benchmarks/raising.py [--repeat N] [--backend xla]

For each loop kernel of ``tests/passes/raising/loop_kernels.py`` at a benchmark size:
NumPy running the loop source (the Python interpreter), solvent with the raising passes
off (``passes={"raise_loops": {"enabled": False}, "raise_contractions": ...}``, loops
lowered as loops) and solvent as it is (loops raised). Median of N calls after a warm-up
call, fresh argument copies per call (not timed). Results are compared with NumPy first.
The ratio column is ``off / on`` (> 1: raising made it faster).
"""
import argparse
import copy
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "passes" / "raising"))
import solvent  # noqa: E402
from native_loops import _run  # noqa: E402  (first call, median of N, fresh copies)
from loop_kernels import (conv1d, heat_2d, jacobi_1d, matmul, matvec,  # noqa: E402
                          softmax_rows)

OFF = {"raise_loops": {"enabled": False}, "raise_contractions": {"enabled": False}}
R = np.random.default_rng(0)
CASES = {
    "matmul 200x200": (matmul, lambda: (R.random((200, 200)), R.random((200, 200)),
                                        np.zeros((200, 200)))),
    "matvec 1000x1000": (matvec, lambda: (R.random((1000, 1000)), R.random(1000),
                                          np.zeros(1000))),
    "jacobi_1d 10 steps x 10000": (jacobi_1d, lambda: (10, R.random(10000), R.random(10000))),
    "heat_2d 10 steps x 200x200": (heat_2d, lambda: (10, R.random((200, 200)),
                                                     R.random((200, 200)))),
    "conv1d 10000, 16 taps": (conv1d, lambda: (R.random(10015), R.random(16), np.zeros(10000))),
    "softmax_rows 300x300": (softmax_rows, lambda: (R.random((300, 300)),
                                                    np.zeros((300, 300)))),
}


def _time(f, args, repeat):
    """Median steady-state seconds (the first call, compile included, is left out)."""
    return _run(f, args, repeat)[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--backend", default="xla")
    ap.add_argument("--python", action="store_true", help="also time the plain Python loops")
    opts = ap.parse_args()
    print(f"{'kernel':30s} {'python':>10s} {'solvent off':>12s} {'solvent on':>11s} "
          f"{'off/on':>7s}")
    for name, (fn, make) in CASES.items():
        args = make()
        ref = copy.deepcopy(args)
        fn(*ref)
        off = solvent.jit(fn, backend=opts.backend, passes=OFF)
        on = solvent.jit(fn, backend=opts.backend)
        for f in (off, on):
            got = copy.deepcopy(args)
            f(*got)
            assert all(np.allclose(a, b) for a, b in zip(ref, got)
                       if isinstance(a, np.ndarray)), f"{name}: MISMATCH"
        py = _time(fn, args, 1) if opts.python else float("nan")
        t_off = _time(off, args, opts.repeat)
        t_on = _time(on, args, opts.repeat)
        print(f"{name:30s} {py * 1e3:9.2f}ms {t_off * 1e3:10.2f}ms {t_on * 1e3:9.3f}ms "
              f"{t_off / t_on:7.1f}")


if __name__ == "__main__":
    main()
