"""Differential tests: matrix products, einsum, tensordot, np.linalg."""
import numpy as np
import pytest

import solvent

from differential import case, check, run_cases

rng = np.random.default_rng(3)
M34 = rng.standard_normal((3, 4))
M45 = rng.standard_normal((4, 5))
M33 = rng.standard_normal((3, 3))
V3 = rng.standard_normal(3)
V4 = rng.standard_normal(4)
B234 = rng.standard_normal((2, 3, 4))
B245 = rng.standard_normal((2, 4, 5))
I34 = rng.integers(-5, 5, (3, 4))
I45 = rng.integers(-5, 5, (4, 5))
SPD = M33 @ M33.T + 3 * np.eye(3)
RHS = rng.standard_normal((3, 2))
BSPD = np.stack([SPD, SPD + np.eye(3)])


def matmul_2d(A, B):
    return A @ B, np.matmul(A, B), np.dot(A, B), A.dot(B)


def matmul_1d(A, v, w):
    return A @ v, w @ A, v @ v, np.dot(v, v), np.matmul(w, A), np.dot(A, v)


def matmul_batched(A, B, M):
    return A @ B, np.matmul(A, B), A @ M, np.matmul(A, M[:, 0])


def matmul_int(A, B):
    return A @ B, np.dot(A[0], B[:, 0])


def matmul_f32(A, B):
    return A @ B, np.dot(A, B)


def matmul_mixed(A, B):
    return A @ B, B.T @ A.T


def matmul_scalar_dot(A, x):
    return np.dot(A, x), np.dot(2.0, A)


def matmul_chain(A, B, v):
    return (A @ B) @ (B.T @ v) + A @ (B @ B.T @ v)


def matmul_aug(A, S):
    C = A.copy()
    C @= S
    return C


def outers(v, w):
    return np.outer(v, w), np.outer(v, v)


def outer_2d(A, v):
    return np.outer(A, v)


def einsums(A, B, v, w, Bt, Bt2):
    return (np.einsum("ij,jk->ik", A, B), np.einsum("ij->ji", A), np.einsum("ij->", A),
            np.einsum("bij,bjk->bik", Bt, Bt2), np.einsum("i,i->", w, w), np.einsum("ij,j->i", A, w),
            np.einsum("ij,jk", A, B), np.einsum("i,j->ij", v, w), np.einsum("ij->j", A))


def einsum_sum_one_input(A):
    return np.einsum("ij->i", A), np.einsum("ij", A)


def inners(A, B, v, w):
    return np.inner(v, v), np.inner(A, B), np.inner(A, w), np.vdot(v, v)


def tensordots(A, B, Bt, M):
    return (np.tensordot(A, B, axes=1), np.tensordot(Bt, M, axes=([2], [0])),
            np.tensordot(Bt, A, axes=([1, 2], [0, 1])), np.tensordot(A, B, axes=(1, 0)))


def tensordot_full(A):
    return np.tensordot(A, A, axes=2)


def norms(v, A, Bt):
    return (np.linalg.norm(v), np.linalg.norm(A), np.linalg.norm(v, 1), np.linalg.norm(v, np.inf),
            np.linalg.norm(A, axis=1), np.linalg.norm(A, axis=0, keepdims=True),
            np.linalg.norm(A, "fro"), np.linalg.norm(Bt, axis=-1), np.linalg.norm(A, ord=1, axis=1))


def norm_int(I):
    return np.linalg.norm(I), np.linalg.norm(I[0])


def norm_matrix_ords(A):
    return np.linalg.norm(A, 1), np.linalg.norm(A, np.inf)


def solve_inv(S, b, R):
    return np.linalg.solve(S, b), np.linalg.solve(S, R), np.linalg.inv(S), np.linalg.inv(S) @ b


def cholesky_det(S, A):
    return np.linalg.cholesky(S), np.linalg.det(S), np.linalg.det(A)


def linalg_batched(BS):
    return np.linalg.inv(BS), np.linalg.det(BS), np.linalg.cholesky(BS)


def linalg_int(I):
    S = I @ I.T + 10 * np.eye(3, dtype=np.int64)
    return np.linalg.det(S), np.linalg.inv(S), np.linalg.solve(S, I[:, 0])


def linalg_f32(S):
    return np.linalg.solve(S, S[:, 0]), np.linalg.inv(S), np.linalg.det(S)


def solve_in_loop(S, b, n):
    x = b.copy()
    for _ in range(n):
        x = np.linalg.solve(S, x) + b
    return x


def gram_schmidt(A):
    Q = np.zeros_like(A)
    for j in range(A.shape[1]):
        v = A[:, j].copy()
        for k in range(j):
            v -= np.dot(Q[:, k], A[:, j]) * Q[:, k]
        Q[:, j] = v / np.linalg.norm(v)
    return Q


def gauss_pivot_solve(M, b):
    # fixed-length slices only: solvent needs static slice lengths
    n = M.shape[0]
    A = M.copy()
    x = b.copy()
    rows = np.arange(n)
    for k in range(n):
        p = np.argmax(np.where(rows >= k, np.abs(A[:, k]), -1.0))
        if p != k:
            tmp = A[k].copy()
            A[k] = A[p]
            A[p] = tmp
            t = x[k]
            x[k] = x[p]
            x[p] = t
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            A[i] -= f * A[k]
            x[i] -= f * x[k]
    for i in range(n - 1, -1, -1):
        s = 0.0
        for j in range(i + 1, n):
            s += A[i, j] * x[j]
        x[i] = (x[i] - s) / A[i, i]
    return x


def jacobi(A, b, tol):
    x = np.zeros_like(b)
    d = np.diag(A)
    R = A - np.diag(d)
    it = 0
    err = 1.0
    while err > tol and it < 200:
        x_new = (b - R @ x) / d
        err = np.linalg.norm(x_new - x)
        x = x_new
        it += 1
    return x, it


cases = [
    case(matmul_2d, M34, M45),
    case(matmul_1d, M34, V4, V3),
    case(matmul_batched, B234, B245, M45),
    case(matmul_int, I34, I45),
    case(matmul_f32, M34.astype(np.float32), M45.astype(np.float32)),
    case(matmul_mixed, M34.astype(np.float32), I45),
    case(matmul_scalar_dot, M34, 2.5),
    case(matmul_chain, M33, M33.T.copy(), V3),
    case(matmul_aug, M34, M45[:, :4].copy()),
    case(outers, V3, V4),
    case(outer_2d, M33, V3),
    case(einsums, M34, M45, V3, V4, B234, B245),
    case(einsum_sum_one_input, M34),
    case(inners, M34, M34.copy(), V4, V4),
    case(tensordots, M34, M45, B234, M45),
    case(tensordot_full, M34),
    case(norms, V4, M34, B234),
    case(norm_int, I34),
    case(norm_matrix_ords, M34),
    case(solve_inv, SPD, V3, RHS),
    case(cholesky_det, SPD, M33),
    case(linalg_batched, BSPD),
    case(linalg_int, I34[:, :3].copy()),
    case(linalg_f32, SPD.astype(np.float32)),
    case(solve_in_loop, SPD, V3, 3),
    case(gram_schmidt, M33),
    case(gauss_pivot_solve, M33, V3),
    case(jacobi, SPD, V3, 1e-10),
]

test_linalg = run_cases(cases)


def _einsum_diagonals(A, B, C):
    return (np.einsum('ii->', A), np.einsum('ii->i', A), np.einsum('iji->j', C),
            np.einsum('ij,jj->i', B, A), np.einsum('iij->ji', C.transpose(0, 2, 1)),
            np.einsum('ijj', C.transpose(1, 0, 2)))


@pytest.mark.parametrize("n", [1, 3])
def test_einsum_with_a_repeated_index_takes_the_diagonal(n, backend):
    rng = np.random.default_rng(n)
    A = np.asfortranarray(rng.standard_normal((n, n)).astype(np.float32))
    check(_einsum_diagonals, A, rng.standard_normal((2, n)).astype(np.float32),
          rng.standard_normal((n, 2, n)).astype(np.float32), backend=backend)


def _einsum_ellipses(A, C, x):
    return (np.einsum("...j,...j->...", A, A), np.einsum("i...->...i", C),
            np.einsum("...ij,...jk", C, C.transpose(0, 2, 1)), np.einsum("...", x),
            np.einsum("...i,i", C, x[:C.shape[2]]), np.einsum("i...,i...->...", A, A),
            np.einsum("ij...,jk->ik...", C.transpose(1, 2, 0), A[:C.shape[2], :2].T.T))


@pytest.mark.parametrize("n", [1, 3])
def test_einsum_ellipsis_spells_out_the_broadcast_dims(n, backend):
    rng = np.random.default_rng(n)
    check(_einsum_ellipses, rng.standard_normal((n + 1, 4)),
          np.asfortranarray(rng.standard_normal((2, n, n))), rng.standard_normal(4).astype(np.float32),
          backend=backend)


def _einsum_broadcast_one(A, B):
    return np.einsum("...i,...i->...", A, B)


def test_einsum_ellipsis_of_different_lengths_is_refused_with_the_line():
    with pytest.raises(solvent.UnsupportedError, match=r"test_linalg.py:\d+:\d+: einsum '\.\.\.'"):
        solvent.jit(_einsum_broadcast_one)(np.ones((3, 2)), np.ones((1, 2)))


def _ranks(A, B, tol):
    return (np.linalg.matrix_rank(A), np.linalg.matrix_rank(A[:, :2] @ A[:2]),
            np.linalg.matrix_rank(B), np.linalg.matrix_rank(A, tol), np.linalg.matrix_rank(A[0]),
            np.linalg.matrix_rank(np.zeros(3)))


@pytest.mark.parametrize("backend_name", [None, "xla"])
def test_matrix_rank_is_numpys(backend_name):
    """Singular values above NumPy's default tolerance (automatic choice: native gesdd)."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((4, 3))
    B = np.stack([rng.standard_normal((3, 3)), np.ones((3, 3))])   # a stack: ranks 3 and 1
    check(_ranks, A, B, 0.5, backend=backend_name)
