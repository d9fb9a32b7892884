"""Read caching (``autodiff/read_caching.py``): a taped loop records the slices of its
carried arrays that the reverse steps read, instead of the slots its writes overwrite, when
that takes fewer bytes; checked on the tape sizes, with the verifier, and against finite
differences; a loop whose reverse reads a carried array whole keeps its undo tape."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402
from solvent.autodiff.read_caching import state_reads, tape_bytes  # noqa: E402
from solvent.autodiff.transform import _build, vjp_function  # noqa: E402
from solvent.corpus import lu_nopivot  # noqa: E402
from solvent.ir.verifier import verify  # noqa: E402


def lu_loss(A, w):
    lu_nopivot.kernel(A)
    return np.sum(A * w)


def whole_read(A, w):
    """Each trip writes one row, and reads the whole array (``np.sum(A * A)``): the
    reverse step needs the array as the trip found it, which only the undo rebuilds."""
    n = A.shape[0]
    for k in range(n):
        A[k] = np.sin(A[k]) + 0.01 * np.sum(A * A)
    return np.sum(A * w)


def _builds(f, args):
    g = solvent.grad(f, 0, backend="interp").compiled(*args)
    g0, t0, _ = _build(g.primal, g.wrt, None, None)
    reads = state_reads(g0, t0)
    g1, t1, _ = _build(g.primal, g.wrt, None, None, None, reads)
    verify(g1, tensor_only=True)
    report: dict = {}
    vjp_function(g.primal, g.wrt, None, report)
    return tape_bytes(g0, t0), tape_bytes(g1, t1), reads, report["tape_bytes"]


def test_lu_records_the_pivot_row_and_column_not_the_trailing_block():
    n = 9
    rng = np.random.default_rng(0)
    A, w = rng.random((n, n)) + n * np.eye(n), rng.standard_normal((n, n))
    undo, cached, reads, chosen = _builds(lu_loss, (A, w))
    assert reads                                   # the pivot, its row and its column
    assert undo >= n * (n - 1) ** 2 * 8            # a trailing block per trip
    assert cached <= 3 * n * n * 8 and chosen == cached


@pytest.mark.parametrize("backend", ["interp", "native"])
def test_lu_gradient_with_cached_reads_equals_finite_differences(backend):
    n = 6
    rng = np.random.default_rng(1)
    A, w = rng.random((n, n)) + n * np.eye(n), rng.standard_normal((n, n))
    g = solvent.grad(lu_loss, 0, backend=backend)(A.copy(), w)
    fd = fd_grad(lambda a, w: float(lu_loss(a.copy(), w)), (A, w), 0)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_whole_array_read_keeps_the_undo_tape():
    """The must-not-apply case: a cached slice would not free the rebuilt array, so the
    build that records them takes more bytes and is not chosen."""
    n = 7
    rng = np.random.default_rng(2)
    A, w = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    undo, cached, reads, chosen = _builds(whole_read, (A, w))
    assert reads and cached > undo and chosen == undo
    g = solvent.grad(whole_read, 0, backend="interp")(A.copy(), w)
    fd = fd_grad(lambda a, w: float(whole_read(a.copy(), w)), (A, w), 0)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)

