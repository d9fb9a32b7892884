"""Matrix products that read a window of an array where it lies (``rules_linalg.blas_window``:
BLAS gets the window's row stride as its leading dim, a gemv's vector its stride) compared
with NumPy at edge shapes, float32 and float64, C-ordered, Fortran-ordered and strided
arguments, on the native backend and under the automatic choice (backend None)."""
import numpy as np
import pytest

import solvent
from differential import assert_same_value, check


def windows(x, y, v):
    n, m = x.shape[1] - 2, x.shape[0] // 3
    return (x[:, 1:n + 1] @ y[:n, :],          # a column window: ld = x's row length
            x[1:, :].T @ x[:-1, :],             # a transposed window
            x[::2, :] @ y,                      # every other row: ld = twice the row length
            x[:, 2:] @ v[2:n + 2],              # gemv on a window, a vector window
            v[::3][:m] @ x[:3 * m:3, :],        # a strided vector times every third row
            x[1:, :] @ x[0, :],                 # a row of the same array as the vector
            x[:, 1:].T @ x[:, 0])               # a column (stride: the row length)


def conv_taps(x, w):
    # a window moving with the loop index (dynamic start), accumulated
    K = w.shape[2]
    L = x.shape[1] - K + 1
    out = np.zeros((w.shape[0], L), dtype=x.dtype)
    for k in range(K):
        out += w[:, :, k] @ x[:, k:k + L]
    return out


def column_products(A, b):
    # a column of A (stride = row length) as gemv's vector, and a window written between
    # two products that read A: the second product must see the write
    r = A[:, 1:] @ A[1, 1:]
    A[:, 0] = r
    return A[:, :3] @ b[:3], r


# the automatic choice (backend None) at one shape per dtype: it compiles what native does
@pytest.mark.parametrize("dtype,shape,backend", [
    (d, s, "native") for d in (np.float64, np.float32)
    for s in ((12, 9), (40, 33), (6, 2))] + [
    (np.float64, (12, 9), None), (np.float32, (9, 12), None)])
def test_products_of_windows(dtype, shape, backend):
    r = np.random.default_rng(sum(shape))
    x = r.standard_normal(shape).astype(dtype)
    y = r.standard_normal((shape[1], 7)).astype(dtype)
    v = r.standard_normal(shape[1] * 3).astype(dtype)
    for arg in (x, np.asfortranarray(x), np.repeat(x, 2, axis=1)[:, ::2]):
        check(windows, arg, y, v, backend=backend)


@pytest.mark.parametrize("dtype,length,backend", [
    (d, n, "native") for d in (np.float64, np.float32) for n in (7, 8, 60, 300)] + [
    (np.float64, 60, None)])
def test_a_window_moving_with_the_loop(dtype, length, backend):
    r = np.random.default_rng(length)
    x = r.standard_normal((16, length)).astype(dtype)
    w = r.standard_normal((5, 16, 7)).astype(dtype)
    check(conv_taps, x, w, backend=backend)
    # the loop kept a loop (raising would batch these small products into one): each step
    # reads its window of x in place
    kept = solvent.jit(conv_taps, backend=backend, passes={"raise_loops": {"enabled": False}})
    for arg in (x, np.asfortranarray(x)):
        assert_same_value(kept(arg, w), conv_taps(arg, w), "conv_taps, loop kept")


def test_stacked_windows_read_in_place():
    """The loop twin conv1d_loops, raised: the windows x[:, k:k + L] stacked as (c, k, L)
    for one product; at this length each window (16 x 1 x 294) is read in place by the
    stacking (bufferize: a slice of at least VIEW_MIN elements fused into its
    concatenation), also from a strided x."""
    from solvent.corpus import conv1d, conv1d_loops
    x, w, b = conv1d_loops.make_args(300, np.random.default_rng(3))
    want = conv1d.kernel(x, w, b)   # the vectorized twin: the loops in Python take seconds
    f = solvent.jit(conv1d_loops.kernel, backend="native")
    for arg in (x, np.repeat(x, 2, axis=1)[:, ::2]):
        np.testing.assert_allclose(f(arg, w, b), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(30, 20), (4, 5), (20, 30)])
def test_column_vectors_and_a_write_between_products(dtype, shape):
    r = np.random.default_rng(shape[0])
    A = r.standard_normal(shape).astype(dtype)
    b = r.standard_normal(3).astype(dtype)
    for backend in ("native", None):
        check(column_products, A, b, backend=backend)
        check(column_products, np.asfortranarray(A), b, backend=backend)


def empty_windows(x, y):
    return x[:, :0] @ y[:0, :], x[:0, :] @ y, x[:, 1:1] @ y[1:1, 0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_empty_and_one_element_windows(dtype):
    r = np.random.default_rng(1)
    x = r.standard_normal((40, 30)).astype(dtype)
    y = r.standard_normal((30, 40)).astype(dtype)
    for backend in ("native", None):
        check(empty_windows, x, y, backend=backend)
        check(windows, r.standard_normal((1, 3)).astype(dtype),
              r.standard_normal((3, 7)).astype(dtype), r.standard_normal(9).astype(dtype),
              backend=backend)
