#!/usr/bin/env python
"""Plain-JAX loops that update an array in place while reading it, compiled by XLA:CPU with
its default copy insertion and with the region-based analysis solvent asks for
(``xla_cpu_copy_insertion_use_region_analysis``, solvent/backends/xla_host.py), side by side.

Usage::

    python benchmarks/loop_copies.py [--sizes 8192,32768] [--repeat 3]

Per loop formulation and size: the array copies XLA leaves in the while body (one list entry
per while op) and the best-of-N time of each side, and default/region (> 1: the region
analysis is faster). A body with an array copy is quadratic in the size. The forward loops
(``s += x[k]; x[k] = ...``) keep their copies under every formulation with XLA's default and
lose them with the region analysis. The reverse loops are the shape of a gradient's reverse
sweep over ``x[k] = a * x[k-1]``: in the order solvent's VJP emits (read g = ct[k], zero
ct[k], add into ct[k-1], add into ct[k]) XLA copies ``ct`` either way; adding into ct[k-1]
before writing ct[k] (whose new value does not read the old one) needs no copy with the
region analysis.
"""
import argparse
import re
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

REGION = {"xla_cpu_copy_insertion_use_region_analysis": True}


def _fori(body, init, n):
    return lax.fori_loop(0, n, body, init)


def base(x):
    def body(k, c):
        s, x = c
        return s + x[k], x.at[k].set(x[k] * 2.0)
    return _fori(body, (jnp.float64(0), x), x.shape[0])


def read_once(x):
    def body(k, c):
        s, x = c
        v = lax.dynamic_index_in_dim(x, k, keepdims=False)
        return s + v, lax.dynamic_update_index_in_dim(x, v * 2.0, k, 0)
    return _fori(body, (jnp.float64(0), x), x.shape[0])


def barrier(x):
    def body(k, c):
        s, x = c
        v = lax.dynamic_index_in_dim(x, k, keepdims=False)
        s2, v, x = lax.optimization_barrier((s + v, v, x))
        return s2, lax.dynamic_update_index_in_dim(x, v * 2.0, k, 0)
    return _fori(body, (jnp.float64(0), x), x.shape[0])


def scan(x):
    def body(c, k):
        s, x = c
        v = x[k]
        return (s + v, x.at[k].set(v * 2.0)), None
    return lax.scan(body, (jnp.float64(0), x), jnp.arange(x.shape[0]))[0]


def while_loop(x):
    n = x.shape[0]

    def body(c):
        k, s, x = c
        v = lax.dynamic_index_in_dim(x, k, keepdims=False)
        return k + 1, s + v, lax.dynamic_update_index_in_dim(x, v * 2.0, k, 0)
    return lax.while_loop(lambda c: c[0] < n, body, (0, jnp.float64(0), x))[1:]


def cond_reads(x):
    """What solvent's XLA lowering emits (solvent/backends/xla_ordered_reads.py): the read in
    a lax.cond that passes on a token, the update's index through another; the other branch
    is never taken (the token is the counter, never negative) and differs so XLA keeps it."""
    def body(k, c):
        s, x = c
        v, tok = lax.cond(k >= 0, lambda x, t: (x[t], t), lambda x, t: (x[t], t - 1), x, k)
        i, _ = lax.cond(tok >= 0, lambda i, t: (i, t), lambda i, t: (i + 1, t - 1), k, tok)
        return s + v, x.at[i].set(v * 2.0)
    return _fori(body, (jnp.float64(0), x), x.shape[0])


def _reverse(accumulate_first):
    """The reverse sweep of ``s += x[k]**2; x[k] = 0.5 * x[k-1]``: the cotangent g of the
    new x[k] goes to x[k-1] (0.5 g), and x[k]'s own cotangent becomes 2 x[k] (from s)."""
    def f(ct):
        n = ct.shape[0]
        xs = jnp.cos(ct)  # the primal values the reverse sweep reads (a tape stand-in)

        def body(i, c):
            ct, acc = c
            k = n - 1 - i
            g = ct[k]
            if accumulate_first:
                ct = ct.at[k - 1].add(0.5 * g).at[k].set(2.0 * xs[k])
            else:
                ct = ct.at[k].set(0.0).at[k - 1].add(0.5 * g)
                ct = ct.at[k].add(2.0 * xs[k])
            return ct, acc + g * xs[k - 1]
        return _fori(body, (ct, jnp.float64(0)), n - 1)
    return f


LOOPS = {
    "forward: s += x[k]; x[k] = 2 x[k]": base,
    "forward: read once (dynamic_index_in_dim)": read_once,
    "forward: optimization_barrier(s, v, x)": barrier,
    "forward: lax.scan": scan,
    "forward: lax.while_loop": while_loop,
    "forward: reads in a cond (solvent's lowering)": cond_reads,
    "reverse: zero ct[k], add into ct[k-1], ct[k]": _reverse(False),
    "reverse: add into ct[k-1], then write ct[k]": _reverse(True),
}


def body_copies(hlo):
    comps = {m.group(1): m.group(2) for m in re.finditer(
        r"^%?([\w.\-]+) \([^\n]*\{\n(.*?)\n\}", hlo, re.S | re.M)}
    copy = re.compile(r"= \w+\[\d[\d,]*\]\S* copy\(")
    return [len(copy.findall(comps[b]))
            for b in re.findall(r"\bwhile\([^\n]*\bbody=%?([\w.\-]+)", hlo)]


def measure(fn, x, options, repeat):
    compiled = jax.jit(fn).lower(x).compile(compiler_options=options)
    jax.block_until_ready(compiled(x))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        jax.block_until_ready(compiled(x))
        best = min(best, time.perf_counter() - t0)
    return body_copies(compiled.as_text()), best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="8192,32768")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    print(f"jax {jax.__version__}, {jax.default_backend()}; copies: array copies per while body")
    print(f"{'loop':44s}{'n':>7s}{'default':>22s}{'region':>22s}{'ratio':>8s}")
    with jax.enable_x64(True):
        for name, fn in LOOPS.items():
            for n in (int(s) for s in a.sizes.split(",")):
                x = jnp.asarray(np.random.default_rng(0).random(n))
                (ca, ta), (cb, tb) = (measure(fn, x, o, a.repeat) for o in ({}, REGION))
                print(f"{name:44s}{n:7d}{str(ca):>8s}{ta * 1e3:11.2f} ms{str(cb):>8s}"
                      f"{tb * 1e3:11.2f} ms{ta / tb:7.1f}x", flush=True)


if __name__ == "__main__":
    main()
