"""A loop whose body changes a carried array only through an inner loop of slot writes
(knapsack's ``best[i + 1, c] = ...`` per item) records the inner loop's slot tape in its own
tape; its reverse step hands that tape to the inner loop's reverse pass and starts it from
the array as the trip left it, instead of undoing the inner writes and running the inner
loop again to record the same tape (``Transformer._record_trip``, ``emit_block``'s
``preset``). Checked against central finite differences and the dot-product test, and on
the gradient program: one inner loop per reverse step. Variants: the inner loop also sums a
float read after it, and the outer body reads the array before the inner loop (the undo is
then kept)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402


def dp(vals, cost, wts):
    """A knapsack-like table: row i + 1 from row i, one slot per inner trip (a read at a
    data-dependent column keeps the inner loop a loop)."""
    n, m = vals.shape[0], cost.shape[0]
    best = np.zeros((n + 1, m))
    for i in range(n):
        for c in range(m):
            best[i + 1, c] = best[i, c]
            if wts[i] <= c:
                best[i + 1, c] = max(best[i, c], best[i, c - wts[i]] * cost[c] + vals[i])
    return best[n, m - 1] + np.sum(best[:, 3])


def dp_with_sum(vals, cost, wts):
    """The inner loop also sums a float the outer trip reads after it."""
    n, m = vals.shape[0], cost.shape[0]
    best = np.zeros((n + 1, m))
    tot = 0.0
    for i in range(n):
        s = 0.0
        for c in range(m):
            best[i + 1, c] = np.sin(best[i, (c + wts[i]) % m]) + vals[i] * cost[c]
            s += best[i, c] * cost[c]
        tot += s * vals[i]
    return tot + np.sum(best[n])


def dp_read_before(vals, cost, wts):
    """The outer trip reads the array before the inner loop writes it."""
    n, m = vals.shape[0], cost.shape[0]
    best = np.zeros((n + 1, m))
    for i in range(n):
        h = best[i, 0] * vals[i]
        for c in range(m):
            best[i + 1, c] = np.cos(best[i, (c + wts[i]) % m]) * cost[c] + h
    return np.sum(best * best)


def _loops(fn) -> int:
    return sum(op.name == "loop.for" for op in fn.walk())


@pytest.mark.parametrize("f, n, backend", [
    (dp, 1, "interp"), (dp, 7, "interp"), (dp, 7, "native"), (dp_with_sum, 7, "interp"),
    (dp_read_before, 7, "interp")])
def test_nested_slot_writes(f, n, backend):
    rng = np.random.default_rng(n)
    vals, cost = rng.random(n) + 0.5, rng.random(16) + 0.5   # a tape of 16 slots < (n+1) x 16 at n = 7
    args = (vals, cost, rng.integers(1, 5, n))
    gf = solvent.grad(f, (0, 1), backend=backend)
    gs = gf(*args)
    for k, g in enumerate(gs):
        np.testing.assert_allclose(g, fd_grad(f, args, k), rtol=1e-6, atol=1e-7)
    vs = [rng.standard_normal(a.shape) for a in args[:2]]
    jv = directional(f, args, [0, 1], vs)
    assert rel_close(jv, sum(float(v @ g) for v, g in zip(vs, gs)), 1e-6, floor=1e-8)
    if f is dp and n == 7:
        # forward: the item loop and its slot loop; reverse: the item loop and one slot
        # loop per step (neither an undo loop nor a second recording of the slot loop)
        assert _loops(gf.compiled(*args).fn) == 4
