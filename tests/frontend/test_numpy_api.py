"""Differential tests: reductions, array creation, shape manipulation and joining."""
import numpy as np
import pytest

import solvent

from differential import case, check, run_cases

rng = np.random.default_rng(2)
A = rng.standard_normal((3, 4))
A3 = rng.standard_normal((2, 3, 4))
I = rng.integers(-9, 9, (3, 4))
I32 = I.astype(np.int32)
B = A > 0
F32 = A.astype(np.float32)
V = rng.standard_normal(5)
W = rng.standard_normal(5)
SQ = rng.standard_normal((4, 4))
TIES = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
NANS = np.array([1.0, np.nan, 3.0])
BIG_NANS = rng.random((300, 300))  # large enough for XLA:CPU's YNNPACK reductions
BIG_NANS[7, 11] = np.nan


# --- reductions --------------------------------------------------------------------------------
def red_full(X):
    return X.sum(), X.prod(), X.max(), X.min(), X.mean(), X.argmax(), X.argmin()


def red_full_fn(X):
    return (np.sum(X), np.prod(X), np.max(X), np.min(X), np.mean(X), np.argmax(X),
            np.argmin(X), np.amax(X), np.amin(X))


def red_axis0(X):
    return X.sum(axis=0), X.prod(0), X.max(axis=0), X.min(0), X.mean(axis=0), X.argmax(0), \
        X.argmin(axis=0)


def red_axis_neg(X):
    return X.sum(axis=-1), np.max(X, axis=-1), np.mean(X, -1), np.argmax(X, axis=-1)


def red_axis_tuple(X):
    return X.sum(axis=(0, 2)), np.max(X, axis=(1, 2)), X.mean(axis=(0, -1)), \
        X.min(axis=(0, 1, 2))


def red_axis_none(X):
    return np.sum(X, axis=None), X.max(axis=None), np.mean(X, axis=None)


def red_keepdims(X):
    return (X.sum(axis=1, keepdims=True), np.max(X, axis=0, keepdims=True),
            X.mean(keepdims=True), np.min(X, axis=(0, 1), keepdims=True))


def red_argmax_keepdims(X):
    return np.argmax(X, axis=1, keepdims=True), X.argmin(axis=0, keepdims=True)


def red_any_all(X):
    return (X.any(), X.all(), np.any(X > 0, axis=0), np.all(X > -5, axis=1),
            (X > 0).any(axis=-1), np.all(X > 0, keepdims=True))


def red_bool_array(Bm):
    return Bm.sum(), Bm.any(), Bm.all(axis=0), np.sum(Bm, axis=1), Bm.mean()


def red_int(X):
    return X.sum(), X.prod(), X.max(axis=0), X.mean(), X.sum(axis=1), np.cumsum(X)


def red_std_var(X):
    return (X.std(), X.var(), np.std(X, axis=0), np.var(X, axis=1, ddof=1),
            X.std(ddof=1), np.var(X, axis=0, keepdims=True), X.std(axis=-1, ddof=1))


def red_std_int(X):
    return X.std(), np.var(X, axis=0)


def red_cumsum(X):
    return np.cumsum(X), X.cumsum(axis=0), np.cumsum(X, axis=1), np.cumprod(X, axis=1), \
        X.cumsum(axis=-1)


def red_dtype_arg(X):
    return X.sum(dtype=np.float32), np.sum(X, axis=0, dtype=np.int32)


def red_ties(X):
    return X.argmax(), X.argmax(axis=1), X.argmin(axis=0), X.argmin()


def red_nan(X):
    return X.max(), X.min(), X.sum(), np.argmax(X)


def red_nan_axes(X):
    return X.max(axis=0), np.min(X, axis=1), np.max(np.abs(X - 0.5)), X[:100, :100].min()


def red_empty(E):
    return E.sum(), E.prod(), E.any(), E.all(), E.sum(axis=0)


def red_ufunc_methods(X):
    return np.add.reduce(X), np.multiply.reduce(X, axis=1), np.maximum.reduce(X, axis=0), \
        np.add.accumulate(X, axis=1)


def running_extremes(X, k):
    # running max/min (drawdown-style code): NaN propagates forward; int8 and bool keep
    # their dtype; axis=-1; a 1-D value whose length is known only at run time (native)
    return (np.maximum.accumulate(X), np.minimum.accumulate(X, axis=-1),
            np.maximum.accumulate(k), np.minimum.accumulate(k > 0),
            X[0] - np.maximum.accumulate(X[0]))


def running_max_of_mask(x):
    return np.maximum.accumulate(x[x > 0])


# --- creation ----------------------------------------------------------------------------------
def create_basic(X):
    n, m = X.shape
    return (np.zeros((n, m)), np.ones(m), np.zeros(n, dtype=np.int32), np.ones((2, 3), np.bool_),
            np.full((n, 2), 7), np.full((2, 2), 7.5), np.full(3, 2, dtype=np.float32),
            np.zeros((0, 3)))


def create_like(X):
    return (np.zeros_like(X), np.ones_like(X), np.full_like(X, 3), np.full_like(X, 0.5),
            np.zeros_like(X, dtype=np.int64), np.ones_like(X, dtype=bool))


def create_empty(X):
    return np.empty((3, 2))


def create_empty_like(X):
    return np.empty_like(X)


def create_empty_dtype(X):
    return np.empty(4, dtype=np.int32)


def create_arange(X):
    return (np.arange(5), np.arange(2, 7), np.arange(1, 10, 3), np.arange(5, 0, -1),
            np.arange(0.0, 1.0, 0.25), np.arange(4, dtype=np.float32), np.arange(X.shape[1]))


def create_arange_arg(n):
    return np.arange(n) * 2


def create_zeros_arg(n, m):
    return np.zeros((n, m)), np.ones(n, dtype=np.int8)


def create_linspace(X):
    return (np.linspace(0, 1, 5), np.linspace(-1.0, 1.0, 4, endpoint=False),
            np.linspace(0, 10, 6, dtype=np.int64), np.linspace(2, 3, 1), np.linspace(0, 1))


def create_linspace_args(a, b):
    return np.linspace(a, b, 7)


def create_eye(X):
    return np.eye(3), np.eye(3, 4, k=1), np.eye(4, k=-2), np.eye(2, dtype=np.int32), \
        np.identity(3)


def create_copy(X):
    Y = X.copy()
    Z = np.copy(X)
    W2 = np.array(X)
    Y[0, 0] = 100.0
    Z[1, 1] = -100.0
    W2[2, 2] = 7.0
    return X, Y, Z, W2


def create_from_list(x, X):
    return np.array([1.0, x, X[0, 0]]), np.array([[1, 2], [3, 4]]), np.array([x, x * 2]), \
        np.array([X[0], X[1]])


def create_array_dtype(X):
    return np.array(X, dtype=np.float32), np.asarray(X, dtype=np.int64)


# --- attributes and shape manipulation ----------------------------------------------------------
def attrs(X):
    return X.shape, X.ndim, X.size, X.dtype, X.T.shape, X.shape[-1], X.dtype.itemsize


def transposes(X):
    return X.T, np.transpose(X), X.transpose(), X.T.T


def transposes3(X):
    return X.transpose(1, 0, 2), np.transpose(X, (2, 0, 1)), X.T, X.transpose((0, 2, 1))


def reshapes(X):
    return X.reshape(4, 3), X.reshape(-1), X.reshape((2, -1)), np.reshape(X, (3, 2, 2)), \
        X.reshape(-1, 1), X.reshape(12)


def flatten_ravel(X):
    return X.flatten(), X.ravel(), np.ravel(X), X.T.flatten(), X.T.ravel()


def astypes(X):
    return X.astype(np.int32), X.astype(np.float32), X.astype(bool), X.astype(np.float64), \
        X.astype("int64")


def astype_copy(X):
    Y = X.astype(np.float64)
    Y[0, 0] = 99.0
    return Y


def concats(X, Y):
    return (np.concatenate((X, Y)), np.concatenate([X, Y], axis=1), np.concatenate((X, Y), axis=-1),
            np.concatenate((X, Y), axis=None))


def concat_1d(v, w):
    return np.concatenate((v, w, v)), np.hstack((v, w)), np.vstack((v, w)), np.stack((v, w)), \
        np.stack((v, w), axis=1), np.stack([v, w], axis=-1)


def concat_mixed_dtype(X, J):
    return np.concatenate((X, J)), np.vstack((J, X)), np.hstack((J, J))


def stacks_2d(X, Y):
    return np.stack((X, Y)), np.stack((X, Y), axis=2), np.hstack((X, Y)), np.vstack((X, Y))


def flips(X):
    return np.flip(X), np.flip(X, axis=0), np.flip(X, 1), np.fliplr(X), np.flipud(X), \
        np.flip(X, axis=(0, 1))


def repeats(X):
    return np.repeat(X, 2), np.repeat(X, 2, axis=1), X.repeat(3, axis=0), np.tile(X, 2), \
        np.tile(X, (2, 1))


def tri(X):
    return np.triu(X), np.tril(X), np.triu(X, 1), np.tril(X, -1), np.triu(X, k=-1)


def newaxis_ellipsis(X, v):
    return X[:, np.newaxis], v[np.newaxis, :], v[:, None] * v[None, :], X[..., 0], X[0, ...], \
        X[None, ..., None].shape


def outers(v, w):
    return np.add.outer(v, w), np.multiply.outer(v, w), np.subtract.outer(v, w), \
        np.multiply.outer(v[:2], np.ones((2, 3)))


def rolls(X, v):
    return np.roll(v, 2), np.roll(v, -1), np.roll(X, 1, axis=1), np.roll(X, -1, axis=0), \
        np.roll(X, 5), np.roll(v, 7)


def diags(v, X, S):
    return np.diag(v), np.diag(v, k=1), np.diag(v, -2), np.diag(X), np.diag(X, k=-1), \
        np.diag(S, 1), np.trace(S), S.trace()


def squeezes(X):
    Y = X.reshape(1, 3, 1, 4)
    return np.squeeze(Y), Y.squeeze(), np.squeeze(Y, axis=0), np.expand_dims(X, 0), \
        np.expand_dims(X, -1), np.broadcast_to(X[0], (2, 4))


def where_scalars(X):
    return np.where(X > 0, 1.0, -1.0), np.where(X > 0, X, 0), np.where(True, X, 0)


cases = [
    case(red_full, A),
    case(red_full, I, id="red_full_int"),
    case(red_full, F32, id="red_full_f32"),
    case(red_full_fn, A),
    case(red_axis0, A),
    case(red_axis_neg, A),
    case(red_axis_tuple, A3),
    case(red_axis_none, A),
    case(red_keepdims, A),
    case(red_argmax_keepdims, A),
    case(red_any_all, A),
    case(red_bool_array, B),
    case(red_int, I32),
    case(red_int, I, id="red_int64"),
    case(red_int, I.astype(np.int8), id="red_int8"),
    case(red_std_var, A),
    case(red_std_var, F32, id="red_std_var_f32"),
    case(red_std_int, I),
    case(red_cumsum, A),
    case(red_cumsum, I32, id="red_cumsum_int32"),
    case(red_dtype_arg, I),
    case(red_ties, TIES),
    case(red_nan, NANS),
    case(red_nan, BIG_NANS, id="red_nan_large"),
    case(red_nan_axes, BIG_NANS),
    case(red_empty, np.zeros((0, 3))),
    case(red_ufunc_methods, A),
    case(running_extremes, np.array([[1.0, np.nan, 3.0, 0.5], [2.0, 0.0, -1.0, 4.0]]),
         np.array([3, -7, 5, 9, -2], dtype=np.int8)),
    case(running_extremes, np.asfortranarray(A), np.zeros(0, dtype=np.int8), id="running_f"),
    case(create_basic, A),
    case(create_like, A),
    case(create_like, I32, id="create_like_int32"),
    case(create_empty, A, shapes_only=True),
    case(create_empty_like, F32, shapes_only=True),
    case(create_empty_dtype, A, shapes_only=True),
    case(create_arange, A),
    case(create_arange_arg, 6),
    case(create_zeros_arg, 2, 3),
    case(create_linspace, A),
    case(create_linspace_args, -1.0, 2.0),
    case(create_linspace_args, 0, 3, id="create_linspace_int_args"),
    case(create_eye, A),
    case(create_copy, A),
    case(create_from_list, 2.5, A),
    case(create_array_dtype, A),
    case(attrs, A),
    case(transposes, A),
    case(transposes3, A3),
    case(reshapes, A),
    case(flatten_ravel, A),
    case(astypes, A * 3),
    case(astype_copy, A),
    case(concats, A, -A),
    case(concat_1d, V, W),
    case(concat_mixed_dtype, A, I),
    case(stacks_2d, A, -A),
    case(flips, A),
    case(repeats, A),
    case(tri, SQ),
    case(tri, A, id="tri_rect"),
    case(newaxis_ellipsis, A, V),
    case(outers, V, W[:3].copy()),
    case(rolls, A, V),
    case(diags, V, A, SQ),
    case(squeezes, A),
    case(where_scalars, A),
]

test_numpy_api = run_cases(cases)


@pytest.mark.parametrize("backend", ["native", "interp", None])
def test_running_max_of_a_run_time_length(backend):
    check(running_max_of_mask, np.array([0.5, -1.0, 2.0, 1.0, -3.0, 4.0]), backend=backend)


def test_running_max_refusals_name_the_line():
    def scalar(v):
        return np.maximum.accumulate(v)

    def complex_values(z):
        return np.minimum.accumulate(z)
    with pytest.raises(TypeError, match=r"test_numpy_api.py:\d+:\d+: cannot accumulate"):
        solvent.jit(scalar)(2.0)
    with pytest.raises(solvent.UnsupportedError, match=r"test_numpy_api.py:\d+:\d+: .*complex"):
        solvent.jit(complex_values)(np.ones(3, np.complex128))


# --- one jitted function, many specializations -------------------------------------------------------
def shape_from_arg(n, x):
    out = np.zeros((n, 2))
    out[:, 0] = x
    return out, np.arange(n).sum()


def shape_from_flag(X, flag):
    if flag:
        Y = X[:2]
    else:
        Y = X
    return Y * 2


def generic_kernel(X, s):
    acc = X * 0
    for i in range(X.shape[0]):
        acc[i] = X[i] * s + i
    return acc, acc.sum()


def test_respecialization(backend):
    from differential import assert_same_value, jitted
    f = jitted(shape_from_arg, backend)
    for n, x in ((2, 1.5), (3, 2.5), (2, -1.0), (0, 1.0)):
        assert_same_value(f(n, x), shape_from_arg(n, x), f"shape_from_arg({n})")
    g = jitted(shape_from_flag, backend)
    for flag in (True, False, True):
        assert_same_value(g(A, flag), shape_from_flag(A, flag), f"shape_from_flag({flag})")
    h = jitted(generic_kernel, backend)
    for X, s in ((A, 2.0), (F32, 2.0), (I, 3), (I32, np.int32(2)), (A[:2].copy(), 1),
                 (F32, np.float32(0.5))):
        assert_same_value(h(X.copy(), s), generic_kernel(X.copy(), s),
                          f"generic_kernel({X.dtype}{X.shape}, {type(s).__name__})")


def _repeat_axes(x):
    return np.repeat(x, 3, axis=0), np.repeat(x, 2, axis=1), np.repeat(x, 0, axis=2), \
        np.repeat(x, 4)


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.complex64, np.bool_])
def test_repeat_with_an_int_count_on_every_axis(dtype):
    x = (np.arange(2 * 3 * 4) % 5).astype(dtype).reshape(2, 3, 4)
    check(_repeat_axes, x, backend="xla")
    check(_repeat_axes, np.zeros((0, 1, 2), dtype), backend="xla")


def _arg_of_tail(x, k):
    if k > 100:
        return x[:0].argmax()           # an empty argmax on a path not taken: no error
    return x[k:].argmin() + x[:k + 1].argmax(axis=0)


def _arg_in_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i:].argmax() - x[:i + 1].argmin()


@pytest.mark.parametrize("backend", ["native", "interp", "xla"])
def test_argmax_of_run_time_length_and_of_an_empty_slice_raise_where_numpy_does(backend):
    """argmax/argmin of a slice whose length is known only at run time (x[k:] with a
    run-time k) check for emptiness where they run, as NumPy raises; an empty static one
    raises only where it is reached. Both crashed the compiler before."""
    import solvent
    x = np.array([3, -1, 7, 7, 2], np.int8)
    f = solvent.jit(_arg_of_tail, backend=backend)
    for k in (0, 2, 4):
        assert f(x, k) == _arg_of_tail(x, k)
    for k in (5, 200):
        with pytest.raises(ValueError, match="empty sequence"):
            _arg_of_tail(x, k)
        with pytest.raises(ValueError, match=r"empty sequence"):
            f(x, k)


@pytest.mark.parametrize("backend", ["interp", None])
@pytest.mark.parametrize("n", [1, 6])
def test_argmax_of_slices_whose_length_follows_the_loop(backend, n):
    x = np.random.default_rng(n).standard_normal(2 * n)[::2]
    check(_arg_in_loop, x, np.zeros(n, np.int64), backend=backend)


def _arg_axes_of_tail(A, k, out):
    B = A[k:]
    out[:] = B.argmax(axis=0) + B.argmin(axis=0)
    return B.argmax(axis=1, keepdims=True).sum() + np.argmax(B) + \
        np.argmin(B, axis=0, keepdims=True).sum()


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("k", [0, 2, 4])
def test_argmax_along_an_axis_of_run_time_length(backend, k):
    A = np.asfortranarray(np.random.default_rng(k).standard_normal((5, 3)).astype(np.float32))
    check(_arg_axes_of_tail, A, k, np.zeros(3, np.int64), backend=backend)


def _where_one_argument(x, A):
    idx = np.where(x > 0)[0]
    r, c = np.where(A)
    return idx, x[idx].sum(), r, c


@pytest.mark.parametrize("backend", ["native", "interp", None])
@pytest.mark.parametrize("n", [1, 7])
def test_where_with_one_argument_is_nonzero(backend, n):
    rng = np.random.default_rng(n)
    check(_where_one_argument, rng.standard_normal(n)[::-1],
          np.asfortranarray(rng.integers(0, 2, (n, 3)).astype(np.int8)), backend=backend)


def test_where_with_one_argument_on_xla_is_refused_naming_the_line():
    import solvent
    with pytest.raises(solvent.UnsupportedError, match=r"test_numpy_api.py:\d+"):
        solvent.jit(_where_one_argument, backend="xla")(np.ones(3), np.ones((2, 2)))


def running_extremes_1d(x):
    return np.maximum.accumulate(x), np.minimum.accumulate(x[::-1])


@pytest.mark.parametrize("backend", ["xla", "native", "interp"])
def test_running_extremes_keep_numpys_zero_signs_and_nans(backend):
    """np.maximum(m, v) gives v of two equal values (-0.0, +0.0), and NaN sticks: the running
    value's NaNs are NumPy's, element for element, and so are its zero signs except on XLA
    (lax.cummax picks among equal zeros its own way: the README's documented max/min of
    equal zeros)."""
    x = np.array([-0.0, 0.0, -0.0, 1.0, np.nan, 5.0, -np.inf], dtype=np.float32)
    got = solvent.jit(running_extremes_1d, backend=backend)(x)
    for g, e in zip(got, running_extremes_1d(x)):
        np.testing.assert_array_equal(g, e)
        if backend != "xla":
            np.testing.assert_array_equal(np.signbit(g), np.signbit(e))


def _expanded(x, A):
    return (np.expand_dims(x, (0, 2)), np.expand_dims(x, (-1, 0)), np.expand_dims(x, (1, -1)),
            np.expand_dims(A, (0, 3)), np.expand_dims(A, (-2, 1)), np.expand_dims(A, -1))


def test_expand_dims_with_several_axes_places_them_in_the_result(backend):
    """The axes are positions in the result: np.expand_dims(x, (0, 2)) of a 1-D x is
    (1, n, 1) (it was (1, 1, n): a silent wrong shape)."""
    check(_expanded, np.arange(3.0), np.ones((2, 3), np.float32, order="F"), backend=backend)
    with pytest.raises(ValueError, match="repeated axis"):
        solvent.jit(expand_repeated)(np.ones(2))
    with pytest.raises(np.exceptions.AxisError):
        solvent.jit(expand_out_of_range)(np.ones(2))


def expand_repeated(x):
    return np.expand_dims(x, (0, 0))


def expand_out_of_range(x):
    return np.expand_dims(x, 3)
