"""np.put (in place, flat indices: negatives from the end, values repeated, the last of
duplicates wins), differentially against NumPy at two sizes with its in-place effects."""
from __future__ import annotations

import numpy as np
import pytest

from differential import check, jitted


def put_flat(a, idx, v):
    np.put(a, idx, v)
    return a.sum()


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
    assert "test_put.py" in str(e.value)
    assert not a.any()


def put_3d(a, idx):
    np.put(a, idx, np.arange(idx.size) * 1.5)


def test_put_3d_and_refusals(backend):
    a = np.zeros((2, 3, 4), order="F")
    check(put_3d, a, np.array([0, 23, -1, 7, 13]), backend=backend)
    import solvent
    with pytest.raises(solvent.UnsupportedError, match="np.put into") as e:
        jitted(put_flat, backend)(np.zeros((1, 1, 1, 2)), np.array([0]), 1.0)
    assert "test_put.py" in str(e.value)
