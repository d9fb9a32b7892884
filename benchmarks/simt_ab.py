"""One corpus_simt kernel under two source trees (e.g. main's checkout and a branch), in
alternating subprocesses on the same host: best CPU time and wall time of a few launches
after a warm-up. CPU time is the steadier figure on a loaded host; pin the pool with
SOLVENT_NUM_THREADS=1 to compare the generated code alone.

    SOLVENT_NUM_THREADS=1 python benchmarks/simt_ab.py matmul_tiled 1024 /work/main .
"""
import json
import os
import subprocess
import sys

CODE = r'''
import json, sys, time
import numpy as np, solvent
from solvent.corpus_simt import all_cases
name, n = sys.argv[1], int(sys.argv[2])
c = [c for c in all_cases() if c.name == name][0]
args = list(c.make_args(n, np.random.default_rng(0)))
grid, block = c.config(n)
launch = solvent.kernel(c.kernel)[grid, block]
run = (lambda: c.launch(launch, args)) if c.launch else (lambda: launch(*args))
run()
cpu, wall = [], []
for _ in range(int(sys.argv[3])):
    t, t2 = time.process_time(), time.perf_counter()
    run()
    cpu.append(time.process_time() - t)
    wall.append(time.perf_counter() - t2)
print(json.dumps([min(cpu) * 1e3, min(wall) * 1e3]))
'''


def main():
    name, size, trees = sys.argv[1], sys.argv[2], sys.argv[3:]
    for _ in range(2):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(tree), OPENBLAS_NUM_THREADS="1")
            out = subprocess.run([sys.executable, "-c", CODE, name, size, "10"], env=env,
                                 capture_output=True, text=True, cwd="/")
            if out.returncode:
                print(tree, out.stderr[-2000:])
                continue
            cpu, wall = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{tree:24} {name} {size}: cpu {cpu:9.1f} ms  wall {wall:9.1f} ms")


if __name__ == "__main__":
    main()
