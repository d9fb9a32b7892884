"""Matrix-vector products whose lengths follow a loop variable, on windows of one buffer,
run as one BLAS gemv on the windows in place (rules_linalg._runtime_gemv): differential
against NumPy for both orientations, strided vectors, empty contractions (the first trip),
float32/float64, Fortran-ordered arguments, and integer products (inline loops)."""
import re

import numpy as np
import pytest

import solvent
from differential import check
from solvent.corpus import lu_slices

rng = np.random.default_rng(5)


def windows(A, x):
    n, m = A.shape
    out = np.zeros((n, m), A.dtype)
    for i in range(min(n, m)):
        out[i, i:] = x[:i] @ A[:i, i:]            # vector @ matrix, contraction over rows
        out[i + 1:, i] = A[i + 1:, :i] @ x[:i]    # matrix @ vector, over columns
        out[i, :i] += x[1:2 * i + 1:2] @ A[:i, :i].T if i else 0
    return out


def strided(A, x):
    n = A.shape[0]
    acc = np.zeros(n)
    for i in range(1, n):
        acc[:i] += A[:i, ::2][:, :i] @ x[::3][:i]   # unit row stride needed: inline loop
        acc[i] += x[:i] @ A[1:i + 1, 0]             # vector @ vector
    return acc


# the automatic choice (None) at two shapes: it compiles what native does
@pytest.mark.parametrize("shape,dtype,backend", [
    (s, d, "native") for d in (np.float64, np.float32)
    for s in ((1, 1), (5, 5), (9, 4), (4, 9), (33, 17))] + [
    ((9, 4), np.float64, None), ((33, 17), np.float32, None)])
def test_window_products_match_numpy(shape, dtype, backend):
    A = rng.standard_normal(shape).astype(dtype)
    x = rng.standard_normal(2 * max(shape) + 2).astype(dtype)
    check(windows, A, x, backend=backend)
    check(windows, np.asfortranarray(A), x, backend=backend)


@pytest.mark.parametrize("backend", ["native", None])
def test_strided_windows_and_integers(backend):
    A = rng.standard_normal((10, 20))
    x = rng.standard_normal(40)
    check(strided, A, x, backend=backend)
    check(windows, rng.integers(-4, 5, (6, 6)), rng.integers(-4, 5, 14), backend=backend)


@pytest.mark.parametrize("n", [1, 2, 24, 65])
def test_lu_slices_matches_numpy(n):
    (A,) = lu_slices.make_args(n, rng)
    check(lu_slices.kernel, A, backend="native")


def test_the_window_products_call_gemv_and_the_strided_one_does_not():
    A, x = np.ones((6, 6)), np.ones(14)
    code = solvent.jit(windows, backend="native").compile((A, x)).executable.llvm_ir
    # the third product's matrix is a transposed window (run-time shape): materialized,
    # then an inline loop
    assert len(re.findall(r'call void @"?solvent_dgemv', code)) == 2
    code = solvent.jit(strided, backend="native").compile((A, x)).executable.llvm_ir
    assert "solvent_dgemv" not in code
