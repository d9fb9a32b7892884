"""0/1 knapsack by dynamic programming over (weight, value) pairs with zip and Python's max,
written the way it is taught: one table row per item. Category: sequential."""
import numpy as np


def kernel(weights, values, capacity):
    n = len(weights)
    best = np.zeros((n + 1, capacity + 1))
    for i, (wt, val) in enumerate(zip(weights, values)):
        for c in range(capacity + 1):
            best[i + 1, c] = best[i, c]
            if wt <= c:
                best[i + 1, c] = max(best[i, c], best[i, c - wt] + val)
    return best[n, capacity]


def make_args(n, rng):
    return (rng.integers(1, 10, n), rng.random(n) * 10.0, 3 * n)


SIZES = (5, 12)
BENCH_SIZE = 200
JAX_PORT = None
NUMBA_OK = True
