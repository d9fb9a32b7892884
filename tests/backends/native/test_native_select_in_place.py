"""In-place elementwise results with fused producers (bufferize.py): ``select(d < p, d, p)``
written into ``p``, the mask and ``d`` computed inside the select's loop. NumPy is the
oracle; the kernels that read the written array at other indices (a row, a reversal) check
that those reads still see the old values."""
import numpy as np
import pytest

import solvent


def relax_where(path):
    for k in range(path.shape[0]):
        d = np.add.outer(path[:, k], path[k, :])
        path[:] = np.where(d < path, d, path)


def mirror_where(x):
    for _ in range(3):
        d = x[::-1] * 2.0
        x[:] = np.where(d < x, d, x)


def twice_used(x, y):
    for _ in range(2):
        d = x + y
        x[:] = np.where(d > 1.0, d * 0.5, x)


@pytest.mark.parametrize("fn,make", [
    (relax_where, lambda r: [r.random((7, 7)) * 10 - 1]),
    (relax_where, lambda r: [np.asfortranarray(r.random((5, 5)) * 10)]),
    (mirror_where, lambda r: [r.standard_normal(9)]),
    (twice_used, lambda r: [r.random((4, 3)), r.random((4, 3))]),
], ids=["floyd_where", "floyd_where_fortran", "mirror", "twice_used"])
def test_select_in_place_matches_numpy(fn, make):
    args = make(np.random.default_rng(3))
    want = [a.copy() for a in args]
    fn(*want)
    got = [a.copy() for a in args]
    solvent.jit(fn, backend="native")(*got)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
