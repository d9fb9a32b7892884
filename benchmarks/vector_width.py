#!/usr/bin/env python
"""A/B benchmark of XLA:CPU's preferred vector width on the corpus kernels.

Usage::

    python benchmarks/vector_width.py [--widths default,512] [--kernels a,b] [--repeat N]

Each kernel is compiled by ``solvent.jit`` once per width (``SOLVENT_XLA_VECTOR_WIDTH``, read
when the kernel compiles; ``default`` is XLA's own choice, 256 bits on AVX2/AVX-512 hosts),
the compiled versions are checked to agree, and then run alternately on fresh copies of the
bench-size arguments (copies not timed). The table gives the median over ``--repeat`` rounds
of the best of 3 calls, in ms, and the ratio first width / each other width (> 1: the other
width is faster). ``solvent/backends/xla_host.py`` states which width solvent picks and why.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import solvent
from solvent.backends.xla_host import ENV
from solvent.corpus import KERNELS

from bench import copy_args


def _compiled(kernel, width, args):
    saved = os.environ.get(ENV)
    os.environ[ENV] = width
    try:
        f = solvent.jit(kernel)
        out = f(*copy_args(args))
    finally:
        if saved is None:
            del os.environ[ENV]
        else:
            os.environ[ENV] = saved
    return f, out


def _same(a, b):
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b))
    return a is None and b is None or np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--widths", default="default,512")
    p.add_argument("--kernels", default="")
    p.add_argument("--repeat", type=int, default=7)
    a = p.parse_args()
    widths = a.widths.split(",")
    wanted = set(filter(None, a.kernels.split(",")))
    print(f"{'kernel':18s}" + "".join(f"{w + ' ms':>12s}" for w in widths)
          + "".join(f"{widths[0] + '/' + w:>14s}" for w in widths[1:]))
    for k in KERNELS:
        if wanted and k.name not in wanted:
            continue
        args = k.make_args(k.bench_size, np.random.default_rng(0))
        fs = [_compiled(k.func, w, args) for w in widths]
        assert all(_same(fs[0][1], out) for _, out in fs[1:]), f"{k.name}: widths disagree"
        times = [[] for _ in widths]
        for _ in range(a.repeat):
            for (f, _), ts in zip(fs, times):
                best = float("inf")
                for _ in range(3):
                    call = copy_args(args)
                    t0 = time.perf_counter()
                    f(*call)
                    best = min(best, time.perf_counter() - t0)
                ts.append(best)
        med = [statistics.median(ts) * 1e3 for ts in times]
        print(f"{k.name:18s}" + "".join(f"{m:12.3f}" for m in med)
              + "".join(f"{med[0] / m:13.2f}x" for m in med[1:]))


if __name__ == "__main__":
    main()
