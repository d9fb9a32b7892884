"""The dense solvers on the native backend (rules_lapack.py: the LAPACK and BLAS NumPy calls):
differential against NumPy/SciPy on the same source, with the backend forced and under
automatic choice, for float32/float64, sizes 0, 1 and larger, batches, Fortran-ordered and
strided arguments, transposed operands read without a copy, and the errors NumPy raises."""
import numpy as np
import pytest
import scipy.linalg as sla

import solvent
from differential import check

rng = np.random.default_rng(11)


def spd(n, dtype=np.float64, batch=()):
    m = rng.standard_normal(batch + (n, n))
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype(dtype)


def general(n, dtype=np.float64, batch=()):
    return (rng.standard_normal(batch + (n, n)) + n * np.eye(n)).astype(dtype)


def chol(a):
    return np.linalg.cholesky(a)


def solve(a, b):
    return np.linalg.solve(a, b)


def inv(a):
    return np.linalg.inv(a)


def det(a):
    return np.linalg.det(a)


def solve_t(a, b):
    return np.linalg.solve(a.T, b)


def det_t(a):
    return np.linalg.det(a.T)


def tri_lower(a, b):
    return sla.solve_triangular(a, b, lower=True)


def tri_upper_unit(a, b):
    return sla.solve_triangular(a, b, lower=False, unit_diagonal=True)


def tri_t(a, b):
    return sla.solve_triangular(a.T, b, lower=False)


def tri_t_lower(a, b):
    return sla.solve_triangular(a.T, b, lower=True)


def cholesky_solve(G, y):
    """The normal-equations idiom: factor, then two solves (the second with L.T)."""
    L = np.linalg.cholesky(G)
    z = np.linalg.solve(L, y)
    w = np.linalg.solve(L.T, z)
    v = sla.solve_triangular(L.T, sla.solve_triangular(L, y, lower=True), lower=False)
    return w, v, np.linalg.det(G), np.linalg.inv(G) @ y


def scalar_first(lam, a, b):
    return np.linalg.solve(a + lam * np.eye(a.shape[0]), b)


BACKENDS = ["native", None]
SIZES = [0, 1, 2, 5, 17]
DTYPES = [np.float64, np.float32]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_square_factorizations_match_numpy(n, dtype, backend):
    check(chol, spd(n, dtype), backend=backend)
    check(inv, general(n, dtype), backend=backend)
    check(det, general(n, dtype), backend=backend)
    check(det_t, general(n, dtype), backend=backend)


# native at every size, right-hand side and dtype; the automatic choice (None, which takes
# native for these) at two of them
@pytest.mark.parametrize("n,k,dtype,backend", [
    (n, k, d, "native") for n in SIZES for k in (None, 3) for d in DTYPES] + [
    (5, 3, np.float64, None), (17, None, np.float32, None)])
def test_solves_match_numpy_and_scipy(n, k, dtype, backend):
    a = general(n, dtype)
    b = rng.standard_normal((n,) if k is None else (n, k)).astype(dtype)
    check(solve, a, b, backend=backend)
    check(solve_t, a, b, backend=backend)
    for f in (tri_lower, tri_upper_unit, tri_t, tri_t_lower):
        check(f, a, b, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batched_stacks(backend):
    check(chol, spd(4, batch=(2, 3)), backend=backend)
    check(inv, general(3, batch=(5,)), backend=backend)
    check(det, general(4, batch=(2, 3)), backend=backend)
    check(det, np.zeros((0, 3, 3)), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fortran_ordered_and_strided_arguments(backend):
    a = np.asfortranarray(general(6))
    b = np.asfortranarray(rng.standard_normal((6, 2)))
    check(solve, a, b, backend=backend)
    check(inv, a, backend=backend)
    check(chol, np.asfortranarray(spd(6)), backend=backend)
    big = general(12)
    check(solve, big[::2, ::2], rng.standard_normal(12)[::2], backend=backend)
    check(det, big[1::2, ::2], backend=backend)
    check(tri_t, big[::2, 1::2], rng.standard_normal((6, 3)), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [0, 1, 8])
def test_composed_solvers_and_scalar_first(n, backend):
    check(cholesky_solve, spd(n), rng.standard_normal(n), backend=backend)
    check(scalar_first, 0.5, general(n), rng.standard_normal(n), backend=backend)


def test_singular_and_indefinite_raise_linalgerror_with_the_line_and_leave_arguments():
    a = np.zeros((3, 3))
    keep = a.copy()
    with pytest.raises(np.linalg.LinAlgError, match=r"test_native_lapack.py:\d+:\d+: Singular"):
        solvent.jit(solve, backend="native")(a, np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        solvent.jit(inv, backend="native")(a)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        solvent.jit(chol, backend="native")(-np.eye(3))
    assert np.array_equal(a, keep)


def test_singular_det_is_zero_and_a_row_swap_flips_the_sign():
    f = solvent.jit(det, backend="native")
    assert f(np.zeros((3, 3))) == 0.0
    assert f(np.array([[0.0, 1.0], [1.0, 0.0]])) == -1.0
    assert type(f(np.eye(2))) is np.float64


def test_nan_input_gives_numpy_result_or_error():
    a = general(3)
    a[1, 1] = np.nan
    with np.errstate(all="ignore"):
        exp = np.linalg.det(a)
    assert np.isnan(solvent.jit(det, backend="native")(a)) and np.isnan(exp)


def test_a_transposed_operand_is_read_without_a_copy():
    """solve(L.T, b) factors a copy of L read as it is (getrs 'N'): no transposed buffer."""
    L = np.tril(general(5))
    c = solvent.jit(solve_t, backend="native").compile((L, np.ones(5)))
    assert any(op.name == "tensor.transpose" for op in c.fn.walk())
    assert any(op.name == "tensor.transpose" for op in c.executable.plan.fused)


def test_complex_values_stay_on_xla_under_automatic_choice():
    a = general(4).astype(np.complex128) + 1j * np.eye(4)
    b = np.ones(4, np.complex128)
    check(solve, a, b, backend=None)
    assert solvent.jit(solve).compile((a, b)).backend == "xla"


def eigh_product(a):
    """Eigenvectors are unique up to sign: compare what does not depend on it."""
    w, v = np.linalg.eigh(a)
    return w, (v * w) @ v.T, np.abs(v[0] @ v[0])


def eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return w, (v * w) @ v.T


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 9])
def test_eigh_matches_numpy(n, dtype, backend):
    a = rng.standard_normal((n, n)).astype(dtype)
    check(eigh_product, a + a.T, backend=backend)
    # one triangle read: the other holds garbage that must not change the result
    lower = np.tril(a) + np.triu(np.full((n, n), 7.0, dtype), 1)
    check(eigh_product, lower, backend=backend)
    check(eigh_upper, np.triu(a) - np.tril(np.full((n, n), 3.0, dtype), -1), backend=backend)


def eigh_stack(a):
    w, v = np.linalg.eigh(a)
    return w, (v * w[:, None, :]) @ np.swapaxes(v, 1, 2)


def test_eigh_batched_and_nan():
    a = rng.standard_normal((3, 4, 4))
    check(eigh_stack, a + np.swapaxes(a, 1, 2), backend="native")
    bad = np.eye(3)
    bad[0, 0] = np.nan
    with np.errstate(all="ignore"):
        exp = np.linalg.eigh(bad)[0]
    got = solvent.jit(eigh_product, backend="native")(bad)[0]
    assert np.isnan(exp).any()   # NumPy gives NaN (LAPACK's result), no error; so does solvent
    np.testing.assert_allclose(got, exp, equal_nan=True)


def slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign, logdet


@pytest.mark.parametrize("backend", BACKENDS)
def test_slogdet_matches_numpy(backend):
    """np.linalg.slogdet (getrf, as det): sign and log|det| of general, transposed, strided,
    batched, singular and 0x0 matrices, and one whose determinant overflows float64."""
    for a in (general(5), general(5, np.float32), general(4).T, general(12)[1::2, ::2],
              general(3, batch=(2, 2)), np.zeros((3, 3)), -np.eye(3), np.zeros((0, 0)),
              np.eye(200) * 40.0):
        check(slogdet, a, backend=backend)


def eigh_lower(a):
    return np.linalg.eigh(a)


def eigh_upper_vectors(a):
    return np.linalg.eigh(a, UPLO="U").eigenvectors


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_gives_numpys_eigenvectors_signs_included(dtype):
    """Native eigh hands LAPACK the matrix NumPy hands it (the same triangle, read the same
    way), so each eigenvector has NumPy's sign: PCA-style code that reads ``v[:, -1]``
    gets the direction NumPy gives. (An untransposed copy read the other triangle of the
    transpose and negated some vectors.)"""
    lower, upper = (solvent.jit(f, backend="native") for f in (eigh_lower, eigh_upper_vectors))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for seed in range(4):
        g = np.random.default_rng(seed)
        a = g.standard_normal((2, 7, 7)).astype(dtype)
        a = a @ np.swapaxes(a, 1, 2) + np.triu(g.standard_normal((7, 7)), 1).astype(dtype)
        w, v = lower(a)
        want = np.linalg.eigh(a)
        assert type(w) is np.ndarray and v.dtype == want.eigenvectors.dtype
        np.testing.assert_allclose(w, want.eigenvalues, rtol=tol, atol=tol)
        np.testing.assert_allclose(v, want.eigenvectors, rtol=tol, atol=tol)
        np.testing.assert_allclose(upper(a), np.linalg.eigh(a, UPLO="U").eigenvectors,
                                   rtol=tol, atol=tol)


def svd_qr(a):
    u, s, vh = np.linalg.svd(a)
    u2, s2, vh2 = np.linalg.svd(a, full_matrices=False)
    q, r = np.linalg.qr(a)
    return u, s, vh, u2, s2, vh2, np.linalg.svd(a, compute_uv=False), q, r


def fits(x, y):
    return (np.polyfit(x, y, 2), np.linalg.pinv(np.outer(x[:4], y[:3])),
            np.linalg.lstsq(np.vstack([x, np.ones_like(x)]).T, y, rcond=None)[0],
            np.linalg.matrix_rank(np.outer(x, y)))


@pytest.mark.parametrize("shape,dtype,layout", [
    ((5, 3), np.float64, "C"), ((3, 5), np.float64, "F"), ((4, 4), np.float32, "C"),
    ((6, 2), np.float64, "strided"), ((2, 4, 3), np.float64, "C"), ((1, 1), np.float64, "C")])
def test_svd_and_qr_give_numpys_factors_signs_included(shape, dtype, layout):
    # gesdd / geqrf+orgqr on the layout NumPy hands LAPACK: the same vectors, not only up to
    # sign (compared directly, so a negated column fails)
    a = rng.standard_normal(shape).astype(dtype)
    a = {"C": a, "F": np.asfortranarray(a), "strided": np.repeat(a, 2, axis=-1)[..., ::2]}[layout]
    check(svd_qr, a, backend="native")


def test_fits_on_svd_run_natively_under_automatic_choice():
    x, y = rng.random(9), rng.random(9)
    check(fits, x, y, backend="native")
    assert "## backend: native" in solvent.jit(fits).explain(x, y).splitlines()  # was xla
