"""The items of issue 14 ("real NumPy code compiles"), one entry per bullet item, each a
kernel written the way a stranger writes it and the arguments it is called with: scalar
arguments before arrays, Fortran-ordered and strided arrays, int8 / float32 / complex64
where the item takes them, sizes 0 and 1 where NumPy accepts them, and two ordinary sizes.

``ITEMS``: [(bullet, item, kernel, [args, ...])]. ``benchmarks/issue14_sweep.py`` runs
every case on every backend and under automatic choice against plain NumPy on the same
source.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg
import scipy.linalg.lapack

R = np.random.default_rng(14)


def F(a):
    """Fortran-ordered copy."""
    return np.asfortranarray(a)


def S(a):
    """A strided view (every other element along the first axis) with ``a``'s values."""
    big = np.zeros((2 * a.shape[0],) + a.shape[1:], a.dtype)
    big[::2] = a
    return big[::2]


def vec(n, dt=np.float64):
    x = R.random(n) * 4 - 2
    if np.dtype(dt).kind == "c":
        x = x + 1j * R.random(n)
    return x.astype(dt)


def mat(n, m, dt=np.float64):
    x = R.random((n, m)) * 4 - 2
    if np.dtype(dt).kind == "c":
        x = x + 1j * R.random((n, m))
    return x.astype(dt)


def ints(n, hi, dt=np.int64):
    return R.integers(0, hi, n).astype(dt)


def spd(n):
    a = R.random((n, n))
    return a @ a.T + n * np.eye(n)


# --- iteration over something other than range --------------------------------------------
def it_first_axis(data):
    s = 0.0
    for b in data:
        s += b.sum() * 0.5
    return s


def it_points(w, points):
    best = 1e300
    for z in points:
        d = math.sqrt(z[0] * z[0] + z[1] * z[1]) * w
        best = min(best, d)
    return best


def it_enumerate(x):
    s = 0.0
    for i, v in enumerate(x):
        s += i * v
    return s


def it_zip(a, b):
    s = 0.0
    for u, v in zip(a, b):
        s += u * v
    return s


def it_rows_written(c, A):
    for row in A:
        row[0] = row[-1] * c
        row *= 2


# --- builtins on scalars --------------------------------------------------------------------
def bi_max_min(a, b, x):
    return max(a, b), min(a, b, x[0]), max(x[0], x[-1] + a)


def bi_abs_round(a, x):
    return abs(a - x[0]), round(x[0] * 3.0), round(a, 2), abs(-3)


def bi_len(x):
    return len(x) + len(x.shape)


def bi_int_float_bool(a, x):
    return int(x[0] * 10.0), float(a), bool(x[-1] > 0), int(a)


def bi_divmod(a, x):
    q, r = divmod(a, 3)
    return q, r, divmod(x[0], 0.75)


def bi_sum_tuple(a, x):
    return sum((a, x[0], x[-1])), sum((1, 2, 3))


def bi_dp_max(table, x):
    n, m = table.shape
    for i in range(1, n):
        for j in range(1, m):
            table[i, j] = max(table[i, j], table[i, j - 1] + abs(x[j] - x[j - 1]))
    return table[n - 1, m - 1]


# --- slicing and tuple idioms ---------------------------------------------------------------
def sl_none_stop(a):
    return a[:None] * 2.0


def sl_computed_none(k, x):
    return x[: -1 + k or None].sum()


def sl_negative_runtime(d):
    out = np.zeros(2)
    for ip in range(2):
        out[ip] = d[1 + ip:-2 + ip].sum()
    return out


def sl_shape_compare(a, b):
    assert a.shape == b.shape and a.ndim == 2
    return a.shape == b.shape, a.shape != b.shape, (a + b).sum()


# --- nested functions -----------------------------------------------------------------------
def nested_def(x):
    scale = 0.25
    width = 3

    def taper(v):
        return v * scale / width

    return taper(x) + taper(x[::-1])


# --- scipy solvers --------------------------------------------------------------------------
def sp_dgtsv(dl, d, du, b):
    return scipy.linalg.lapack.dgtsv(dl, d, du, b)


def sp_solve_banded(ab, b):
    return scipy.linalg.solve_banded((1, 1), ab, b)


def sp_solve_triangular(a, b):
    return scipy.linalg.solve_triangular(a, b, lower=True)


def tridiag(n):
    return vec(n - 1), vec(n) + 5.0, vec(n - 1), vec(n)


def band(n):
    ab = R.random((3, n))
    ab[1] += 4.0
    return ab, vec(n)


# --- assert, import, lambdas, functions as arguments ----------------------------------------
def as_assert(x):
    assert x[0] > 0.0, "x[0] must be positive"
    return x * 2.0


def as_import(x):
    import numpy as np
    return np.sqrt(np.abs(x)).sum()


def as_lambda(x):
    sq = lambda v: v * v + 1.0   # noqa: E731
    return sq(x).sum()


def _cube(v):
    return v * v * v


def as_fn_arg(f, x):
    return f(x).sum()


# --- NumPy API in daily use -----------------------------------------------------------------
def np_mgrid(n, w):
    y, x = np.mgrid[0:n, 0:2 * n]
    return np.exp(-(x * x + y * y) * w)


def np_ogrid(n):
    y, x = np.ogrid[0:n, 0:n + 1]
    return x + 10 * y


def np_meshgrid(x, y):
    X, Y = np.meshgrid(x, y)
    return X * Y


def np_indices(n):
    i, j = np.indices((n, n + 1))
    return i * 3 - j


def np_ndarray(x):
    out = np.ndarray(x.shape, np.float64)
    out[...] = x * 2
    return out


def np_empty_order(x):
    out = np.empty(x.shape, dtype=x.dtype, order="F")
    out[:] = x + 1
    return out


def np_average(x, w):
    return np.average(x, weights=w), np.average(x)


def np_cov(x):
    return np.cov(x), np.corrcoef(x)


def np_histogram(x):
    return np.histogram(x, bins=5)


def np_bincount_minlength(x):
    return np.bincount(x, minlength=12)


def np_bincount(x):
    return np.bincount(x)


def np_bincount_weights(x, w):
    return np.bincount(x, weights=w)


def np_searchsorted(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, v, side="right")


def np_diff(x):
    return np.diff(x), np.diff(x, n=2)


def np_cumsum_axis(A):
    return np.cumsum(A, axis=0), np.cumsum(A, axis=1)


def np_sort(x):
    return np.sort(x), np.argsort(x, kind="stable")


def np_unique(x):
    return np.unique(x, return_counts=True)


def np_unique_axis(A):
    return np.unique(A, axis=0)


def np_unique_axis_all(A):
    return np.unique(A, axis=1, return_index=True, return_inverse=True, return_counts=True)


def np_convolve(x, k):
    return np.convolve(x, k), np.convolve(x, k, mode="same")


def np_interp(x, xp, fp):
    return np.interp(x, xp, fp)


def np_trace(A):
    return np.trace(A), np.trace(A, offset=1)


def np_kron(a, b):
    return np.kron(a, b)


def np_eigh(A):
    w, v = np.linalg.eigh(A)
    return w, np.abs(v)


def np_svd(A):
    return np.linalg.svd(A, compute_uv=False)


def np_qr(A):
    q, r = np.linalg.qr(A)
    return np.abs(q), np.abs(r)


def np_lstsq(A, b):
    return np.linalg.lstsq(A, b, rcond=None)[0]


def np_matrix_power(A):
    return np.linalg.matrix_power(A, 3)


def np_fft(x):
    return np.fft.fft(x), np.fft.ifft(x), np.fft.rfft(x.real)


def np_pad(x):
    return np.pad(x, 2), np.pad(x, (1, 2), mode="edge")


def np_take(x, idx):
    return np.take(x, idx)


def np_put(x, idx, v):
    np.put(x, idx, v)


def np_take_along_axis(A):
    return np.take_along_axis(A, np.argsort(A, axis=1), axis=1)


def np_isclose(a, b):
    return np.isclose(a, b), np.allclose(a, b)


def np_count_nonzero(x):
    return np.count_nonzero(x)


def np_nan_to_num(x):
    return np.nan_to_num(x)


def np_complex_helpers(z):
    return np.real(z), np.imag(z), np.conj(z), np.abs(z), np.angle(z), np.angle(z, deg=True)


def np_random_inside(x):
    return x + np.random.random(x.shape)


# --- lengths from scalars and shapes --------------------------------------------------------
def len_linspace(n, a):
    return np.linspace(0.0, a, n)


def len_arange(n):
    return np.arange(n) * 2


def len_shape_alloc(x):
    out = np.zeros(x.shape[0] + 1)
    out[1:] = np.cumsum(x)
    return out


def len_reshape(x):
    return x.reshape(-1, 2).sum(axis=1)


# --- indexing values whose length is known only at run time ---------------------------------
def rt_index_by_array(x, idx):
    y = x[x > 0.0]
    return y[idx]


def rt_index_by_mask(x):
    y = x[x > 0.0]
    return y[y > 1.0]


def rt_store_by_mask(x):
    y = x[x > 0.0]
    y[y > 1.0] = 0.0
    x[0] = y.sum()
    return y


def rt_store_by_array(x, idx):
    y = x[x > -1.0]
    y[idx] = -5.0
    return y


def nan_vec(n):
    x = vec(n)
    x[::3] = np.nan
    x[1::5] = np.inf
    return x


def sizes(f):
    """Arguments for sizes 0, 1 and two ordinary sizes (where ``f(n)`` accepts them)."""
    return [f(n) for n in (0, 1, 7, 40)]


ITEMS = [
    ("iteration", "for b in data (first axis)", it_first_axis,
     [(mat(3, 4),), (F(mat(5, 2)),), (mat(0, 3),), (mat(1, 1).astype(np.float32),),
      (S(mat(6, 3)),), (ints(9, 9, np.int8).reshape(3, 3),)]),
    ("iteration", "for z in points", it_points,
     [(0.5, mat(4, 2)), (2, F(mat(9, 2))), (1.0, mat(1, 2).astype(np.float32))]),
    ("iteration", "enumerate(x)", it_enumerate,
     sizes(lambda n: (vec(n),)) + [(ints(6, 100, np.int8),), (S(vec(5)),)]),
    ("iteration", "zip(a, b)", it_zip,
     sizes(lambda n: (vec(n), vec(n + 2))) + [(vec(4, np.complex64), vec(4, np.complex64)),
                                             (S(vec(3)), ints(3, 5, np.int8))]),
    ("iteration", "for row in A: row written through", it_rows_written,
     [(1.5, mat(3, 4)), (2, F(mat(5, 3))), (0.5, mat(1, 1)), (1.0, mat(0, 4)),
      (3, ints(12, 9, np.int8).reshape(3, 4)), (1.0, S(mat(4, 2)))]),
    ("builtins", "max / min", bi_max_min,
     [(1.0, 2.5, vec(3)), (3, 2, vec(5)), (1, 2.0, vec(1, np.float32)),
      (1, 2, ints(4, 9, np.int8)), (300, -2, ints(4, 9, np.int8)),
      (0.1, 3, vec(2, np.float32))]),
    ("builtins", "abs / round", bi_abs_round,
     [(1.5, vec(3)), (2, vec(1, np.float32)), (-3, ints(3, 9, np.int8).astype(np.float64))]),
    ("builtins", "len", bi_len, sizes(lambda n: (vec(n),)) + [(F(mat(3, 2)),)]),
    ("builtins", "int / float / bool", bi_int_float_bool,
     [(1.5, vec(3)), (3, vec(2, np.float32)), (True, vec(1))]),
    ("builtins", "divmod", bi_divmod, [(7, vec(3)), (-7, vec(2)), (7.5, vec(1, np.float32))]),
    ("builtins", "sum over a small tuple", bi_sum_tuple, [(1.5, vec(3)), (2, vec(1))]),
    ("builtins", "max(table[i, j], table[i, j-1] + f(x))", bi_dp_max,
     [(mat(4, 5), vec(5)), (F(mat(9, 12)), vec(12)), (mat(1, 1), vec(1)),
      (mat(3, 3).astype(np.float32), vec(3, np.float32))]),
    ("slicing", "a[:None]", sl_none_stop, sizes(lambda n: (vec(n),)) + [(S(vec(4)),)]),
    ("slicing", "x[: -1 + k or None]", sl_computed_none,
     [(1, vec(5)), (0, vec(5)), (3, vec(9)), (1, vec(0)), (2, ints(5, 9, np.int8))]),
    ("slicing", "d[1 + ip:-2 + ip] (negative run-time stop)", sl_negative_runtime,
     [(vec(5),), (vec(30),), (S(vec(8)),), (vec(3),)]),
    ("slicing", "a.shape == b.shape is a Python bool, in assert ... and ...",
     sl_shape_compare, [(mat(2, 3), mat(2, 3)), (F(mat(4, 1)), mat(4, 1)),
                        (mat(0, 2), mat(0, 2))]),
    ("nested def", "def taper(x) inside the kernel", nested_def,
     sizes(lambda n: (vec(n),)) + [(vec(3, np.complex64),), (S(vec(5)),)]),
    ("scipy", "scipy.linalg.lapack.dgtsv", sp_dgtsv, [tridiag(2), tridiag(9), tridiag(40)]),
    ("scipy", "scipy.linalg.solve_banded", sp_solve_banded, [band(1), band(6), band(40)]),
    ("scipy", "scipy.linalg.solve_triangular", sp_solve_triangular,
     [(np.tril(spd(n)), vec(n)) for n in (1, 5, 30)] + [(F(np.tril(spd(4))), mat(4, 2))]),
    ("assert/import/lambda", "assert on run-time values", as_assert,
     [(np.abs(vec(4)) + 0.1,), (-np.abs(vec(4)) - 0.1,), (np.ones(1, np.float32),)]),
    ("assert/import/lambda", "import numpy as np in the body", as_import,
     sizes(lambda n: (vec(n),))),
    ("assert/import/lambda", "small lambda", as_lambda,
     sizes(lambda n: (vec(n),)) + [(vec(3, np.complex64),)]),
    ("assert/import/lambda", "function passed as an argument", as_fn_arg,
     [(_cube, vec(5)), (np.sin, vec(7)), (_cube, ints(4, 5, np.int8))]),
    ("NumPy API", "np.mgrid", np_mgrid, [(1, 0.1), (5, 0.2), (16, 0.05)]),
    ("NumPy API", "np.ogrid", np_ogrid, [(1,), (4,), (9,)]),
    ("NumPy API", "np.meshgrid", np_meshgrid,
     [(vec(3), vec(4)), (vec(1), vec(6)), (S(vec(5)), vec(2, np.float32))]),
    ("NumPy API", "np.indices", np_indices, [(1,), (3,), (10,)]),
    ("NumPy API", "np.ndarray(shape, dtype)", np_ndarray,
     [(mat(2, 3),), (F(mat(4, 4)),), (ints(0, 3, np.int8),)]),
    ("NumPy API", "np.empty(..., order=)", np_empty_order,
     [(mat(2, 3),), (S(mat(6, 4)),), (ints(5, 9, np.int8),), (mat(1, 1, np.complex64),)]),
    ("NumPy API", "np.average", np_average,
     [(vec(3), np.abs(vec(3)) + 0.1), (vec(20), np.abs(vec(20)) + 0.1),
      (S(vec(4)), np.abs(vec(4, np.float32)) + 0.1)]),
    ("NumPy API", "np.cov / np.corrcoef", np_cov,
     [(mat(3, 5),), (F(mat(2, 30)),), (mat(4, 6, np.float32),)]),
    ("NumPy API", "np.histogram", np_histogram,
     sizes(lambda n: (vec(n),))[1:] + [(np.ones(5),), (vec(10, np.float32),)]),
    ("NumPy API", "np.bincount(minlength=)", np_bincount_minlength,
     sizes(lambda n: (ints(n, 12),)) + [(ints(8, 12, np.int8),)]),
    ("NumPy API", "np.bincount without minlength", np_bincount,
     sizes(lambda n: (ints(n, 2 * n + 1),)) + [(ints(8, 12, np.int8),), (S(ints(6, 4)),)]),
    ("NumPy API", "np.bincount(weights=) without minlength", np_bincount_weights,
     [(ints(n, n + 3), vec(n)) for n in (0, 1, 9, 40)] + [(ints(5, 4, np.int8),
                                                             vec(5, np.float32))]),
    ("NumPy API", "np.searchsorted", np_searchsorted,
     [(np.sort(vec(n)), vec(m)) for n, m in ((1, 3), (8, 5), (40, 12))] +
     [(np.arange(6, dtype=np.int8), ints(4, 8, np.int8))]),
    ("NumPy API", "np.diff", np_diff,
     sizes(lambda n: (vec(n),))[2:] + [(ints(6, 9, np.int8),), (F(mat(3, 5)),)]),
    ("NumPy API", "np.cumsum(axis=)", np_cumsum_axis,
     [(mat(3, 4),), (F(mat(7, 2)),), (ints(12, 99, np.int8).reshape(3, 4),),
      (mat(0, 3),), (mat(2, 2, np.complex64),)]),
    ("NumPy API", "np.sort / np.argsort", np_sort,
     sizes(lambda n: (vec(n),)) + [(nan_vec(9),), (ints(7, 5, np.int8),), (S(vec(6)),)]),
    ("NumPy API", "np.unique (run-time length)", np_unique,
     sizes(lambda n: (ints(n, 5).astype(np.float64),)) + [(nan_vec(9),),
                                                          (ints(7, 4, np.int8),)]),
    ("NumPy API", "np.unique(axis=0)", np_unique_axis,
     [(ints(n * 2, 3).reshape(n, 2),) for n in (1, 6, 40)] +
     [(F(ints(12, 2).reshape(4, 3).astype(np.float64)),), (ints(6, 2, np.int8).reshape(3, 2),)]),
    ("NumPy API", "np.unique(axis=1, return_*)", np_unique_axis_all,
     [(ints(n * 3, 2).reshape(3, n),) for n in (1, 5, 30)] +
     [(ints(8, 2, np.int8).reshape(2, 4),)]),
    ("NumPy API", "np.convolve", np_convolve,
     [(vec(n), vec(3)) for n in (3, 10, 50)] + [(vec(5, np.float32), vec(2, np.float32))]),
    ("NumPy API", "np.interp", np_interp,
     [(vec(m), np.sort(vec(n)), vec(n)) for n, m in ((1, 3), (6, 10), (40, 7))]),
    ("NumPy API", "np.trace", np_trace,
     [(mat(3, 3),), (F(mat(4, 6)),), (ints(9, 9, np.int8).reshape(3, 3),),
      (mat(2, 2, np.complex64),), (mat(1, 1),)]),
    ("NumPy API", "np.kron", np_kron,
     [(mat(2, 2), mat(3, 1)), (vec(4), vec(2)), (F(mat(3, 2)), mat(2, 2, np.float32))]),
    ("NumPy API", "np.linalg.eigh", np_eigh, [(spd(1),), (spd(4),), (spd(20),)]),
    ("NumPy API", "np.linalg.svd", np_svd, [(mat(3, 3),), (mat(5, 2),), (F(mat(20, 7)),)]),
    ("NumPy API", "np.linalg.qr", np_qr, [(mat(3, 3),), (mat(6, 2),), (F(mat(20, 7)),)]),
    ("NumPy API", "np.linalg.lstsq", np_lstsq,
     [(mat(5, 3), vec(5)), (F(mat(20, 4)), vec(20)), (mat(3, 3), mat(3, 2))]),
    ("NumPy API", "np.linalg.matrix_power", np_matrix_power,
     [(mat(1, 1),), (mat(4, 4),), (F(mat(9, 9)),), (ints(9, 3, np.int8).reshape(3, 3),)]),
    ("NumPy API", "np.fft.fft / ifft / rfft", np_fft,
     sizes(lambda n: (vec(n),))[1:] + [(vec(8, np.complex64),), (S(vec(6)),)]),
    ("NumPy API", "np.pad", np_pad,
     sizes(lambda n: (vec(n),))[1:] + [(ints(4, 9, np.int8),), (F(mat(3, 2)),)]),
    ("NumPy API", "np.take", np_take,
     [(vec(5), ints(3, 5)), (vec(30), ints(12, 30)), (ints(6, 9, np.int8), np.array([-1, 0]))]),
    ("NumPy API", "np.put (in place)", np_put,
     [(vec(5), ints(3, 5), vec(3)), (vec(30), ints(6, 30), 2.0),
      (F(mat(3, 4)), np.array([0, 5, 11]), vec(3))]),
    ("NumPy API", "np.take_along_axis", np_take_along_axis,
     [(mat(3, 4),), (F(mat(7, 2)),), (ints(6, 9, np.int8).reshape(2, 3),)]),
    ("NumPy API", "np.isclose / np.allclose", np_isclose,
     [(vec(n), vec(n)) for n in (0, 1, 9)] + [(np.ones(4), np.ones(4) + 1e-10),
                                              (nan_vec(5), nan_vec(5))]),
    ("NumPy API", "np.count_nonzero", np_count_nonzero,
     sizes(lambda n: (ints(n, 3),)) + [(F(mat(3, 3) > 0),), (vec(4, np.complex64),)]),
    ("NumPy API", "np.nan_to_num", np_nan_to_num,
     [(nan_vec(n),) for n in (0, 1, 9, 40)] + [(nan_vec(6).astype(np.float32),)]),
    ("NumPy API", "complex helpers (real, imag, conj, abs, angle)", np_complex_helpers,
     [(vec(n, np.complex128),) for n in (0, 1, 9)] + [(vec(5, np.complex64),), (vec(4),),
                                                        (ints(3, 5, np.int8),)]),
    ("NumPy API", "np.random inside a kernel (refused)", np_random_inside, [(vec(3),)]),
    ("lengths", "np.linspace with a scalar-argument length", len_linspace,
     [(0, 1.0), (1, 2.0), (7, 3.0), (50, 1.0)]),
    ("lengths", "np.arange with a scalar-argument length", len_arange, [(0,), (1,), (9,)]),
    ("lengths", "x.shape[0]-driven allocation", len_shape_alloc,
     sizes(lambda n: (vec(n),)) + [(ints(5, 9, np.int8),)]),
    ("lengths", "reshape with -1", len_reshape,
     [(vec(2 * n),) for n in (0, 1, 5, 20)] + [(F(mat(4, 2)),)]),
    ("run-time lengths", "a run-time-length value indexed by an integer array",
     rt_index_by_array,
     [(np.abs(vec(n)) + 0.1, ints(3, n)) for n in (1, 8, 40)] +
     [(np.abs(vec(6)) + 0.1, np.array([-1, 0, -2])), (S(np.abs(vec(5)) + 0.1), ints(0, 5))]),
    ("run-time lengths", "a run-time-length value indexed by a boolean mask",
     rt_index_by_mask, sizes(lambda n: (vec(n),)) + [(S(vec(9)),), (vec(6, np.float32),)]),
    ("run-time lengths", "a run-time-length value written through a boolean mask",
     rt_store_by_mask, sizes(lambda n: (vec(n) + 0.5,)) + [(vec(8, np.float32),)]),
    ("run-time lengths", "a run-time-length value written through an integer array",
     rt_store_by_array, [(vec(n) * 0.1, ints(2, n)) for n in (1, 8, 40)]),
]
