"""Loop kernels for the dependence tests: plain NumPy-style Python, as people write it.

Each entry of ``CARRIED``, ``INDEPENDENT`` and ``REDUCTIONS`` is
``(kernel, make_args(rng), expected)`` where ``expected`` lists, per loop in program order,
``(loop variable, classification, word that must appear in the reason)``.
"""
import numpy as np

N = 9


# --- genuine loop-carried dependences ----------------------------------------------------------
def prefix_inplace(x):
    for i in range(1, x.shape[0]):
        x[i] += x[i - 1]


def gauss_seidel(A):
    n = A.shape[0]
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            A[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])


def stride2_recurrence(x, y):
    for i in range(2, x.shape[0]):
        x[i] = x[i - 2] + y[i]


def writes_next(x, y):
    for i in range(x.shape[0] - 1):
        x[i + 1] = 0.5 * x[i] + y[i]


def forward_substitution(L, b, x):
    for i in range(b.shape[0]):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]


def fibonacci_swap(out):
    a = 0.0
    b = 1.0
    for i in range(out.shape[0]):
        a, b = b, a + b
        out[i] = a


def reversed_read_ahead(x, y):
    for i in range(x.shape[0] - 2, -1, -1):
        x[i] = x[i + 1] + y[i]


def shift_left_inplace(x):
    for i in range(x.shape[0] - 1):
        x[i] = 2.0 * x[i + 1]


def linear_recurrence(a, b, out):
    s = 1.0
    for i in range(a.shape[0]):
        s = s * a[i] + b[i]
        out[i] = s


def column_scan(Y):
    for j in range(1, Y.shape[1]):
        Y[:, j] += Y[:, j - 1]


def last_value(x, last):
    for i in range(x.shape[0]):
        last[0] = x[i]


def reverse_inplace(x):
    n = x.shape[0]
    for i in range(n):
        x[n - 1 - i] = x[i]


def scatter_through_index(x, idx, y):
    for i in range(idx.shape[0]):
        x[idx[i]] = x[i] + y[i]


def histogram(h, idx):
    for i in range(idx.shape[0]):
        h[idx[i]] += 1.0


def time_steps(A, B):
    n = A.shape[0]
    for t in range(3):
        for i in range(1, n - 1):
            B[i] = 0.5 * (A[i - 1] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = B[i]


def repeated_fill(A, B):
    for t in range(3):
        for i in range(A.shape[0]):
            for j in range(A.shape[1]):
                B[i, j] = A[i, j] * 2.0


def lu_inplace(A):
    n = A.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] = A[i, k] / A[k, k]
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]


def mirror_negative(x):
    for i in range(x.shape[0]):
        x[i] = 0.5 * x[-i]


def _rand(shape, rng):
    return rng.random(shape) + 0.5


CARRIED = [
    (prefix_inplace, lambda r: (_rand(N, r),), [("i", "carried", "x[i-1]")]),
    (gauss_seidel, lambda r: (_rand((N, N), r),),
     [("i", "carried", "A["), ("j", "carried", "A[")]),
    (stride2_recurrence, lambda r: (_rand(N, r), _rand(N, r)),
     [("i", "carried", "distance 2")]),
    (writes_next, lambda r: (_rand(N, r), _rand(N, r)), [("i", "carried", "x[i]")]),
    (forward_substitution,
     lambda r: (np.tril(_rand((N, N), r)) + N * np.eye(N), _rand(N, r), np.zeros(N)),
     [("i", "carried", "x["), ("j", "reduction", "sum")]),
    (fibonacci_swap, lambda r: (np.zeros(N),), [("i", "carried", "carried")]),
    (reversed_read_ahead, lambda r: (_rand(N, r), _rand(N, r)), [("i", "carried", "x[i+1]")]),
    (shift_left_inplace, lambda r: (_rand(N, r),), [("i", "carried", "anti-dependence")]),
    (linear_recurrence, lambda r: (_rand(N, r), _rand(N, r), np.zeros(N)),
     [("i", "carried", "recurrence")]),
    (column_scan, lambda r: (_rand((N, N), r),), [("j", "carried", "Y[")]),
    (last_value, lambda r: (_rand(N, r), np.zeros(1)), [("i", "carried", "last[0]")]),
    (reverse_inplace, lambda r: (_rand(N, r),), [("i", "carried", "x[")]),
    (scatter_through_index, lambda r: (_rand(N, r), r.permutation(N), _rand(N, r)),
     [("i", "carried", "non-affine")]),
    (histogram, lambda r: (np.zeros(4), r.integers(0, 4, N)), [("i", "carried", "non-affine")]),
    (time_steps, lambda r: (_rand(N, r), _rand(N, r)),
     [("t", "carried", ""), ("i", "independent", ""), ("i", "independent", "")]),
    (mirror_negative, lambda r: (_rand(N, r),), [("i", "carried", "negative")]),
    (lu_inplace, lambda r: (_rand((N, N), r) + N * np.eye(N),),
     [("k", "carried", "A["), ("i", "independent", ""), ("j", "independent", "")]),
]


# Loops classified carried although reordering their iterations happens to give the same
# result (the analysis is conservative there): a scatter-add through an index array.
# ``reversed_slice_copy`` reads the whole reversed array x[::-1] each iteration, which overlaps
# every write; only its element i is used, so the loop is in fact independent.
CONSERVATIVE = {"histogram", "reversed_slice_copy"}


# --- independent loops -------------------------------------------------------------------------
def elementwise(x, y):
    for i in range(x.shape[0]):
        y[i] = 2.0 * x[i] + 1.0


def stencil_3pt(A, B):
    for i in range(1, A.shape[0] - 1):
        B[i] = A[i - 1] - 2.0 * A[i] + A[i + 1]


def forward_difference(A, B):
    for i in range(A.shape[0] - 1):
        B[i] = A[i + 1] - A[i]


def matmul(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]


def transpose(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[j, i] = A[i, j]


def even_from_odd(x):
    for i in range(x.shape[0] // 2):
        x[2 * i] = x[2 * i + 1]


def scale_inplace(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * 3.0


def jacobi_2d(A, B):
    n = A.shape[0]
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            B[i, j] = 0.2 * (A[i, j] + A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])


def strided_pairs(x):
    for i in range(0, x.shape[0] - 1, 2):
        x[i + 1] = x[i]


def scale_rows(A, s):
    for i in range(A.shape[0]):
        A[i, :] = A[i, :] * s[i]


def lower_triangle(A, B):
    for i in range(A.shape[0]):
        for j in range(i):
            B[i, j] = 2.0 * A[i, j]


def halves(x):
    n = x.shape[0]
    for i in range(n // 2):
        x[i] = x[i + n // 2]


def relu_branch(x, y):
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            y[i] = x[i]
        else:
            y[i] = 0.0


def from_the_end(x, y):
    for i in range(x.shape[0]):
        y[-i - 1] = x[i]


INDEPENDENT = [
    (elementwise, lambda r: (_rand(N, r), np.zeros(N)), [("i", "independent", "")]),
    (stencil_3pt, lambda r: (_rand(N, r), np.zeros(N)), [("i", "independent", "")]),
    (forward_difference, lambda r: (_rand(N, r), np.zeros(N)), [("i", "independent", "")]),
    (matmul, lambda r: (_rand((N, 4), r), _rand((4, 5), r), np.zeros((N, 5))),
     [("i", "independent", ""), ("j", "independent", ""), ("k", "reduction", "sum")]),
    (transpose, lambda r: (_rand((N, 4), r), np.zeros((4, N))),
     [("i", "independent", ""), ("j", "independent", "")]),
    (even_from_odd, lambda r: (_rand(N + 1, r),), [("i", "independent", "")]),
    (scale_inplace, lambda r: (_rand(N, r),), [("i", "independent", "")]),
    (jacobi_2d, lambda r: (_rand((N, N), r), np.zeros((N, N))),
     [("i", "independent", ""), ("j", "independent", "")]),
    (strided_pairs, lambda r: (_rand(N + 1, r),), [("i", "independent", "")]),
    (scale_rows, lambda r: (_rand((N, 4), r), _rand(N, r)), [("i", "independent", "")]),
    (lower_triangle, lambda r: (_rand((N, N), r), np.zeros((N, N))),
     [("i", "independent", ""), ("j", "independent", "")]),
    (halves, lambda r: (_rand(N + 1, r),), [("i", "independent", "")]),
    (relu_branch, lambda r: (_rand(N, r) - 0.5, np.zeros(N)), [("i", "independent", "")]),
    (from_the_end, lambda r: (_rand(N, r), np.zeros(N)), [("i", "independent", "")]),
]


# --- reductions --------------------------------------------------------------------------------
def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


def largest(x):
    m = x[0]
    for i in range(1, x.shape[0]):
        m = max(m, x[i])
    return m


def product(x):
    p = 1.0
    for i in range(x.shape[0]):
        p *= x[i]
    return p


def into_element(x, s):
    for i in range(x.shape[0]):
        s[0] += x[i]


def total_2d(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j]
    return s


def count_positive(x):
    c = 0
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            c += 1
    return c


def row_sums_inner(A, out):
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s = s + A[i, j]
        out[i] = s


REDUCTIONS = [
    (total, lambda r: (_rand(N, r),), [("i", "reduction", "sum")]),
    (dot, lambda r: (_rand(N, r), _rand(N, r)), [("i", "reduction", "sum")]),
    (largest, lambda r: (_rand(N, r),), [("i", "reduction", "max")]),
    (product, lambda r: (_rand(N, r),), [("i", "reduction", "product")]),
    (into_element, lambda r: (_rand(N, r), np.zeros(1)), [("i", "reduction", "s[0]")]),
    (total_2d, lambda r: (_rand((N, 4), r),),
     [("i", "reduction", "sum"), ("j", "reduction", "sum")]),
    (count_positive, lambda r: (_rand(N, r),), [("i", "reduction", "exact")]),
    (row_sums_inner, lambda r: (_rand((N, 4), r), np.zeros(N)),
     [("i", "independent", ""), ("j", "reduction", "sum")]),
]


# --- affine probes -----------------------------------------------------------------------------
def probes(x, A, idx, B):
    n = x.shape[0]
    for i in range(1, 4):
        for j in range(i):
            B[0] = x[2 * i + 1]
            B[1] = A[i - j, j]
            B[2] = x[n - 1 - i]
            B[3] = x[i * j]
            B[4] = x[idx[i]]
            B[5] = x[i // 2]
            B[6] = x[i % 3]
            B[7] = x[-i - 1]
            B[8] = x[3 * (i + j) - 2 * j]


# --- harder cases --------------------------------------------------------------------------------
def doubling_index(x):
    for i in range(x.shape[0] // 2):
        x[2 * i] = x[i] + 1.0


def symbolic_trip(x, m):
    for i in range(m):
        x[i + 1] = x[i] * 0.5


def symbolic_offset(x, y, m):
    for i in range(x.shape[0] - 4):
        y[i] = x[i + m]
        x[i] = 0.0


def reversed_even_odd(x):
    for i in range(x.shape[0] - 1, 0, -2):
        x[i - 1] = x[i]


def scratch_row(A, B, tmp):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            tmp[j] = A[i, j]
        for j in range(A.shape[1]):
            B[i, j] = 2.0 * tmp[j]


def swap_buffers(A, B):
    for t in range(4):
        for i in range(1, A.shape[0] - 1):
            B[i] = 0.5 * (A[i - 1] + A[i + 1])
        A, B = B, A
    return A


def conditional_write(x, y):
    for i in range(x.shape[0] - 1):
        if y[i] > 1.0:
            x[i + 1] = x[i] + y[i]


def reversed_slice_copy(x):
    n = x.shape[0]
    for i in range(n // 2):
        x[i] = x[::-1][i]


HARDER = [
    (doubling_index, lambda r: (_rand(N + 1, r),), [("i", "carried", "x[")]),
    (symbolic_trip, lambda r: (_rand(N, r), 5), [("i", "carried", "x[i]")]),
    (symbolic_offset, lambda r: (_rand(N, r), np.zeros(N), 3), [("i", "carried", "")]),
    (reversed_even_odd, lambda r: (_rand(N, r),), [("i", "independent", "")]),
    (scratch_row, lambda r: (_rand((N, 4), r), np.zeros((N, 4)), np.zeros(4)),
     [("i", "carried", "tmp["), ("j", "independent", ""), ("j", "independent", "")]),
    # the frontend may unroll a loop whose arrays trade places: only the time loop is fixed
    (swap_buffers, lambda r: (_rand(N, r), _rand(N, r)), [("t", "carried", "")]),
    (conditional_write, lambda r: (_rand(N, r), _rand(N, r) + 0.3), [("i", "carried", "x[")]),
    (reversed_slice_copy, lambda r: (_rand(N, r),), [("i", "carried", "")]),
]
