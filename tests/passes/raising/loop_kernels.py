"""Small kernels written as scalar loops (the way people port from C or Fortran), for the
raising tests. ``RAISED``: kernels whose loops all become tensor ops (``time loop`` kernels
keep exactly their outer time loop), reads before a later iteration's overwrite among them.
``CARRIED``: loops with a genuine loop-carried dependence that must stay loops. Each entry: (function, args maker by size, loops left)."""
import math

import numpy as np


# --- data-parallel ---------------------------------------------------------------------------
def matmul(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            s = 0.0
            for k in range(A.shape[1]):
                s += A[i, k] * B[k, j]
            C[i, j] = s


def gemm(alpha, beta, A, B, C):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] *= beta
        for k in range(A.shape[1]):
            for j in range(C.shape[1]):
                C[i, j] += alpha * A[i, k] * B[k, j]


def matvec(A, x, y):
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        y[i] = acc


def matvec_t(A, x, y):
    for j in range(A.shape[1]):
        y[j] = 0.0
        for i in range(A.shape[0]):
            y[j] += A[i, j] * x[i]


def syrk(alpha, A, C):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            for k in range(A.shape[1]):
                C[i, j] += alpha * A[i, k] * A[j, k]


def syrk_lower(alpha, A, C):
    """The lower triangle only: ``j`` of the inner loop leaks into the ``k`` loop (a dead
    carried value), the triangle is a mask, the masked sum a dot_general."""
    for i in range(C.shape[0]):
        for k in range(A.shape[1]):
            for j in range(i + 1):
                C[i, j] += alpha * A[i, k] * A[j, k]


def batched_matmul(A, B, C):
    for b in range(A.shape[0]):
        for i in range(A.shape[1]):
            for j in range(B.shape[2]):
                s = 0.0
                for k in range(A.shape[2]):
                    s += A[b, i, k] * B[b, k, j]
                C[b, i, j] = s


def jacobi_1d(steps, A, B):
    for t in range(steps):
        for i in range(1, A.shape[0] - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, A.shape[0] - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])


def heat_2d(steps, A, B):
    for t in range(steps):
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                B[i, j] = A[i, j] + 0.125 * (A[i + 1, j] - 2.0 * A[i, j] + A[i - 1, j]) \
                    + 0.125 * (A[i, j + 1] - 2.0 * A[i, j] + A[i, j - 1])
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                A[i, j] = B[i, j]


def heat_3d(steps, A, B):
    for t in range(steps):
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                for k in range(1, A.shape[2] - 1):
                    B[i, j, k] = 0.125 * (A[i + 1, j, k] - 2.0 * A[i, j, k] + A[i - 1, j, k]) \
                        + 0.125 * (A[i, j + 1, k] - 2.0 * A[i, j, k] + A[i, j - 1, k]) \
                        + 0.125 * (A[i, j, k + 1] - 2.0 * A[i, j, k] + A[i, j, k - 1]) \
                        + A[i, j, k]
        A[:] = B


def conv1d(x, w, y):
    for i in range(y.shape[0]):
        s = 0.0
        for k in range(w.shape[0]):
            s += w[k] * x[i + k]
        y[i] = s


def conv1d_channels(x, w, y):
    """Multi-channel taps x[c, l + k]: raised into a product over the stacked windows."""
    for o in range(y.shape[0]):
        for l in range(y.shape[1]):
            s = 0.0
            for c in range(w.shape[1]):
                for k in range(w.shape[2]):
                    s += w[o, c, k] * x[c, l + k]
            y[o, l] = s


def strided_taps(x, w, y):
    """Taps x[2*i + k]: the window's start moves by 2 (static strided slices per tap)."""
    for i in range(y.shape[0]):
        s = 0.0
        for k in range(w.shape[0]):
            s += w[k] * x[2 * i + k]
        y[i] = s


def softmax_math(X, out):
    """Softmax without the max shift, by math.exp, which checks for overflow: one check
    whose code is the same in every iteration (any failing iteration reports it; the
    raised form looks for no first failure)."""
    for i in range(X.shape[0]):
        s = 0.0
        for j in range(X.shape[1]):
            e = math.exp(X[i, j])
            out[i, j] = e
            s += e
        for j in range(X.shape[1]):
            out[i, j] /= s


def exp_row_sums(img, s, out):
    """Two checks: j / s (Python floats: ZeroDivisionError when s == 0, the same in every
    iteration, so hoisted) before math.exp's overflow (per element); Python reports the
    division first."""
    for i in range(img.shape[0]):
        t = 0.0
        for j in range(img.shape[1]):
            t += math.exp(img[i, j] + j / s)
        out[i] = t


def gather_rows(x, idx, y):
    """IndexError checks whose payload (the index) differs per iteration: the inner loop's
    first failure is picked per row, then the first failing row's (a per-iteration array
    at a per-iteration index)."""
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            y[i, j] = x[idx[i, j]] * 2.0


def flat_matvec(A, x, y):
    """C-style flat offsets into ravelled storage: a[i*m + k] is delinearized to A[i, k]."""
    a = A.ravel()
    m = A.shape[1]
    for i in range(A.shape[0]):
        s = 0.0
        for k in range(m):
            s += a[i * m + k] * x[k]
        y[i] = s


def flat_overlap(A, y):
    """a[i*m + k] with k up to m: the offset runs into the next row, so it is not A[i, k]
    (stays a flat read)."""
    a = A.ravel()
    n, m = A.shape
    for i in range(n - 1):
        s = 0.0
        for k in range(m + 1):
            s += a[i * m + k] * (k + 1.0)
        y[i] = s


def conv2d(img, w, out):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            s = 0.0
            for a in range(w.shape[0]):
                for b in range(w.shape[1]):
                    s += img[i + a, j + b] * w[a, b]
            out[i, j] = s


def softmax_rows(X, out):
    for i in range(X.shape[0]):
        m = X[i, 0]
        for j in range(X.shape[1]):
            if X[i, j] > m:
                m = X[i, j]
        s = 0.0
        for j in range(X.shape[1]):
            out[i, j] = np.exp(X[i, j] - m)
            s += out[i, j]
        for j in range(X.shape[1]):
            out[i, j] = out[i, j] / s


def strided_scale(x, y):
    for i in range(y.shape[0]):
        y[i] = 2.0 * x[2 * i + 1] + i


def reverse_copy(x, y):
    n = x.shape[0]
    for i in range(n):
        y[i] = x[n - 1 - i]


def clip_if(x, y, lo, hi):
    for i in range(x.shape[0]):
        v = x[i]
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        y[i] = v


def gather_scale(x, idx, y):
    for i in range(y.shape[0]):
        y[i] = x[idx[i]] * 3.0


def int_sum_max(x, out):
    s = 0
    m = x[0]
    for i in range(x.shape[0]):
        s += x[i]
        m = max(m, x[i])
    out[0] = s
    out[1] = m


def tri_matvec(L, x, y):
    for i in range(L.shape[0]):
        s = 0.0
        for j in range(i + 1):
            s += L[i, j] * x[j]
        y[i] = s


def strict_lower(A, B):
    for i in range(A.shape[0]):
        for j in range(i):
            B[i, j] = A[i, j] * 2.0 + j


def lower_row_max(A, out):
    for i in range(1, A.shape[0]):
        m = A[i, 0]
        for j in range(1, i):
            m = max(m, A[i, j])
        out[i] = m


# --- genuine dependences --------------------------------------------------------------------
def prefix_sum(x):
    for i in range(1, x.shape[0]):
        x[i] = x[i] + x[i - 1]


def gauss_seidel_1d(steps, x):
    for t in range(steps):
        for i in range(1, x.shape[0] - 1):
            x[i] = 0.5 * (x[i - 1] + x[i + 1])


def stride_recurrence(x):
    for i in range(2, x.shape[0]):
        x[i] = x[i - 2] * 0.5 + x[i]


def affine_recurrence(x, a, b):
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] * a + b


def write_ahead(y):
    for i in range(y.shape[0] - 1):
        y[i + 1] = y[i] * 2.0 - 1.0


def scalar_recurrence(x, out):
    v = 1.0
    for i in range(x.shape[0]):
        v = v * 0.5 + x[i]
        out[i] = v


def lu_nopivot(A):
    n = A.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] = A[i, k] / A[k, k]
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]


def wavefront(D):
    for i in range(1, D.shape[0]):
        for j in range(1, D.shape[1]):
            D[i, j] = max(D[i - 1, j], D[i, j - 1]) + D[i, j]


def seidel_2d(steps, A):
    for t in range(steps):
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                A[i, j] = (A[i - 1, j] + A[i, j - 1] + A[i, j] + A[i + 1, j]
                           + A[i, j + 1]) / 5.0


def running_max(x, out):
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = max(out[i - 1], x[i])


def anti_dependence(x):
    for i in range(x.shape[0] - 1):
        x[i] = x[i + 1] + 1.0


def shift_add(a):
    # reads a[i + 1] before the next iteration overwrites it: raised, read from the array
    # as it was before the loop (a[:-1] += a[1:])
    for i in range(a.shape[0] - 1):
        a[i] += a[i + 1]


def reverse_shift(x):
    # counting down, x[i - 1] is overwritten by a later iteration: the same, mirrored
    for i in range(x.shape[0] - 1, 0, -1):
        x[i] = x[i - 1] * 2.0


def anti_2d(A):
    # both loops read ahead of their writes (A[i + 1, j] and A[i, j + 1])
    for i in range(A.shape[0] - 1):
        for j in range(A.shape[1] - 1):
            A[i, j] = A[i + 1, j] + A[i, j + 1]


def read_ahead_after_a_write(x, y):
    # x[i + 1] is read after this iteration wrote x[i]: the read takes the array as changed
    # in the body, which a batch would hold with every iteration's write: stays a loop
    for i in range(x.shape[0] - 1):
        x[i] = 2.0 * x[i]
        y[i] = x[i + 1]


def read_behind_and_ahead(x):
    # x[i + 1] alone would be read before its overwrite, x[i - 1] after: a recurrence
    for i in range(1, x.shape[0] - 1):
        x[i] = x[i - 1] + x[i + 1]


def row_prefix(A):
    for i in range(A.shape[0]):
        for j in range(1, A.shape[1]):
            A[i, j] += A[i, j - 1]


def triu_sum(A):
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i, i:].sum()      # a row tail whose length follows i
    return s


def lower_prefix_max(A, out):
    for i in range(A.shape[0]):
        out[i] = A[i, :i + 1].max()


def tail_dots(x, y, out):
    n = x.shape[0]
    for i in range(n):
        out[i] = x[i:] @ y[:n - i]


def scratch_row(A, p, out):
    """A scratch row every iteration fills anew before reading it (attention's scores): not
    a dependence; ``p`` after the loop holds the last row's values (the last iteration's)."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            p[j] = A[i, j] * A[i, j]
        s = 0.0
        for j in range(A.shape[1]):
            s += p[j]
        out[i] = s


def scratch_read_first(A, p, out):
    """The scratch row is read before it is refilled: the previous row's value flows in."""
    for i in range(A.shape[0]):
        out[i] = p[0]
        for j in range(A.shape[1]):
            p[j] = A[i, j]


# args makers: size -> tuple; sizes hold 0 (where the kernel allows), 1, and non-square
def _r(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape)


RAISED = {
    # name: (fn, args(n, m), loops left after raising)
    "matmul": (matmul, lambda n, m: (_r(n, m + 1), _r(m + 1, m), np.zeros((n, m))), 0),
    "gemm": (gemm, lambda n, m: (1.5, 0.5, _r(n, m + 2), _r(m + 2, m), _r(n, m)), 0),
    "matvec": (matvec, lambda n, m: (_r(n, m), _r(m), np.zeros(n)), 0),
    "matvec_t": (matvec_t, lambda n, m: (_r(n, m), _r(n), np.zeros(m)), 0),
    "syrk": (syrk, lambda n, m: (0.7, _r(n, m), _r(n, n)), 0),
    "syrk_lower": (syrk_lower, lambda n, m: (0.7, _r(n, m), _r(n, n)), 0),
    "batched_matmul": (batched_matmul, lambda n, m: (_r(2, n, m), _r(2, m, 3),
                                                     np.zeros((2, n, 3))), 0),
    "jacobi_1d": (jacobi_1d, lambda n, m: (3, _r(n + m + 2), _r(n + m + 2)), 1),
    "heat_2d": (heat_2d, lambda n, m: (3, _r(n + 2, m + 3), _r(n + 2, m + 3)), 1),
    "heat_3d": (heat_3d, lambda n, m: (2, _r(n + 2, m + 2, 4), _r(n + 2, m + 2, 4)), 1),
    "conv1d": (conv1d, lambda n, m: (_r(n + 3), _r(4), np.zeros(n)), 0),
    "conv1d_channels": (conv1d_channels, lambda n, m: (
        _r(m + 1, n + 2), _r(2, m + 1, 3), np.zeros((2, n))), 0),
    "strided_taps": (strided_taps, lambda n, m: (_r(2 * n + 3), _r(4), np.zeros(n)), 0),
    "softmax_math": (softmax_math, lambda n, m: (_r(n, m + 1) * 3, np.zeros((n, m + 1))), 0),
    "exp_row_sums": (exp_row_sums, lambda n, m: (_r(n, m + 1), 0.5, np.zeros(n)), 0),
    "gather_rows": (gather_rows, lambda n, m: (
        _r(m + 1), np.random.default_rng(n).integers(0, m + 1, (n, m)), np.zeros((n, m))), 0),
    "flat_matvec": (flat_matvec, lambda n, m: (_r(n, m + 1), _r(m + 1), np.zeros(n)), 0),
    "flat_overlap": (flat_overlap, lambda n, m: (_r(n + 1, m), np.zeros(n)), 0),
    "conv2d": (conv2d, lambda n, m: (_r(n + 2, m + 1), _r(3, 2), np.zeros((n, m))), 0),
    "softmax_rows": (softmax_rows, lambda n, m: (_r(n, m + 1), np.zeros((n, m + 1))), 0),
    "strided_scale": (strided_scale, lambda n, m: (_r(2 * n + 2), np.zeros(n)), 0),
    "reverse_copy": (reverse_copy, lambda n, m: (_r(n), np.zeros(n)), 0),
    "clip_if": (clip_if, lambda n, m: (_r(n * m), np.zeros(n * m), -0.5, 0.5), 0),
    "gather_scale": (gather_scale, lambda n, m: (
        _r(m + 1), np.random.default_rng(n).integers(0, m + 1, n), np.zeros(n)), 0),
    "int_sum_max": (int_sum_max, lambda n, m: (
        np.random.default_rng(n).integers(-50, 50, n + 1).astype(np.int32),
        np.zeros(2, np.int32)), 0),
    "tri_matvec": (tri_matvec, lambda n, m: (_r(n, n), _r(n), np.zeros(n)), 0),
    "strict_lower": (strict_lower, lambda n, m: (_r(n, m + 1), np.zeros((n, m + 1))), 0),
    "lower_row_max": (lower_row_max, lambda n, m: (_r(n + 1, n + 1), np.zeros(n + 1)), 0),
    "scratch_row": (scratch_row, lambda n, m: (_r(n, m), _r(m), np.zeros(n)), 0),
    # reads before a later iteration's overwrite (anti-dependences only)
    "anti_dependence": (anti_dependence, lambda n, m: (_r(n + 2),), 0),
    "shift_add": (shift_add, lambda n, m: (_r(n + 1),), 0),
    "reverse_shift": (reverse_shift, lambda n, m: (_r(n + 1),), 0),
    "anti_2d": (anti_2d, lambda n, m: (_r(n + 1, m + 1),), 0),
}

CARRIED = {
    # name: (fn, args(n, m), the words the reason must hold)
    "prefix_sum": (prefix_sum, lambda n, m: (_r(n + 1),), "previous iteration"),
    "gauss_seidel_1d": (gauss_seidel_1d, lambda n, m: (2, _r(n + 3)), "previous iteration"),
    "stride_recurrence": (stride_recurrence, lambda n, m: (_r(n + 3),), "distance 2"),
    "affine_recurrence": (affine_recurrence, lambda n, m: (_r(n + 2), 0.5, 1.0),
                          "previous iteration"),
    "write_ahead": (write_ahead, lambda n, m: (_r(n + 2),), "previous iteration"),
    "scalar_recurrence": (scalar_recurrence, lambda n, m: (_r(n + 1), np.zeros(n + 1)),
                          "recurrence"),
    "lu_nopivot": (lu_nopivot, lambda n, m: (_r(n + 2, n + 2) + 4 * np.eye(n + 2),),
                   "iteration"),
    "wavefront": (wavefront, lambda n, m: (_r(n + 2, m + 2),), "previous iteration"),
    "seidel_2d": (seidel_2d, lambda n, m: (2, _r(n + 3, m + 3)), "iteration"),
    "running_max": (running_max, lambda n, m: (_r(n + 2), np.zeros(n + 2)),
                    "previous iteration"),
    "read_ahead_after_a_write": (read_ahead_after_a_write,
                                 lambda n, m: (_r(n + 2), np.zeros(n + 2)), "anti-dependence"),
    "read_behind_and_ahead": (read_behind_and_ahead, lambda n, m: (_r(n + 3),),
                              "previous iteration"),
    "row_prefix": (row_prefix, lambda n, m: (_r(n + 1, m + 2),), "previous iteration"),
    "scratch_read_first": (scratch_read_first, lambda n, m: (_r(n + 1, m + 1), _r(m + 1),
                                                             np.zeros(n + 1)), "iteration"),
}

RUNTIME_SHAPE = {
    # loops whose body reads a slice of run-time length: no batched form, they stay loops
    "triu_sum": (triu_sum, lambda n, m: (np.asfortranarray(_r(n + 1, n + 1)),)),
    "lower_prefix_max": (lower_prefix_max, lambda n, m: (_r(n + 1, m + n + 1)[:, ::-1],
                                                         np.zeros(n + 1))),
    "tail_dots": (tail_dots, lambda n, m: (_r(n + m).astype(np.float32),
                                           _r(n + m, seed=1).astype(np.float32),
                                           np.zeros(n + m, np.float32))),
}


# --- a sequential loop inside an independent one (a time loop per element, written
# innermost, as ported from C): interchanged, the independent loops become tensor ops
def per_element_time_loop(steps, x, out):
    for i in range(x.shape[0]):
        t = x[i]
        v = 0.0
        for s in range(steps):
            v = 0.9 * v + np.sin(t)
            t = t + 0.1 * v
        out[i] = t * v


def per_element_scratch(x, out):
    for i in range(x.shape[0]):
        acc = np.zeros(4)
        acc[0] = x[i]
        for s in range(1, 4):
            acc[s] = acc[s - 1] * 0.5 + x[i]
        out[i] = acc[1] + acc[2] - acc[3]


def row_recurrences(x, y):
    for i in range(y.shape[0]):
        for s in range(1, y.shape[1]):
            y[i, s] = y[i, s - 1] * 0.5 + x[i]


def triangular_time_loop(x, out):
    for i in range(x.shape[0]):
        t = x[i]
        for s in range(i):
            t = t * 0.5 + 1.0
        out[i] = t


def row_to_row(y):
    for i in range(y.shape[0] - 1):
        for s in range(1, y.shape[1]):
            y[i + 1, s] = y[i, s - 1] * 0.5 + y[i + 1, s]


def nearest_centre(X, C, labels):
    # the inner loop computes a vector per iteration (a distance over the coordinates):
    # interchanged, it would be materialized for every point; the nest stays as written
    for p in range(X.shape[0]):
        best = 0
        bestd = 0.0
        for c in range(C.shape[0]):
            d = np.sum((X[p] - C[c]) ** 2)
            if c == 0 or d < bestd:
                bestd = d
                best = c
        labels[p] = best


RAISED.update({
    "per_element_time_loop": (per_element_time_loop, lambda n, m: (
        3, _r(n * m + 1), np.zeros(n * m + 1)), 1),
    "per_element_scratch": (per_element_scratch, lambda n, m: (_r(n + m), np.zeros(n + m)), 1),
    "row_recurrences": (row_recurrences, lambda n, m: (_r(n), _r(n, m + 1)), 1),
})
CARRIED.update({
    "triangular_time_loop": (triangular_time_loop, lambda n, m: (_r(n + 1), np.zeros(n + 1)),
                             "differs between iterations"),
    "row_to_row": (row_to_row, lambda n, m: (_r(n + 1, m + 2),), "iteration"),
    "nearest_centre": (nearest_centre, lambda n, m: (_r(n + 2, 3), _r(m, 3),
                                                     np.zeros(n + 2, np.int64)),
                       "computes arrays in its body"),
})
