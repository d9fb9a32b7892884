#!/usr/bin/env python
"""Weak scaling of a sharded stencil on simulated CPU devices, and its collectives.

Usage::

    python benchmarks/sharding_scaling.py [--rows-per-device 256] [--cols 1024]
                                          [--steps 20] [--repeat 7] [--devices 1,2,4,8]

The script sets ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` itself (before jax
starts). The per-device block is fixed (``rows-per-device x cols``); ``d`` devices get a
``(d * rows-per-device) x cols`` grid split by rows (mesh ``{"x": d}``) and by rows and
columns (a 2-D mesh, for d >= 4). For each ``d`` it reports

* the median time of ``solvent.jit(jacobi_2d.kernel, mesh=..., in_specs=...)`` on NumPy
  arguments (scatter, ``steps`` time steps, gather and write-back), and of the same
  partitioned program on arguments already on the devices (``jax.Array``s);
* both as a ratio to 1 device. Simulated devices are threads of one process sharing this
  machine's cores (2 on the development machine), so the ratio is what the numbers mean:
  ideal weak scaling is 1.0 with d real devices; here d devices share the cores and the
  ratio grows about like d / cores once d exceeds the cores;
* the time of the same grid unsharded (plain ``solvent.jit``, one device), for scale;
* the collectives of one time step (two half-sweeps) in the partitioned HLO of a
  one-step function (the ``while`` body of the time loop holds the same).

Measured 2026-11-23 on the 2-core development machine while 7 other jobs shared it (so
ratios vary by 2x between runs), jax 0.10.2, ``--repeat 3 --steps 10 --rows-per-device 128
--cols 512``, medians in ms; the last two columns turn the halo-shift pass off
(``passes={"halo_shifts": {"enabled": False}}``):

| devices | split | grid | call ms | ratio | on-device ms | ratio | same grid, 1 device | collectives per step | call ms, pass off | collectives per step, pass off |
|---|---|---|---|---|---|---|---|---|---|---|
| 1 | rows | 128x512 | 2.3 | 1.00 | 4.6 | 1.00 | 9.4 | none | 7.6 | none |
| 2 | rows | 256x512 | 7.2 | 3.07 | 9.2 | 1.99 | 2.9 | collective-permute 4 | 11.6 | collective-permute 4 |
| 4 | rows | 512x512 | 32.8 | 14.08 | 43.2 | 9.33 | 44.3 | collective-permute 4 | 165.9 | collective-permute 10 |
| 4 | rows+cols | 512x512 | 38.6 | 16.56 | 73.6 | 15.89 | 18.9 | collective-permute 8 | 100.9 | collective-permute 8 |
| 8 | rows | 1024x512 | 27.3 | 11.72 | 20.9 | 4.50 | 23.4 | collective-permute 4 | 132.0 | collective-permute 10 |
| 8 | rows+cols | 1024x512 | 79.5 | 34.14 | 67.3 | 14.52 | 7.1 | collective-permute 8 | 442.9 | collective-permute 14 |

Read as ratios only: simulated devices are threads that meet at every collective, and on 2
busy cores each collective-permute costs a rendezvous, so the sharded runs are slower than
one device on the same grid. This says nothing about real devices; it shows that the
partitioned program runs and how many exchanges a step needs. With the halo-shift pass
(passes/halo_shifts.py: stencil slices become full-size shifted arrays, a ``tensor.pad`` of
a slice, and a masked select) every layout needs the minimum, one halo each way per sharded
dimension and half-sweep (4 for rows, 8 for rows+cols); without it XLA adds permutes that
realign the shifted slices (10 for rows, 14 for rows+cols on 8 devices), and the calls take
3-5x longer on 4 and 8 devices.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                               + " --xla_force_host_platform_device_count=8").strip()
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import solvent  # noqa: E402
from solvent.backends.xla_sharded import count_collectives  # noqa: E402
from solvent.corpus import jacobi_2d  # noqa: E402


def one_step(A, B):
    B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1]
                           + A[:-2, 1:-1])
    A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1]
                           + B[:-2, 1:-1])


def median_time(call, repeat):
    call()  # compile + warm up
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def collectives(mesh, spec, A, B, passes):
    """The collectives of one time step in the partitioned HLO."""
    sc = solvent.jit(one_step, mesh=mesh, in_specs=spec, passes=passes).compile((A, B))
    counts = count_collectives(sc.executable.compiled(A, B).as_text())
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v) or "none"


def layouts(d):
    yield "rows", {"x": d}, P("x")
    if d >= 4:
        yield "rows+cols", {"x": d // 2, "y": 2}, P("x", "y")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--rows-per-device", type=int, default=256)
    p.add_argument("--cols", type=int, default=1024)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--devices", default="1,2,4,8")
    a = p.parse_args(argv)
    print(f"# jax {jax.__version__}, {len(jax.devices())} simulated {jax.default_backend()} "
          f"devices on {os.cpu_count()} cores; block per device {a.rows_per_device} x "
          f"{a.cols} float64, {a.steps} time steps of jacobi_2d")
    print("| devices | split | grid | call ms | ratio | on-device ms | ratio | "
          "same grid, 1 device, ms | collectives per time step | call ms, halo_shifts off | "
          "collectives per step, halo_shifts off |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = {}
    for d in [int(x) for x in a.devices.split(",")]:
        for split, mesh, spec in layouts(d):
            rows, cols = d * a.rows_per_device, a.cols
            rng = np.random.default_rng(0)
            A, B = rng.random((rows, cols)), rng.random((rows, cols))
            jf = solvent.jit(jacobi_2d.kernel, mesh=mesh, in_specs={"A": spec, "B": spec})
            args = (a.steps, A.copy(), B.copy())
            t_call = median_time(lambda: jf(*args), a.repeat)
            c = jf.compile(args)
            exe = c.executable
            ins = exe.shardings[0]
            with jax.enable_x64(True):  # float64 stays float64 on the devices
                dev_args = [jax.device_put(np.asarray(args[i]), s)
                            for i, s in zip(c.translation.arg_map, ins)]

            def on_device():
                with jax.enable_x64(True):
                    jax.block_until_ready(exe._jitted(*dev_args))
            t_dev = median_time(on_device, a.repeat)
            plain = solvent.jit(jacobi_2d.kernel)
            t_one = median_time(lambda: plain(*args), a.repeat)
            off = {"halo_shifts": {"enabled": False}}
            jf_off = solvent.jit(jacobi_2d.kernel, mesh=mesh, in_specs={"A": spec, "B": spec},
                                 passes=off)
            t_off = median_time(lambda: jf_off(*args), a.repeat)
            coll, coll_off = (collectives(mesh, spec, A, B, opts) for opts in (None, off))
            if d == 1:
                base = {"call": t_call, "dev": t_dev}
            print(f"| {d} | {split} | {rows}x{cols} | {t_call * 1e3:.1f} | "
                  f"{t_call / base['call']:.2f} | {t_dev * 1e3:.1f} | "
                  f"{t_dev / base['dev']:.2f} | {t_one * 1e3:.1f} | {coll} | "
                  f"{t_off * 1e3:.1f} | {coll_off} |", flush=True)


if __name__ == "__main__":
    main()
