"""Complex values on the native backend (rules_complex.py, rules_linalg._complex_dot):
differential against NumPy for complex64 and complex128 — elementwise arithmetic on a grid of
special values (0, -0, inf, nan, huge, tiny) compared part by part, C-, Fortran-ordered and
strided arguments, scalar arguments, products of every shape BLAS takes (matrix-matrix,
matrix-vector, vector-matrix, vector-vector, transposed, batched, Gram) — and the ops the
native backend does not compile on complex values: refused, so the automatic choice runs
them on XLA, still matching NumPy."""
import warnings

import numpy as np
import pytest

import solvent
from differential import check

rng = np.random.default_rng(11)
DTYPES = [np.complex64, np.complex128]


def crandn(shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


_SPECIAL = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e-300, 1e300, 3e38, 1e-40]


def special_grid(dtype):
    """Every pair of (re, im) special values, as two operand arrays of every combination."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = np.array(_SPECIAL)
        z = (v[:, None] + 1j * v[None, :]).ravel().astype(dtype)
    a, b = np.meshgrid(z, z)
    return a, b


def assert_parts_equal(got, want, ulps=0):
    """Real and imaginary parts agree: nan where NumPy has nan, the same infinities and
    zeros' signs, finite values within ``ulps`` units in the last place."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    parts = (lambda x: x.real, lambda x: x.imag) if want.dtype.kind == "c" else (lambda x: x,)
    for p in parts:
        g, w = p(got), p(want)
        assert np.array_equal(np.isnan(g), np.isnan(w)), (g, w)
        fin = np.isfinite(w)
        assert np.array_equal(g[~fin & ~np.isnan(w)], w[~fin & ~np.isnan(w)])
        if w.dtype.kind == "f":
            tol = ulps * np.spacing(np.abs(w[fin]).astype(w.dtype))
            assert np.all(np.abs(g[fin] - w[fin]) <= tol), (g[fin], w[fin])
            exact = fin & (w == 0)
            assert np.array_equal(np.signbit(g[exact]), np.signbit(w[exact]))
        else:
            assert np.array_equal(g, w)


def add(a, b): return a + b
def sub(a, b): return a - b
def mul(a, b): return a * b
def div(a, b): return a / b
def eq(a, b): return a == b
def ne(a, b): return a != b
def where(a, b): return np.where(a == b, a, b)
def neg(a): return -a
def conj(a): return np.conj(a)
def real(a): return a.real
def imag(a): return a.imag
def absolute(a): return np.abs(a)
def square(a): return np.square(a)
def isnan(a): return np.isnan(a)
def isinf(a): return np.isinf(a)
def isfinite(a): return np.isfinite(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [add, sub, mul, div, eq, ne, where])
def test_binary_special_values_match_numpy(fn, dtype):
    a, b = special_grid(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(a, b)
        got = solvent.jit(fn, backend="native")(a, b)
    assert_parts_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [neg, conj, real, imag, absolute, square, isnan, isinf,
                                isfinite])
def test_unary_special_values_match_numpy(fn, dtype):
    a, _ = special_grid(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(a)
        got = solvent.jit(fn, backend="native")(a)
    # abs: C's hypot (NumPy's npy_cabs) on both sides, but NumPy's vectorized loop may
    # round differently in the last place
    assert_parts_equal(got, want, ulps=1 if fn is absolute else 0)


def to_c64(a): return a.astype(np.complex64)
def to_c128(a): return a.astype(np.complex128)
def to_f64(a): return a.astype(np.float64)
def to_f32(a): return a.astype(np.float32)
def to_bool(a): return a.astype(np.bool_)


CONVERSIONS = [(src, fn) for src in (np.complex64, np.complex128) for fn in
               (to_c64, to_c128, to_f64, to_f32, to_bool)] + \
    [(src, fn) for src in (np.float64, np.float32, np.int64, np.bool_) for fn in (to_c64, to_c128)]


@pytest.mark.parametrize("src, fn", CONVERSIONS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_conversions_match_numpy(src, fn):
    a, _ = special_grid(np.complex128)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = a.real.astype(src) if np.dtype(src).kind != "c" else a.astype(src)
        want = fn(x)
        got = solvent.jit(fn, backend="native")(x)
    assert_parts_equal(got, want)


def arithmetic(A, B, s):
    C = (A * B + s) / (A - B + 3) * np.conj(A)
    return C, np.abs(C), C.real - C.imag, -C


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_arithmetic_layouts_and_scalars_match_numpy(dtype, layout):
    A, B = crandn((9, 7), dtype), crandn((9, 7), dtype)
    if layout == "F":
        A, B = np.asfortranarray(A), np.asfortranarray(B)
    elif layout == "strided":
        A, B = crandn((18, 21), dtype)[::2, ::3], crandn((9, 14), dtype)[:, ::2]
    for s in (dtype(0.5 - 2j), 1.5 - 0.25j, 2.0, 3):
        check(arithmetic, A, B, s, backend="native")


def matmul(A, B): return A @ B
def a_t(A, B): return A.T @ B
def b_t(A, B): return A @ B.T
def sliced(A, B): return A[:, ::2] @ B[::2]
def gram(A, B): return A.T @ A
def dot(A, B): return np.dot(A, B)
def scaled(A, B): return (2 - 1j) * (A @ B) + A @ B


PRODUCTS = [
    (matmul, (17, 9), (9, 13)),     # matrix-matrix
    (matmul, (2, 3), (3, 2)),       # tiny (BLAS too: no inline complex loop)
    (matmul, (17, 9), (9,)),        # matrix-vector
    (matmul, (9,), (9, 13)),        # vector-matrix
    (matmul, (33,), (33,)),         # vector-vector
    (dot, (1,), (1,)),
    (matmul, (4, 5, 6), (4, 6, 3)),  # batched
    (matmul, (3, 5, 6), (6,)),      # batched matrix-vector
    (a_t, (9, 17), (9, 13)),
    (a_t, (9, 17), (9,)),
    (b_t, (17, 9), (13, 9)),
    (sliced, (8, 18), (18, 8)),
    (sliced, (8, 18), (18,)),
    (gram, (12, 7), (1,)),          # syrk
    (scaled, (6, 6), (6, 6)),
    (matmul, (5, 0), (0, 4)),       # empty contraction: zeros
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn, sa, sb", PRODUCTS, ids=lambda x: getattr(x, "__name__", str(x)))
@pytest.mark.parametrize("order", ["C", "F"])
def test_products_match_numpy(fn, sa, sb, dtype, order):
    A, B = crandn(sa, dtype), crandn(sb, dtype)
    if order == "F":
        A, B = np.asfortranarray(A), np.asfortranarray(B)
    check(fn, A, B, backend="native")
    check(fn, A, B, backend=None)


@pytest.mark.parametrize("dtype", DTYPES)
def test_products_propagate_nan_and_inf(dtype):
    A, B = crandn((6, 5), dtype), crandn((5, 4), dtype)
    A[1, 2] = np.nan
    B[3, 1] = complex(np.inf, 0)
    got = solvent.jit(matmul, backend="native")(A, B)
    want = A @ B
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.isinf(got), np.isinf(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-5)


def power_iteration(A, x, n):
    for _ in range(n):
        x = A @ x
        x = x / np.abs(x).max()    # the reduction is of floats
    return x


def horner(c, z):
    s = 0j
    for i in range(c.shape[0]):
        s = s * z + c[i]
    return s


@pytest.mark.parametrize("dtype", DTYPES)
def test_loops_carrying_complex_values_match_numpy(dtype):
    A = crandn((8, 8), dtype) / 4
    check(power_iteration, A, crandn((8,), dtype), 5, backend="native")
    check(horner, crandn((9,), dtype), dtype(0.5 + 0.25j), backend="native")


# --- what stays off the native backend ------------------------------------------------------
def exp(a): return np.exp(a)
def total(a): return a.sum()
def sort(a): return np.sort(a)
def loop_sum(a):
    s = 0j
    for i in range(a.shape[0]):
        s += a[i] * a[i]
    return s
def power(a): return a ** 3
def complex_max(a, b): return np.maximum(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [exp, total, sort, power, complex_max])
def test_unsupported_complex_ops_are_refused_and_run_on_xla(fn, dtype):
    a, b = crandn((7,), dtype), crandn((7,), dtype)
    args = (a, b) if fn is complex_max else (a,)
    with pytest.raises(solvent.UnsupportedError, match="native"):
        solvent.jit(fn, backend="native")(*args)
    check(fn, *args, backend=None)
    jf = solvent.jit(fn)
    jf(*args)
    assert next(iter(jf._cache.values())).backend == "xla"


def test_loop_reduction_of_complex_values_runs_on_xla():
    """A loop summing complex values is raised to a reduce_sum, which the native backend
    does not take on complex values: XLA runs it."""
    a = crandn((11,), np.complex128)
    with pytest.raises(solvent.UnsupportedError, match="reduce_sum"):
        solvent.jit(loop_sum, backend="native")(a)
    check(loop_sum, a, backend=None)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn, sa, sb", [(matmul, (64, 64), (64, 64)), (matmul, (64, 64), (64,)),
                                        (a_t, (64, 64), (64,))])
def test_automatic_choice_runs_complex_products_natively(fn, sa, sb, dtype):
    A, B = crandn(sa, dtype), crandn(sb, dtype)
    jf = solvent.jit(fn)
    jf(A, B)
    c = next(iter(jf._cache.values()))
    assert c.backend == "native", solvent.explain(jf, A, B)
