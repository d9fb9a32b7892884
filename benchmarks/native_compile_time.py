#!/usr/bin/env python
"""Native backend: compile time and run time with LLVM's optimization pipeline off (O0)
and on (O2, O3), per corpus kernel.

Usage::

    python benchmarks/native_compile_time.py [--kernels a,b] [--repeat N]

Compile time is split as the backend measures it: lowering to LLVM IR, LLVM's optimization
pipeline, machine-code generation (MCJIT). Run time is the median of N calls of the
compiled executable on fresh copies of the ``BENCH_SIZE`` arguments.
"""
import argparse
import copy
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import solvent  # noqa: E402
from solvent.backends.native import NativeBackend  # noqa: E402
from solvent.corpus import get  # noqa: E402

DEFAULT = "seidel_2d,floyd_warshall,prefix_sum,gcd_pairs,find_first,mandelbrot_scalar"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kernels", default=DEFAULT)
    p.add_argument("--repeat", type=int, default=5)
    opts = p.parse_args()
    print("| kernel | opt | lower ms | optimize ms | codegen ms | run ms |")
    print("|---|---|---|---|---|---|")
    for name in opts.kernels.split(","):
        k = get(name)
        args = k.make_args(k.bench_size, np.random.default_rng(0))
        c = solvent.jit(k.func).compile(args)
        ir_args = [args[i] for i in c.translation.arg_map]
        for level in (0, 2, 3):
            exe = NativeBackend(level).compile(c.fn)
            times = []
            for _ in range(opts.repeat):
                a = copy.deepcopy(ir_args)
                t0 = time.perf_counter()
                exe(*a)
                times.append(time.perf_counter() - t0)
            s = exe.seconds
            print(f"| {name} | O{level} | {s['lower'] * 1e3:.1f} | {s['optimize'] * 1e3:.1f} | "
                  f"{s['codegen'] * 1e3:.1f} | {statistics.median(times) * 1e3:.3f} |")


if __name__ == "__main__":
    main()
