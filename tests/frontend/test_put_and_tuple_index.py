"""np.put (in place, flat indices: negatives from the end, values repeated, the last of
duplicates wins) and indexing by a tuple held in a variable (``x[t]`` is ``x[t[0], t[1]]``,
as in NumPy; it used to be read as one integer-array index, a silent wrong answer),
differentially against NumPy at two sizes with their in-place effects."""
from __future__ import annotations

import numpy as np
import pytest

from differential import check, jitted


def put_flat(a, idx, v):
    np.put(a, idx, v)
    return a.sum()


def tuple_index(a, i, j):
    t = (i, j)
    a[t] += 1
    k = (i,)                       # a row
    return a[t], a[k].sum()


@pytest.mark.parametrize("n", [4, 15])
def test_put_matches_numpy(n, backend):
    rng = np.random.default_rng(n)
    a = np.asfortranarray(rng.standard_normal((n, n + 1)))
    idx = rng.integers(-a.size, a.size, (3, 2))
    check(put_flat, a, idx, rng.standard_normal(4), backend=backend)      # v repeated
    check(put_flat, a[:, ::2], np.array([n - 1, -1, n - 1]), 2.5, backend=backend)
    check(put_flat, np.zeros(n, np.int8), np.array([1, 1, -2]), np.array([7, 9]),
          backend=backend)
    check(put_flat, np.zeros((n, 2)), np.zeros(0, np.int64), 1.0, backend=backend)


def test_put_out_of_range_raises_with_the_line(backend):
    a = np.zeros((2, 3))
    with pytest.raises(IndexError, match="out of bounds") as e:
        jitted(put_flat, backend)(a, np.array([0, 6]), 1.0)
    assert "test_put_and_tuple_index.py" in str(e.value)
    assert not a.any()


@pytest.mark.parametrize("n", [3, 12])
def test_index_by_a_tuple_variable(n, backend):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n + 2))
    check(tuple_index, a, n - 1, -2, backend=backend)
    check(tuple_index, a, 0, n, backend=backend)
