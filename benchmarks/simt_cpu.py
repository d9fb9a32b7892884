"""benchmarks/simt.py's comparison in CPU time, for a shared machine where wall time is noise.

    PYTHONPATH=. python benchmarks/simt_cpu.py SIZE [kernel,kernel,...] [POOL_THREADS]

Per kernel of solvent/corpus_simt: solvent (native; the pool at POOL_THREADS, default 1, so
that CPU time compares one core with NumPy's one core) vs the plain NumPy implementation,
each the best of 5 batches of CPU time per run in one process, and the count of kernels
where solvent used less. NumPy calls that use more threads (BLAS in matmul_tiled) are
charged all their threads' CPU time, spinning included: compare those by wall time
(benchmarks/simt.py)."""
import sys, time, numpy as np
import solvent
from solvent.backends.native import threads
from solvent.corpus_simt import all_cases
size = int(sys.argv[1]); only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 and sys.argv[2] else None
threads.configure(threads=int(sys.argv[3]) if len(sys.argv) > 3 else 1)
wins = total = 0
for c in all_cases():
    if only and c.name not in only: continue
    grid, block = c.config(size)
    launch = solvent.kernel(c.kernel)[grid, block]
    run = c.launch or (lambda k, xs: k(*xs))
    args = list(c.make_args(size, np.random.default_rng(0)))
    run(launch, args)
    got = list(c.make_args(size, np.random.default_rng(0))); run(launch, got)
    ref = list(c.make_args(size, np.random.default_rng(0))); c.numpy(*ref)
    ok = all(np.allclose(got[i], ref[i], rtol=max(c.rtol, 1e-9), atol=1e-12) for i in c.outputs)
    def best(f, n):
        out = []
        for _ in range(5):
            p = time.process_time()
            for _ in range(n): f()
            out.append((time.process_time() - p) / n)
        return min(out)
    t1 = time.process_time(); run(launch, args); one = time.process_time() - t1
    n = max(1, min(200, int(0.05 / max(one, 1e-6))))
    ts = best(lambda: run(launch, args), n)
    tn = best(lambda: c.numpy(*ref), n)
    total += 1; wins += ts < tn
    print(f"{c.name:18} solvent {ts*1e3:9.3f} ms  numpy {tn*1e3:9.3f} ms  np/solv {tn/ts:6.2f}  {'ok' if ok else 'WRONG'}", flush=True)
print(f"faster than NumPy (CPU time): {wins} of {total}")
