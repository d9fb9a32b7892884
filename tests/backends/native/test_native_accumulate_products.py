"""``acc + A @ B`` written into acc's buffer is one gemm with beta = 1 on the native backend
(``accumulate_products.py``); compared with NumPy where the rule applies and where it must
not (the accumulator read by the product or between the two, read again later, a Gram
matrix), f32/f64, edge shapes, C/Fortran/strided arguments, native and auto."""
import numpy as np
import pytest

import solvent
from differential import assert_same_value, check


def update_argument(C, A, B):
    C += A @ B                      # the caller's C: computed in place


def carried(x, w):
    L = x.shape[1] - w.shape[2] + 1
    out = np.zeros((w.shape[0], L), dtype=x.dtype)
    for k in range(w.shape[2]):
        out += w[:, :, k] @ x[:, k:k + L]
    return out


def carried_read_twice(x, w):
    L = x.shape[1] - w.shape[2] + 1
    out = np.zeros((w.shape[0], L), dtype=x.dtype)
    t = 0.0
    for k in range(w.shape[2]):
        p = w[:, :, k] @ x[:, k:k + L]
        t += out[0, 0]          # the accumulator read between the product and the add
        out += p
    return out, t


def scaled_update(C, A, B):
    C *= 1.2                        # fused into the add: C's buffer does not hold C * 1.2
    C += 1.5 * A @ B


def reads_itself(C, B):
    C += C @ B                      # the product reads the accumulator: a temporary
    return C


def read_between(C, A, B):
    P = A @ B
    s = C.sum()                     # reads C after the product, before the add
    C += P
    return s


def read_after(C, A, B):
    D = C + A @ B                   # C is still read below: not summed into C's buffer
    return D, C * 2.0


def gram_plus(C, X):
    C += X.T @ X                    # X.T @ X is a syrk alone; summed into C, a gemm


def window_of_accumulator(C, B):
    C += C[:, :B.shape[0]] @ B      # the product reads a window of the accumulator





@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mkn", [(30, 20, 25), (9, 1, 9), (2, 300, 2), (1, 40, 40),
                                 (40, 40, 1), (0, 5, 5), (64, 64, 64)])
@pytest.mark.parametrize("backend", ["native"])
def test_sums_into_the_accumulator(dtype, mkn, backend):
    m, k, n = mkn
    r = np.random.default_rng(m * 7 + k + n)
    C = r.standard_normal((m, n)).astype(dtype)
    A = r.standard_normal((m, k)).astype(dtype)
    B = r.standard_normal((k, n)).astype(dtype)
    for c, a in ((C, A), (np.asfortranarray(C), np.asfortranarray(A)),
                 (np.repeat(C, 2, axis=1)[:, ::2], A[::-1])):
        check(update_argument, c, a, B, backend=backend)
        check(scaled_update, c, a, B, backend=backend)
        check(read_between, c, a, B, backend=backend)
        check(read_after, c, a, B, backend=backend)
        if m == n:
            check(reads_itself, c, B[:n, :n] if k >= n else
                  r.standard_normal((n, n)).astype(dtype), backend=backend)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(30, 12), (12, 30), (1, 1), (0, 4)])
def test_gram_matrix_summed_and_windows_of_the_accumulator(dtype, shape):
    r = np.random.default_rng(shape[0] + 1)
    X = r.standard_normal(shape).astype(dtype)
    C = r.standard_normal((shape[1], shape[1])).astype(dtype)
    B = r.standard_normal((max(shape[1] - 1, 0), shape[1])).astype(dtype)
    for backend in ("native", None):
        check(gram_plus, C, X, backend=backend)
        check(gram_plus, C, np.asfortranarray(X), backend=backend)
        check(window_of_accumulator, C, B, backend=backend)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("length", [7, 60, 300])
def test_a_carried_accumulator(dtype, length):
    r = np.random.default_rng(length)
    x = r.standard_normal((16, length)).astype(dtype)
    w = r.standard_normal((5, 16, 7)).astype(dtype)
    for backend in ("native", None):
        for fn in (carried, carried_read_twice):
            check(fn, x, w, backend=backend)
            kept = solvent.jit(fn, backend=backend, passes={"raise_loops": {"enabled": False}})
            assert_same_value(kept(x, w), fn(x, w), f"{fn.__name__}, loop kept")
