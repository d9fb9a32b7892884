#!/usr/bin/env python
"""Resident memory after compiling one function for many shapes, bounded vs unbounded cache.

Usage: python benchmarks/cache_rss.py [--shapes 300] [--bound 64]

Each run is a fresh process per side (so one side's freed memory cannot hide the other's
growth); prints RSS in MiB before the first compilation and after the last, per side.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import gc, json, resource, sys
import numpy as np, solvent

def rss_mib():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20

def step(A, B):
    B[1:-1] = 0.5 * (A[:-2] + A[2:]) + np.sin(A[1:-1])
    return B.sum()

shapes, bound = int(sys.argv[1]), int(sys.argv[2])
f = solvent.jit(step, max_versions=bound)
f(np.ones(3), np.ones(3)); gc.collect()
before = rss_mib()
for n in range(4, 4 + shapes):
    f(np.ones(n), np.ones(n))
gc.collect()
print(json.dumps({"before": before, "after": rss_mib(), "versions": len(f._cache)}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", type=int, default=300)
    ap.add_argument("--bound", type=int, default=64)
    a = ap.parse_args()
    print(f"{'cache bound':>12} {'versions':>9} {'RSS before':>11} {'RSS after':>10} {'growth':>8}")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(CHILD)   # solvent reads the kernel's source, so it must live in a file
    try:
        for bound in (a.bound, 10**9):
            _side(fh.name, a.shapes, bound)
    finally:
        os.unlink(fh.name)


def _side(path, shapes, bound):
    out = subprocess.run([sys.executable, path, str(shapes), str(bound)],
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    label = str(bound) if bound < 10**9 else "unbounded"
    print(f"{label:>12} {r['versions']:>9} {r['before']:>9.0f}Mi {r['after']:>8.0f}Mi "
          f"{r['after'] - r['before']:>6.0f}Mi")


if __name__ == "__main__":
    main()
