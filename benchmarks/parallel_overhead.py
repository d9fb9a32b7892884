#!/usr/bin/env python
"""Fork/join overhead of the native backend's thread pool (backends/native/threads.py).

Usage::

    python benchmarks/parallel_overhead.py [--calls N]

Times, side by side in one run, one call of ``solvent_par_for`` on a loop of 1000 empty
iterations through ctypes: run sequentially on the calling thread (threads=1), and forked
onto the pool (threshold 0) with 2 and ``max_threads`` threads. The difference is the
fork/join cost that the threshold (``SOLVENT_PARALLEL_THRESHOLD``, in estimated scalar ops)
has to pay back. Best of 5 rounds of N calls each.
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from solvent.backends.native import threads  # noqa: E402
from solvent.backends.native.engine import Compiled  # noqa: E402

_IR = r"""
declare i64 @solvent_par_for(i64 (i8*, i64, i64, i64, i64, i64*)*, i8*, i64, i64, i64*, i64)
define i64 @empty(i8* %env, i64 %lo, i64 %hi, i64 %c, i64 %tid, i64* %err) {
  ret i64 0
}
define i64 @entry(i8* %env, i64 %n, i64* %err) {
  %r = call i64 @solvent_par_for(i64 (i8*, i64, i64, i64, i64, i64*)* @empty, i8* %env,
                                 i64 %n, i64 1, i64* %err, i64 1)
  ret i64 %r
}
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=20000)
    opts = p.parse_args()
    rt = threads.runtime()
    comp = Compiled(_IR, "entry")
    f = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                         ctypes.c_void_p)(comp.address)
    err = np.zeros(5, np.int64)
    old = threads.settings()
    rows = []
    for label, t in [("sequential (1 thread)", 1), ("pool, 2 threads", 2),
                     (f"pool, {rt.max_threads} threads", rt.max_threads)]:
        threads.configure(threads=t, threshold=0)
        chunks = f(None, 1000, err.ctypes.data)
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(opts.calls):
                f(None, 1000, err.ctypes.data)
            best = min(best, (time.perf_counter() - t0) / opts.calls)
        rows.append((label, chunks, best))
    threads.configure(**old)
    base = rows[0][2]
    print("| run | chunks | us per call | fork/join us |")
    print("|---|---|---|---|")
    for label, chunks, t in rows:
        print(f"| {label} | {chunks} | {t * 1e6:.2f} | {(t - base) * 1e6:.2f} |")
    print(f"\n# cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
