#!/usr/bin/env python
"""Gradient time / primal time per differentiable corpus kernel, and beside ``jax.grad``.

Usage::

    python benchmarks/grad_ratio.py [--kernels a,b] [--size-scale F] [--repeat N]
                                    [--backend xla|interp|native|auto] [--stat median|min]
                                    [--clock wall|cpu]

For each corpus kernel, arguments are built at ``BENCH_SIZE * size-scale`` (rounded, at least
the kernel's largest test size). The loss is a fixed random linear functional of the
outputs (returned float values and the final values of mutated arguments; its weights, the
cotangents, in each output's dtype), differentiated with respect to every float argument.

* primal: ``solvent.jit(kernel)``; on fresh copies made before each call (not timed) when
  the kernel writes into its arguments.
* grad: the ``vjp_fn`` of ``solvent.vjp`` (one program computing outputs and gradients).
  ``ratio`` = grad / primal.
* Each time is the median (or ``--stat min``) of N samples; a sample runs the call enough
  times back to back to last at least 20 ms (calibrated per kernel), and is divided by that
  count, so sub-0.1 ms kernels are not at the mercy of the timer and of one descheduling; primal
  and grad samples alternate, round by round.
* jax.grad: when the kernel names a hand port in ``benchmarks/jax_ports.py``,
  ``jax.jit(jax.grad(loss of the port))`` under float64 with the same functional; median of
  N calls (``block_until_ready``); the functional's weights are arguments of the jitted
  gradient (as the cotangents are of solvent's), so XLA cannot fold them into constants.
  ``jax/solvent`` > 1 means solvent's gradient is faster;
  ``error`` when JAX cannot differentiate the port (a while loop, say).

``--threads N`` (default 1) sets ``OPENBLAS_NUM_THREADS``, ``SOLVENT_NUM_THREADS`` and (for
1) XLA's single-thread flags unless the environment sets them already.

Freed memory is kept in the heap (glibc ``mallopt``) unless ``--no-keep-heap``: fresh output
arrays then do not fault their pages in on every call (see ``_keep_heap``).

``--clock cpu`` times with ``time.process_time`` (CPU time of this process, all threads)
instead of ``time.perf_counter``: less noisy on a shared machine, and fair when BLAS runs one
thread (``OPENBLAS_NUM_THREADS=1``).

Kernels that are not differentiable (integer outputs only, an op without a VJP rule) are
listed with the reason.
"""
import argparse
import copy
import importlib.util
import os
import statistics
import sys
import time



def _threads_from_argv(argv) -> str:
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--threads="):
            return a.split("=", 1)[1]
    return "1"


# One thread everywhere unless --threads says otherwise (set before numpy, solvent and jax
# start their pools): on a shared machine a second thread's spinning and waiting moved the
# CPU time of a call by 30% between runs; the ratio compares the work of two programs.
_THREADS = _threads_from_argv(sys.argv)
if _THREADS != "0":   # 0: leave the environment as it is
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                 "SOLVENT_NUM_THREADS"):
        os.environ.setdefault(_var, _THREADS)
    if _THREADS == "1":
        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                              "intra_op_parallelism_threads=1")



def _keep_heap() -> None:
    """Freed memory stays in the process heap: glibc returns freed blocks of a few MB to the
    kernel (munmap, trim) and the next call's fresh output arrays fault their pages in again,
    the kernel zeroing each (axpby's gradient at n=500: 944 page faults, 3 ms of system time
    against 0.75 ms of work, moving 5x between runs on the shared machine). That cost is the
    allocator's, the same for any program; ``--no-keep-heap`` times it."""
    import ctypes
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:   # not glibc: nothing to set
        return
    m_trim_threshold, m_mmap_threshold = -1, -3   # malloc.h
    libc.mallopt(m_trim_threshold, 1 << 30)
    libc.mallopt(m_mmap_threshold, 1 << 30)


if "--no-keep-heap" not in sys.argv:
    _keep_heap()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import solvent  # noqa: E402
from solvent import corpus  # noqa: E402


def _leaves(x):
    if isinstance(x, tuple):
        return [y for z in x for y in _leaves(z)]
    return [x]


def _rebuild(x, ws):
    if isinstance(x, tuple):
        return tuple(_rebuild(z, ws) for z in x)
    return ws.pop(0)


def _fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


STAT = {"median": statistics.median, "min": min}
_stat = statistics.median
CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = time.perf_counter


TARGET_S = 0.02  # each sample runs enough calls to last at least this long
def _inner_count(fn, prepare):
    """Calls per sample so that a sample lasts >= TARGET_S on the chosen clock (timer
    granularity and dispatch jitter stop dominating sub-0.1 ms kernels)."""
    a = prepare()
    t0 = _clock()
    fn(*a)
    one = max(_clock() - t0, 1e-6)
    k = max(1, int(np.ceil(TARGET_S / one)))
    while True:  # the first call can be slow (caches, page faults): calibrate on k calls
        t = _fresh_calls(fn, prepare, k)
        if t >= TARGET_S or k >= 1 << 20:
            return k
        k = max(k + 1, int(np.ceil(k * TARGET_S * 1.2 / max(t, 1e-9))))


def _fresh_calls(fn, prepare, k):
    """The summed time of ``k`` calls, each on arguments ``prepare`` makes just before it,
    outside the clock."""
    t = 0.0
    for _ in range(k):
        a = prepare()
        t0 = _clock()
        fn(*a)
        t += _clock() - t0
    return t


def _sampler(fn, prepare, per_call=False):
    """One sample: ``inner`` calls (adaptive, see _inner_count), the sample's time divided
    by ``inner``. ``per_call`` (a kernel that writes into its arguments): each call gets
    fresh copies made just before it, outside its clock (so they are as warm in the caches
    as the gradient's arguments), and the calls' times are summed; else one clock around
    ``inner`` calls on the same arguments."""
    inner = _inner_count(fn, prepare)

    def sample():
        if per_call:
            return _fresh_calls(fn, prepare, inner) / inner
        a = prepare()
        t0 = _clock()
        for _ in range(inner):
            fn(*a)
        return (_clock() - t0) / inner
    return sample


def _median_time(fn, repeat, prepare=lambda: ()):
    """_stat (median or min) over ``repeat`` samples of _sampler."""
    sample = _sampler(fn, prepare)
    return _stat([sample() for _ in range(repeat)])


def _interleaved_times(calls, repeat):
    """Like _median_time for several ``(fn, prepare, per_call)``, their samples alternating
    round by round, so a change of the machine's load reaches all of them alike (the ratio
    is what is reported)."""
    samplers = [_sampler(*c) for c in calls]
    ts = [[] for _ in samplers]
    for _ in range(repeat):
        for t, sample in zip(ts, samplers):
            t.append(sample())
    return [_stat(t) for t in ts]


def _jax_ports():
    path = os.path.join(os.path.dirname(__file__), "jax_ports.py")
    spec = importlib.util.spec_from_file_location("jax_ports", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _jax_grad_time(ports, k, args, mutated, ret_ws, mut_ws, wrt, repeat):
    import jax
    import jax.numpy as jnp
    port = ports.get(k.jax_port)
    ws = [w for w in ret_ws if w is not None] + mut_ws
    with jax.enable_x64(True):
        nw = len(wrt)

        def loss(*floats_and_ws):  # the weights are arguments, as solvent's cotangents are:
            floats, wts = floats_and_ws[:nw], floats_and_ws[nw:]  # no constant folding
            full = list(args)
            for i, v in zip(wrt, floats):
                full[i] = v
            outs = port(*full)
            floats_out = [o for o in outs if jnp.issubdtype(jnp.asarray(o).dtype, jnp.floating)]
            if len(floats_out) != len(wts):
                raise ValueError("port outputs do not match the kernel's float outputs")
            return sum(jnp.sum(o * w) for o, w in zip(floats_out, wts))
        g = jax.jit(jax.grad(loss, argnums=tuple(range(nw))))
        fargs = [jnp.asarray(args[i]) for i in wrt] + [jnp.asarray(w) for w in ws]
        jax.block_until_ready(g(*fargs))
        return _median_time(lambda *a: jax.block_until_ready(g(*a)), repeat,
                            lambda: fargs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kernels", default="")
    p.add_argument("--no-keep-heap", action="store_true",
                   help="time the page faults of fresh output arrays too (see _keep_heap)")
    p.add_argument("--threads", default="1", help="threads of BLAS, solvent's native pool "
                   "and XLA (environment variables already set win); 0: the environment's")
    p.add_argument("--size-scale", type=float, default=0.25)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--backend", default="xla", help="xla, interp, native, or auto (each "
                   "program on the backend solvent.jit would choose for it)")
    p.add_argument("--no-jax", action="store_true")
    p.add_argument("--stat", default="median", choices=sorted(STAT),
                   help="of the N calls (min: on a shared, loaded machine)")
    p.add_argument("--clock", default="wall", choices=sorted(CLOCK),
                   help="wall: perf_counter; cpu: process_time (less noisy when shared)")
    opts = p.parse_args()
    global _stat, _clock
    _stat = STAT[opts.stat]
    _clock = CLOCK[opts.clock]
    if opts.backend == "auto":
        opts.backend = None
    names = [n for n in opts.kernels.split(",") if n]
    ports = None if opts.no_jax else _jax_ports()
    rows, refused = [], []
    for k in corpus.vectorized():  # not the loop twins: NumPy would run their loops
        if names and k.name not in names:
            continue
        n = max(int(round(k.bench_size * opts.size_scale)), max(k.sizes))
        args = tuple(k.make_args(n, np.random.default_rng(0)))
        wrt = [i for i, a in enumerate(args) if (isinstance(a, np.ndarray) and a.dtype.kind == "f")
               or isinstance(a, float)]
        if not wrt:
            refused.append((k.name, "no float argument"))
            continue
        try:
            after = _fresh(args)
            ref = k.func(*after)
            mutated = [i for i, (a, b) in enumerate(zip(args, after))
                       if isinstance(a, np.ndarray) and not np.array_equal(a, b)]
            rng = np.random.default_rng(1)
            # the weights in each output's dtype, as a cotangent is (jax.vjp requires it):
            # float64 weights of a float32 output were converted on every vjp_fn call
            ret_ws = [rng.standard_normal(np.shape(x)).astype(np.asarray(x).dtype)
                      if x is not None and np.asarray(x).dtype.kind == "f" else None
                      for x in _leaves(ref)]
            mut_ws = [rng.standard_normal(args[i].shape).astype(args[i].dtype) for i in mutated]
            if not any(w is not None for w in ret_ws) and not mut_ws:
                refused.append((k.name, "no float output"))
                continue
            outs, vjp_fn = solvent.vjp(k.func, *args, argnums=tuple(wrt), backend=opts.backend)
            ct_ret = _rebuild(ref, list(ret_ws))
            ct = (ct_ret, *mut_ws) if mutated else ct_ret
            vjp_fn(ct)
            jf = solvent.jit(k.func, backend=opts.backend)
            jf(*_fresh(args))
            t_primal, t_grad = _interleaved_times(
                [(jf, lambda: _fresh(args), bool(mutated)), (vjp_fn, lambda: (ct,), False)],
                opts.repeat)
        except Exception as e:  # noqa: BLE001 - the report lists why
            refused.append((k.name, f"{type(e).__name__}: {str(e).splitlines()[0][:110]}"))
            continue
        t_jax = None
        if ports is not None and k.jax_port:
            try:
                t_jax = _jax_grad_time(ports, k, args, mutated, ret_ws, mut_ws, wrt,
                                       opts.repeat)
            except Exception as e:  # noqa: BLE001
                t_jax = f"error: {type(e).__name__}"
        rows.append((k.name, n, t_primal, t_grad, t_jax))
        print(f"{k.name:18s} n={n:<7d} primal {t_primal * 1e3:9.3f} ms  grad "
              f"{t_grad * 1e3:9.3f} ms  ratio {t_grad / t_primal:6.2f}  " +
              (f"jax.grad {t_jax * 1e3:9.3f} ms  jax/solvent {t_jax / t_grad:6.2f}"
               if isinstance(t_jax, float) else (t_jax or "jax.grad: no port")), flush=True)
    if rows:
        gm = np.exp(np.mean([np.log(r[3] / r[2]) for r in rows]))
        print(f"\ngeometric mean of grad/primal over {len(rows)} kernels: {gm:.2f}")
        js = [r[4] / r[3] for r in rows if isinstance(r[4], float)]
        if js:
            print(f"geometric mean of jax.grad/solvent grad over {len(js)} kernels: "
                  f"{np.exp(np.mean(np.log(js))):.2f} (> 1: solvent faster)")
    for name, why in refused:
        print(f"not differentiated: {name}: {why}")


if __name__ == "__main__":
    main()
