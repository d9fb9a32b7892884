"""scipy.linalg.lapack.dgtsv inside a kernel (the tridiagonal solve ocean and heat models call
in their time step): every output (the factors, x, info) equals SciPy's, with and without
row interchanges, several right-hand sides, zero pivots (info > 0), float32 and
Fortran-ordered inputs, and the inputs are never overwritten."""
import copy

import numpy as np
import pytest

import solvent

lapack = pytest.importorskip("scipy.linalg.lapack")


def solve(dl, d, du, b):
    dl2, d2, du2, x, info = lapack.dgtsv(dl, d, du, b)
    return dl2, d2, du2, x, info


def implicit_heat(T, kappa, steps):
    """Backward Euler for the 1-D heat equation: one tridiagonal solve per step."""
    n = T.shape[0]
    dl = np.full(n - 1, -kappa)
    du = np.full(n - 1, -kappa)
    d = np.full(n, 1.0 + 2.0 * kappa)
    for s in range(steps):
        _, _, _, T, info = lapack.dgtsv(dl, d, du, T)
    return T


def _cases():
    rng = np.random.default_rng(3)
    out = []
    for n, scale in ((2, 1.0), (3, 0.01), (6, 0.1), (9, 10.0)):   # small diagonals pivot
        out.append((rng.standard_normal(n - 1), rng.standard_normal(n) * scale,
                    rng.standard_normal(n - 1), rng.standard_normal(n)))
    n = 5
    out.append((rng.standard_normal(n - 1), rng.standard_normal(n), rng.standard_normal(n - 1),
                np.asfortranarray(rng.standard_normal((n, 3)))))
    out.append((np.zeros(3), np.zeros(4), np.ones(3), np.ones(4)))          # info = 1
    d = np.ones(4)
    d[3] = 0.0
    out.append((np.zeros(3), d, np.zeros(3), np.arange(4.0)))               # info = n
    out.append(tuple(a.astype(np.float32) for a in out[2]))
    return out


@pytest.mark.parametrize("k,backend", [(k, "xla") for k in (1, 3, 4, 5, 6, 7)] +
                         [(k, "native") for k in (2, 4, 5, 6, 7)])   # native: one plain size
def test_dgtsv_matches_scipy(k, backend):
    args = _cases()[k]
    keep = copy.deepcopy(args)
    want = solve(*copy.deepcopy(args))
    got = solvent.jit(solve, backend=backend)(*args)
    for w, g in zip(want[:4], got[:4]):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-300)
        assert np.asarray(g).dtype == w.dtype
    assert got[4] == want[4]
    for a, b in zip(args, keep):
        np.testing.assert_array_equal(a, b)      # not overwritten


def test_implicit_heat_matches_numpy():
    T = np.sin(np.linspace(0, 3, 40))
    want = implicit_heat(T.copy(), 0.3, 5)
    np.testing.assert_allclose(solvent.jit(implicit_heat)(T.copy(), 0.3, 5), want, rtol=1e-12)


def n_is_one(d):
    return lapack.dgtsv(d[:0], d, d[:0], d)


def test_n_one_is_refused_as_scipy_refuses_it():
    with pytest.raises(ValueError):
        n_is_one(np.ones(1))
    with pytest.raises(ValueError, match="n >= 2"):
        solvent.jit(n_is_one)(np.ones(1))
