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
    # abs: NumPy's vectorized formula, bit for bit where both fuse its multiply-add (a
    # host with FMA); NumPy's scalar loop elsewhere calls hypot, within 1 ulp of it
    assert_parts_equal(got, want, ulps=1 if fn is absolute else 0)


def to_c64(a): return a.astype(np.complex64)
def to_c128(a): return a.astype(np.complex128)
def to_f64(a): return a.astype(np.float64)
def to_f32(a): return a.astype(np.float32)
def to_bool(a): return a.astype(np.bool_)
def to_i32(a): return a.astype(np.int32)
def to_i64(a): return a.astype(np.int64)


CONVERSIONS = [(src, fn) for src in (np.complex64, np.complex128) for fn in
               (to_c64, to_c128, to_f64, to_f32, to_bool, to_i32, to_i64)] + \
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
@pytest.mark.parametrize("fn", [sort, power, complex_max])
def test_unsupported_complex_ops_are_refused_and_run_on_xla(fn, dtype):
    a, b = crandn((7,), dtype), crandn((7,), dtype)
    args = (a, b) if fn is complex_max else (a,)
    with pytest.raises(solvent.UnsupportedError, match="native"):
        solvent.jit(fn, backend="native")(*args)
    check(fn, *args, backend=None)
    jf = solvent.jit(fn)
    jf(*args)
    assert next(iter(jf._cache.values())).backend == "xla"


def c_library_functions(z):
    return (np.exp(z), np.log(z), np.sqrt(z), np.sin(z), np.cos(z), np.tan(z), np.sinh(z),
            np.cosh(z), np.tanh(z))


@pytest.mark.parametrize("dtype", DTYPES)
def test_complex_functions_of_the_c_library_give_numpys_bits(dtype):
    """exp, log, sqrt and the trigonometric and hyperbolic functions call the C library's
    cexp/clog/... as NumPy does: every bit equal, on the grid of special values (inf, nan,
    -0, huge, tiny, overflowing exponents) and random values (was refused)."""
    sp = np.array(_SPECIAL + [710.0, -745.0, 20.0])
    re, im = np.meshgrid(sp, sp)
    z = np.concatenate([(re + 1j * im).ravel(), crandn((50,), np.complex128) * 5]).astype(dtype)
    with np.errstate(all="ignore"):
        want = c_library_functions(z)
    got = solvent.jit(c_library_functions, backend="native")(z)
    bits = np.uint64 if dtype == np.complex128 else np.uint32
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        gv, wv = g.view(g.real.dtype), w.view(w.real.dtype)
        assert np.all((gv.view(bits) == wv.view(bits)) | (np.isnan(gv) & np.isnan(wv)))


def sums_and_products(z, Z):
    return (z.sum(), z.prod(), np.cumsum(z), np.cumprod(z[:5]), Z.sum(axis=0), Z.sum(axis=1),
            Z.mean(), Z.prod(axis=0, keepdims=True), np.cumsum(Z, axis=0), np.cumsum(Z, axis=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_complex_sums_and_products_run_natively(dtype):
    """Reductions and scans fold with the complex add and multiply (was refused)."""
    z, Z = crandn((9,), dtype), crandn((3, 4), dtype)
    check(sums_and_products, z, Z, backend="native")
    check(sums_and_products, z[::-2], np.asfortranarray(Z), backend="native")


def test_loop_reduction_of_complex_values():
    """A loop summing complex values is raised to a reduce_sum, natively; kept a loop, it
    is a parallel loop folding complex partial sums: refused natively, XLA runs it."""
    a = crandn((11,), np.complex128)
    check(loop_sum, a, backend="native")
    unraised = {"raise_loops": {"enabled": False}}
    with pytest.raises(solvent.UnsupportedError, match="parallel reduction of complex"):
        solvent.jit(loop_sum, backend="native", passes=unraised)(a)
    np.testing.assert_allclose(solvent.jit(loop_sum, passes=unraised)(a), loop_sum(a))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn, sa, sb", [(matmul, (64, 64), (64, 64)), (matmul, (64, 64), (64,)),
                                        (a_t, (64, 64), (64,))])
def test_automatic_choice_runs_complex_products_natively(fn, sa, sb, dtype):
    A, B = crandn(sa, dtype), crandn(sb, dtype)
    jf = solvent.jit(fn)
    jf(A, B)
    c = next(iter(jf._cache.values()))
    assert c.backend == "native", solvent.explain(jf, A, B)


def herm_mm(A, B): return A.conj().T @ B
def herm_mv(A, x): return A.conj().T @ x
def conj_mv(A, x): return A.conj() @ x          # no 'C' layout: a conjugated copy
def vec_herm(x, A): return x @ A.conj()          # vector @ conj(matrix): 'C' on gemv
def mm_conj(A, B): return A @ B.conj()           # gemm of an untransposed conj: a copy
def vdot(x, y): return np.vdot(x, y)
def herm_gram(A, B): return A.conj().T @ A       # not syrk: gemm with 'C'
def conj_twice(A, B): return A.conj() @ B + A.conj().T @ B


CONJ_PRODUCTS = [(herm_mm, (9, 7), (9, 5)), (herm_mv, (9, 7), (9,)), (conj_mv, (7, 9), (9,)),
                 (vec_herm, (7,), (7, 9)), (mm_conj, (6, 7), (7, 5)), (vdot, (13,), (13,)),
                 (herm_gram, (8, 6), (1,)), (conj_twice, (7, 7), (7, 7))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn, sa, sb", CONJ_PRODUCTS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_conjugated_products_match_numpy(fn, sa, sb, dtype):
    A, B = crandn(sa, dtype), crandn(sb, dtype)
    check(fn, A, B, backend="native")
    check(fn, np.asfortranarray(A), np.asfortranarray(B), backend="native")


@pytest.mark.parametrize("fn", [herm_mm, herm_mv, conj_mv, vec_herm])
def test_conjugated_matrix_is_never_copied(fn):
    """A conjugated matrix operand is BLAS's 'C' flag, or for gemv reading it untransposed
    the conjugated vector and result: no buffer of the matrix's size is allocated but a
    matrix result."""
    A = crandn((6, 6), np.complex128)
    other = crandn((6, 6) if fn is herm_mm else (6,), np.complex128)
    args = (other, A) if fn is vec_herm else (A, other)
    c = solvent.jit(fn, backend="native").compile(args)
    exe = c.executable
    allocated = [shape for _, shape, _ in exe._new + exe._reused]
    assert allocated.count((6, 6)) == (1 if fn is herm_mm else 0)
