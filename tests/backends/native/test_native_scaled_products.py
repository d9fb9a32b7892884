"""``alpha * A @ B``: a scaled operand read unscaled, its scalar BLAS's alpha, on the native
backend (rules_linalg._scale_into_alpha): gemm, gemv, syrk, both sides scaled, float32 with
a Python float, the scalar on either side, products too small for BLAS (the scaled copy
kept), the scaled value also read elsewhere; compared with NumPy."""
import numpy as np
import pytest

import solvent
from differential import check

rng = np.random.default_rng(5)


def gemm_scaled(alpha, A, B):
    return alpha * A @ B


def right_scaled(A, B):
    return A @ (B * 0.5)


def both_scaled(a, b, A, B):
    return (a * A) @ (B * b)


def gemv_scaled(alpha, A, v, w):
    return (alpha * A) @ v, w @ (A * alpha)


def gram_scaled(s, X):
    return (s * X).T @ X


def scaled_reused(alpha, A, B):
    S = alpha * A
    return S @ B, S.sum()


CASES = [
    (gemm_scaled, (1.5, rng.random((20, 30)), rng.random((30, 25)))),
    (gemm_scaled, (-0.25, rng.random((20, 30)).astype(np.float32),
                   rng.random((30, 25)).astype(np.float32))),
    (right_scaled, (rng.random((20, 30)), rng.random((30, 25)))),
    (both_scaled, (2.0, -3.0, rng.random((20, 30)), rng.random((30, 25)))),
    (gemv_scaled, (0.75, rng.random((40, 30)), rng.random(30), rng.random(40))),
    (gram_scaled, (2.5, rng.random((30, 20)))),
    (gemm_scaled, (1.5, rng.random((3, 4)), rng.random((4, 2)))),    # loop nest, not BLAS
    (scaled_reused, (1.5, rng.random((20, 30)), rng.random((30, 25)))),
]


@pytest.mark.parametrize("fn,args", CASES,
                         ids=[f"{f.__name__}-{a[-1].dtype}-{a[-1].shape}" for f, a in CASES])
def test_scaled_products_match_numpy(fn, args):
    check(fn, *args, backend="native")


def test_the_scalar_is_blas_alpha_and_explain_says_so():
    A, B = rng.random((20, 30)), rng.random((30, 25))
    f = solvent.jit(gemm_scaled, backend="native")
    lines = f.compile((1.5, A, B)).executable.explain_lines
    assert any("BLAS's alpha" in s for s in lines), lines


def beta_update(alpha, beta, C, A, B):
    C *= beta
    C += alpha * A @ B


def beta_read_twice(beta, C, A, B):
    S = C * beta
    C[:] = S + A @ B
    return S.sum()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_scaled_accumulator_is_gemm_beta(dtype):
    C, A, B = (rng.random(s).astype(dtype) for s in ((20, 25), (20, 30), (30, 25)))
    check(beta_update, 1.5, -0.5, C, A, B, backend="native")
    check(beta_read_twice, -0.5, C, A, B, backend="native")
    lines = solvent.jit(beta_update, backend="native").compile(
        (1.5, -0.5, C, A, B)).executable.explain_lines
    assert any("beta = its scalar" in s for s in lines), lines
