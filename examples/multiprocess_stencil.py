"""Run one unmodified NumPy stencil on several processes through JAX's multi-process runtime.

The same script runs once per process; every process calls ``jax.distributed.initialize``
with the coordinator's address, the number of processes and its own id, and then sees the
devices of all processes in ``jax.devices()``. ``solvent.jit(..., mesh=...)`` lays the
mesh over all of them: XLA's SPMD partitioner splits the grid by rows, each process holds
and updates its own rows, and the halo rows travel between processes as
collective-permutes (over gloo on CPU). Results come back gathered into NumPy on every
process.

On one machine (what the test does):

    python examples/multiprocess_stencil.py --process-id 0 --num-processes 2 --port 23456 &
    python examples/multiprocess_stencil.py --process-id 1 --num-processes 2 --port 23456

On a cluster, give ``--coordinator HOST`` (process 0's host) and start one process per host
(or per GPU). Every wait is bounded: ``--timeout`` seconds for the processes to find each
other, and JAX's heartbeat for a process that dies later, so a failed process makes the
others stop with an error instead of hanging.

Prints one line ``RESULT <checksum> <max difference from NumPy>`` and exits 0 when the
sharded run matches NumPy.
"""
from __future__ import annotations

import argparse
import os
import sys


def kernel(TSTEPS, A, B):  # jacobi_2d from solvent.corpus, unchanged
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1]
                               + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1]
                               + B[:-2, 1:-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--process-id", type=int, required=True)
    p.add_argument("--num-processes", type=int, default=2)
    p.add_argument("--coordinator", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--devices-per-process", type=int, default=2,
                   help="simulated CPU devices per process")
    p.add_argument("--n", type=int, default=64, help="grid size (n x n)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--timeout", type=int, default=30,
                   help="seconds to wait for the other processes at start-up")
    p.add_argument("--fail", choices=("before-join", "after-join"),
                   help="(for tests) exit with an error before or after joining the others")
    a = p.parse_args(argv)
    if a.fail == "before-join":
        print(f"process {a.process_id}: failing on purpose (--fail)", file=sys.stderr)
        return 3

    # before jax starts: CPU devices of this process, and CPU collectives across processes
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               f" --xla_force_host_platform_device_count="
                               f"{a.devices_per_process}").strip()
    import jax
    import numpy as np
    from jax.sharding import PartitionSpec as P

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    # A process that never joins, or dies later (its heartbeats stop), makes JAX end the
    # others: a Python error, or a fatal "JAX distributed service detected fatal errors"
    # message from JAX's runtime that aborts the process, within about --timeout seconds.
    print(f"process {a.process_id}: joining {a.num_processes} processes at "
          f"{a.coordinator}:{a.port} (waiting at most {a.timeout} s)", file=sys.stderr,
          flush=True)
    try:
        jax.distributed.initialize(
            coordinator_address=f"{a.coordinator}:{a.port}", num_processes=a.num_processes,
            process_id=a.process_id, initialization_timeout=a.timeout,
            heartbeat_timeout_seconds=max(10, a.timeout), shutdown_timeout_seconds=a.timeout)
    except Exception as e:  # noqa: BLE001 -- any start-up failure ends this process clearly
        print(f"process {a.process_id}: could not join the {a.num_processes} processes at "
              f"{a.coordinator}:{a.port} within {a.timeout} s (another process failed or "
              f"never started): {type(e).__name__}: {e}", file=sys.stderr)
        return 2

    if a.fail == "after-join":
        print(f"process {a.process_id}: failing on purpose after joining (--fail)",
              file=sys.stderr)
        os._exit(3)  # no shutdown: as if the process crashed

    import solvent

    n_dev = len(jax.devices())
    print(f"process {jax.process_index()} of {jax.process_count()}: {n_dev} devices, "
          f"{jax.local_device_count()} local", file=sys.stderr)
    rng = np.random.default_rng(0)  # every process builds the same arguments
    A, B = rng.random((a.n, a.n)), rng.random((a.n, a.n))
    expA, expB = A.copy(), B.copy()
    kernel(a.steps, expA, expB)

    step = solvent.jit(kernel, mesh={"x": n_dev}, in_specs={"A": P("x"), "B": P("x")})
    step(a.steps, A, B)  # A and B are written back, gathered from every process
    diff = max(float(np.abs(A - expA).max()), float(np.abs(B - expB).max()))
    print(f"RESULT {float(A.sum() + B.sum()):.12e} {diff:.3e}", flush=True)
    jax.distributed.shutdown()
    return 0 if diff <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
