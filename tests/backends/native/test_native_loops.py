"""C-style scalar loops through the native backend, each compared with plain NumPy on the
same source (``differential.check``): sweeps, scans, while loops, integer wraparound,
float32, non-contiguous inputs and tiny sizes."""
import numpy as np
import pytest

from differential import check


def gauss_seidel(A, b, sweeps):
    n = A.shape[0]
    x = np.zeros(n)
    for s in range(sweeps):
        for i in range(n):
            acc = b[i]
            for j in range(n):
                if j != i:
                    acc -= A[i, j] * x[j]
            x[i] = acc / A[i, i]
    return x


def prefix_sum(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


def gcd_all(a, b):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        while y != 0:
            x, y = y, x % y
        out[i] = x
    return out


def floyd(d):
    n = d.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i, k] + d[k, j] < d[i, j]:
                    d[i, j] = d[i, k] + d[k, j]


def wrap_sum(x):
    acc = x[0]
    for i in range(1, x.shape[0]):
        acc = acc * x[i] + x[i]
    return acc


def int_ops(a, b):
    out = np.zeros(a.shape[0], dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i] // b[i] + a[i] % b[i] - (a[i] << 1)
    return out


def float_divmod(a, b):
    q = np.zeros_like(a)
    r = np.zeros_like(a)
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
    return q, r


def scale_inplace(A, s):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] = A[i, j] * s + i - j


def swap_rows(A):
    for i in range(A.shape[0] // 2):
        t = A[i, :].copy()
        A[i, :] = A[A.shape[0] - 1 - i, :]
        A[A.shape[0] - 1 - i, :] = t
    return A.sum()


def countdown(n):
    total = 0
    for i in range(n, 0, -2):
        total += i
    return total


def negative_index(x):
    s = 0.0
    for i in range(1, x.shape[0] + 1):
        s += x[-i] * i
    return s


def math_mix(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = np.sqrt(abs(v)) + np.exp(-v * v) + np.tanh(v) + np.floor(v) + max(v, 0.5)
    return out


def whole_array_ops(A, B):
    for t in range(3):
        A[1:-1, :] = 0.5 * (A[:-2, :] + B[2:, :]) - np.maximum(A[1:-1, :], 0.25)
        B[:, 0] = A.sum(axis=1)
    return A.max(), B.min(axis=0)


rng = np.random.default_rng(7)
M = rng.random((12, 12)) + 12 * np.eye(12)

CASES = [
    pytest.param(gauss_seidel, (M, rng.random(12), 5), id="gauss_seidel"),
    pytest.param(prefix_sum, (rng.random(50),), id="prefix_sum"),
    pytest.param(prefix_sum, (rng.random(50).astype(np.float32),), id="prefix_sum_f32"),
    pytest.param(prefix_sum, (np.zeros(0),), id="prefix_sum_size0"),
    pytest.param(prefix_sum, (np.ones(1),), id="prefix_sum_size1"),
    pytest.param(gcd_all, (rng.integers(1, 10**6, 40), rng.integers(1, 10**6, 40)), id="gcd_while"),
    pytest.param(floyd, (rng.random((9, 9)) * 10,), id="floyd_warshall"),
    pytest.param(wrap_sum, (rng.integers(-128, 127, 30, dtype=np.int8),), id="int8_wraparound"),
    pytest.param(wrap_sum, (rng.integers(0, 255, 30, dtype=np.uint8),), id="uint8_wraparound"),
    pytest.param(int_ops, (np.array([7, -7, 7, -7, 0, 5, -9223372036854775808]),
                           np.array([2, 2, -2, -2, 3, 0, -1])), id="int_floordiv_mod_signs"),
    pytest.param(int_ops, (np.array([7, 250, 3], dtype=np.uint8),
                           np.array([2, 0, 7], dtype=np.uint8)), id="uint8_floordiv_mod"),
    pytest.param(float_divmod, (np.array([7.5, -7.5, 7.5, -7.5, 1.0, 0.0, -3.0]),
                                np.array([2.0, 2.0, -2.0, -2.0, 0.0, 3.0, 3.0])),
                 id="float_floordiv_mod"),
    pytest.param(scale_inplace, (np.asfortranarray(rng.random((5, 7))), 2.5), id="fortran_order"),
    pytest.param(scale_inplace, (rng.random((10, 14))[::2, ::3], 2.5), id="strided"),
    pytest.param(swap_rows, (rng.random((7, 4)),), id="row_swap_copies"),
    pytest.param(countdown, (11,), id="negative_step"),
    pytest.param(negative_index, (rng.random(6),), id="negative_index_wraps"),
    pytest.param(math_mix, (rng.standard_normal(20),), id="math_functions"),
    pytest.param(whole_array_ops, (rng.random((6, 5)), rng.random((6, 5))), id="array_ops_in_loop"),
]


@pytest.mark.parametrize("fn, args", CASES)
def test_matches_numpy(fn, args):
    check(fn, *args, backend="native")


def matmuls(a, b, v):
    return a @ b, a.T @ b, a @ b.T, v @ a, a @ v, v @ v, a.T @ v, v @ a.T


def batched(x, y):
    return x @ y


def tiny_loop_dots(A, x):
    y = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        y[i] = A[i, :] @ x
    return y


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("n", [3, 40])
def test_matrix_products(dtype, n):
    r = np.random.default_rng(n)
    # positive floats (no cancellation: float32 results stay within the comparison's rtol)
    make = (lambda *s: r.random(s).astype(dtype)) if np.dtype(dtype).kind == "f" else \
        (lambda *s: r.integers(-9, 9, s).astype(dtype))
    a, b, v = make(n, n), make(n, n), make(n)
    check(matmuls, a, b, v, backend="native")


def test_batched_and_in_loop_products():
    r = np.random.default_rng(3)
    check(batched, r.random((3, 20, 30)), r.random((3, 30, 10)), backend="native")
    check(tiny_loop_dots, r.random((6, 5)), r.random(5), backend="native")


def shift_in_place(x):
    for t in range(3):
        x[1:] = x[:-1] + 1.0
    return x[::-1] + x


def reversed_sum(x):
    y = x * 2.0
    return y[::-1] + y


def arg_extremes(x):
    return np.argmax(x), np.argmin(x, axis=0), np.argmax(x, axis=1)


def structural(a, b):
    c = np.concatenate((a, b), axis=1)
    return np.triu(c, 1), np.tril(c), np.flip(c, 0), np.repeat(a, 2, axis=0), np.linspace(0.0, 1.0, 7)


def test_fused_reads_never_see_their_own_in_place_writes():
    check(shift_in_place, np.arange(9.0), backend="native")
    check(reversed_sum, np.arange(9.0), backend="native")


def test_argmax_argmin_first_occurrence_and_nan():
    x = np.array([[1.0, 5.0, 5.0], [np.nan, 2.0, 0.0], [3.0, np.nan, -1.0], [3.0, 1.0, -1.0]])
    check(arg_extremes, x, backend="native")
    check(arg_extremes, np.array([[2, 7, 7], [7, 1, 1]]), backend="native")


def test_structural_ops():
    r = np.random.default_rng(5)
    check(structural, r.random((4, 3)), r.random((4, 2)), backend="native")


def fancy(x, i, j):
    return x[i, :], x[:, j], x[i, j], x[i[:, None], j[None, :]]


def test_gather_and_its_index_errors():
    r = np.random.default_rng(9)
    x = r.random((5, 6))
    check(fancy, x, np.array([0, 4, -1, 2]), np.array([5, 0, -6, 1]), backend="native")
    with pytest.raises(IndexError):
        import solvent
        solvent.jit(fancy, backend="native")(x, np.array([0, 5, 1, 1]), np.array([0, 1, 2, 3]))


def branchy(x, y, t):
    n = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            y[i] = x[i] - t
            n += 1
        elif x[i] < -t:
            y[i] = y[i - 1] + x[i]
        else:
            y[:] = y * 0.5   # a whole-array write in one branch
    return n, y.sum()


def branch_keeps_old(x):
    z = x + 0.0
    total = 0.0
    for i in range(z.shape[0]):
        s = z.sum()
        if z[i] > 0.0:
            z = z * 2.0
        else:
            z[i] = -1.0
        total += s + z[i]
    return total, z


def test_branches_over_large_arrays_update_in_place_correctly():
    # arrays above if-conversion's size limit keep their loop.if
    r = np.random.default_rng(11)
    check(branchy, r.standard_normal(300), np.zeros(300), 0.8, backend="native")
    check(branch_keeps_old, r.standard_normal(100), backend="native")


def transposed_products(a, b, v):
    return a.T @ v, np.transpose(a) @ b, b @ a.T, a.T @ b.T, (a.T + 1.0) @ v


def test_products_of_transposes():
    r = np.random.default_rng(12)
    check(transposed_products, r.random((30, 30)), r.random((30, 30)), r.random(30),
          backend="native")
    check(transposed_products, r.random((3, 3)), r.random((3, 3)), r.random(3), backend="native")


def gram_products(x, alpha):
    y = x[:, 1:]
    g = x.T @ x
    g += alpha      # written in place between the two products that read x.T
    return g, x.T @ x[:, 0], x @ x.T, alpha * np.dot(y.T, y) + 1.0, x.T @ x.T.T


def symmetric_products(a, b):
    return a.T @ b + b.T @ a, (a.T @ b) - (b.T @ a).T


@pytest.mark.parametrize("dtype,shape", [(np.float64, s) for s in
                                         [(30, 20), (20, 30), (1, 12), (12, 1), (2, 2)]] +
                         [(np.float32, (20, 30)), (np.float32, (12, 1))])
def test_gram_and_symmetric_products(dtype, shape):
    # X^T X (BLAS syrk on one triangle, the other copied) and A^T B + B^T A (one product and
    # its transpose): C- and Fortran-ordered and strided operands
    r = np.random.default_rng(sum(shape))
    x = r.random(shape).astype(dtype)
    for arg in (x, np.asfortranarray(x), np.repeat(x, 2, axis=0)[::2]):
        check(gram_products, arg, 0.5, backend="native")
        check(symmetric_products, arg, r.random(shape).astype(dtype), backend="native")
        check(symmetric_products, arg, r.random(shape).astype(dtype), backend="xla")



def gram(x):
    return x.T @ x, x @ x.T


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(0, 9), (9, 0), (1, 1), (1, 40), (40, 1), (70, 33),
                                   (33, 70)])
@pytest.mark.parametrize("backend", ["native", None])
def test_gram_matrix_is_exactly_symmetric(dtype, shape, backend):
    # syrk computes one triangle (row-major upper, as NumPy's own call) and the other is
    # copied across: the result is symmetric to the bit, as NumPy's, for C, Fortran,
    # strided and reversed operands; backend None: the automatic choice
    r = np.random.default_rng(sum(shape) + 3)
    x = r.standard_normal(shape).astype(dtype)
    for arg in (x, np.asfortranarray(x), np.repeat(x, 2, axis=1)[:, ::2], x[::-1]):
        g, h = check(gram, arg, backend=backend)
        assert np.array_equal(g, g.T) and np.array_equal(h, h.T)

def matvec_pairs(A, p, r):
    s = r @ A                 # a column product and a row product of one matrix: one pass
    q = A @ p
    u = A.T @ r + 1.0         # a column product spelled through a transpose
    w = A @ (s * 2.0)         # its vector needs an earlier product: not paired early
    return s, q, u, w


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(515, 513), (513, 515), (6, 5)])
def test_two_products_of_one_matrix_in_one_pass(dtype, shape):
    r = np.random.default_rng(shape[0])
    A = r.random(shape).astype(dtype)
    p, v = r.random(shape[1]).astype(dtype), r.random(shape[0]).astype(dtype)
    for a in (A, np.asfortranarray(A)):
        check(matvec_pairs, a, p, v, backend="native")


def special_floats(x):
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        y[i] = max(x[i], -np.inf) if x[i] == x[i] else np.nan
    return y, np.isnan(y).sum()


def bool_arrays(m, x):
    c = 0
    for i in range(m.shape[0]):
        if m[i] and x[i] > 0.0:
            c += 1
    return c, m & (x > 0.5)


def test_nan_inf_constants_and_bool_arrays():
    check(special_floats, np.array([1.0, np.nan, -2.0]), backend="native")
    check(bool_arrays, np.array([True, False, True, True]), np.array([1.0, 2.0, -1.0, 0.7]),
          backend="native")


def extremes(x):
    return x.max(), x.min(), x.max(axis=0), x.min(axis=1, keepdims=True), x.sum(), x.prod(axis=1)


def test_reductions_propagate_nan():
    r = np.random.default_rng(13)
    x = r.random((7, 9))
    check(extremes, x, backend="native")
    x[3, 4] = np.nan
    check(extremes, x, backend="native")
    check(extremes, np.array([[-0.0, 0.0], [np.inf, -np.inf]]), backend="native")
    check(extremes, r.integers(-50, 50, (5, 6)), backend="native")


def arg_extremes_keep(x):
    return (np.argmax(x, axis=0, keepdims=True), np.argmin(x, axis=1, keepdims=True),
            np.argmin(x), x.argmax(axis=-1))


def arg_of_masked(x):
    y = x[x > 0.25]                        # a run-time length
    return np.argmax(y), np.argmin(y)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint8", "int64", "uint64"])
@pytest.mark.parametrize("seed", range(4))
def test_argmax_argmin_two_pass_matches_numpy(dtype, seed):
    """The extreme first, then the first index holding it: ties, NaN anywhere, signed zeros,
    the dtype's own extremes, Fortran order and one-element axes."""
    r = np.random.default_rng(seed)
    shape = [(5, 7), (1, 9), (6, 1), (40, 33)][seed]
    if dtype.startswith("float"):
        x = r.choice(np.array([-0.0, 0.0, 1.5, -1.5, np.inf, -np.inf, 2.0]), size=shape)
        if seed % 2:
            x[r.integers(0, shape[0], 2), r.integers(0, shape[1], 2)] = np.nan
        x = x.astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = r.choice(np.array([info.min, info.max, 0, 1, 3], dtype=dtype), size=shape)
    check(arg_extremes, x, backend="native")
    check(arg_extremes_keep, np.asfortranarray(x), backend="native")


def test_argmax_of_a_run_time_length():
    r = np.random.default_rng(2)
    check(arg_of_masked, r.random(50), backend="native")
    check(arg_of_masked, np.array([0.5, np.nan, 0.9, np.nan]), backend="native")


def scalar_new_axes(x, t):
    # a scalar given axes (np.linalg.matrix_rank's tol[..., np.newaxis]): once fused into an
    # elementwise op, once kept as its own array
    a = np.asarray(t)[..., np.newaxis]
    return x > a, x * np.asarray(t)[np.newaxis], (x + np.float64(t)[None, None]).sum(), a


@pytest.mark.parametrize("t", [0.5, 2])
def test_a_scalar_given_new_axes(t):   # was an internal error natively ('LoadInstr' ... ptr)
    check(scalar_new_axes, np.linspace(0, 1, 5), t, backend="native")
