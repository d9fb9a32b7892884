"""Long differential fuzzing run: random kernels under NumPy and solvent (xla, interp).

    PYTHONPATH=. .venv/bin/python benchmarks/fuzz.py --count 10000 --seed 0 [--no-save]

Prints programs generated / accepted / refused / excused / mismatches (by class): excused are
``reciprocal-division`` (XLA's documented x/s -> x*(1/s), shown by re-running with
SOLVENT_XLA_EXACT_DIVISION=1) and ``signed-zero`` (NumPy's answer with the other sign on a zero max/min picks among equal
zeros, which NumPy leaves to its SIMD width) and ``ill-conditioned`` (within how far NumPy's own answer moves
under a few-ulp perturbation of the float inputs; tests/fuzz/driver.py). Shrinks every mismatch
to a small reproducer and writes it to tests/fuzz/regressions/test_fuzz_<seed>.py (marked
xfail(strict=True) on the backends that mismatch). Program k of a run uses seed S + k, so
``--seed S+k --count 1`` replays it. One process: the machine is shared.

``--passes JSON`` compiles with those pass options (``'{"raise_loops": {"enabled": false}}'``
keeps loops as loops, so that with SOLVENT_PARALLEL_THRESHOLD=0 the native backend's
parallel lowering runs on every loop it marks parallel).
"""
import argparse
import collections
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fuzz"))

import driver  # noqa: E402
import gen  # noqa: E402
import shrink  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-save", action="store_true", help="do not write reproducers")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--out", default=None, help="folder for reproducers "
                    "(default tests/fuzz/regressions)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--passes", default=None, help="pass options as JSON (see above)")
    a = ap.parse_args(argv)
    if a.passes:
        import differential
        differential.PASSES = json.loads(a.passes)
    counts = collections.Counter()
    classes = collections.Counter()
    t0 = time.time()
    for seed in range(a.seed, a.seed + a.count):
        prog = gen.generate(seed)
        o = driver.run_program(prog)
        counts["generated"] += 1
        counts[o.status] += 1
        if o.status == "mismatch":
            classes[o.cls] += 1
            small = prog if a.no_shrink else shrink.shrink(prog, o.cls)
            o2 = driver.run_program(small)
            print(f"seed {seed}: MISMATCH {o.cls}", flush=True)
            if not a.quiet:
                print(small.render())
                print(o2.detail[:800])
            if not a.no_save:
                print("  saved", shrink.save_regression(small, o2, a.out), flush=True)
        if counts["generated"] % 200 == 0:
            print(f"[{time.time() - t0:.0f}s] {dict(counts)}", flush=True)
    print(f"generated {counts['generated']}  accepted {counts['accepted']}  "
          f"refused {counts['refused']}  reciprocal-division {counts['reciprocal-division']}  "
          f"signed-zero {counts['signed-zero']}  ill-conditioned {counts['ill-conditioned']}  "
          f"mismatches {counts['mismatch']}  "
          f"invalid {counts['invalid']}  ({time.time() - t0:.0f} s)")
    for c, k in classes.most_common():
        print(f"  {k:5d}  {c}")
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
