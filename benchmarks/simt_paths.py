"""Barrier lowering on the IR vs on the AST, per corpus_simt kernel, in one process: the
same kernel lowered both ways (solvent.simt.launch.lower with on_ir True/False; the IR side
also takes coalesce.py's threads-innermost form, ``coalesced_on_ir``), run alternately after
a warm-up, best CPU time of each. Pin the pool with SOLVENT_NUM_THREADS=1 to compare the
generated code alone.

    SOLVENT_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/simt_paths.py \\
        matmul_tiled,backprop_layer 512 [rounds]
"""
import sys
import time

import numpy as np

from solvent.corpus_simt import all_cases
from solvent.simt.launch import launch_config, lower


def main():
    names, n = sys.argv[1].split(","), int(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    cases = {c.name: c for c in all_cases()}
    for name in names:
        c = cases[name]
        args = list(c.make_args(n, np.random.default_rng(0)))
        cfg = launch_config(c.config(n))
        py = getattr(c.kernel, "py_func", c.kernel)
        sides = {}
        for label, on_ir in (("IR", True), ("AST", False)):
            low = lower(py, cfg, args, on_ir=on_ir, coalesced_on_ir=on_ir)
            sides[label] = (low.jit, low.path)
            low.jit(*args)
        best = dict.fromkeys(sides, float("inf"))
        for _ in range(rounds):
            for label, (jf, _) in sides.items():
                t = time.process_time()
                jf(*args)
                best[label] = min(best[label], time.process_time() - t)
        ir_path = sides["IR"][1]
        print(f"{name} {n}: IR {best['IR'] * 1e3:8.2f} ms  AST {best['AST'] * 1e3:8.2f} ms  "
              f"AST/IR {best['AST'] / best['IR']:.2f}"
              + ("" if ir_path.startswith("IR") else f"  (IR side: {ir_path})"))


if __name__ == "__main__":
    main()
