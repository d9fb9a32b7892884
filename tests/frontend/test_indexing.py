"""Differential tests: reading with ints, slices, None, ..., integer-array gathers, dynamic
indices; assignment and augmented assignment into elements, slices, fancy indices, masks."""
import numpy as np

from differential import case, check, run_cases

rng = np.random.default_rng(4)
V = rng.standard_normal(8)
A = rng.standard_normal((4, 5))
A3 = rng.standard_normal((3, 4, 5))
I = rng.integers(-9, 9, (4, 5))
IDX = np.array([3, 0, 2, 2])
IDX2 = np.array([[0, 1], [3, 2]])
NEG = np.array([-1, -3, 0])
IDX32 = np.array([1, 3], dtype=np.int32)


# --- reads -------------------------------------------------------------------------------------
def read_ints(X):
    return X[1], X[-1], X[1, 2], X[-1, -2], X[0][3], X[2, -5]


def read_slices_1d(v):
    return (v[1:3], v[::-1], v[::2], v[-3:], v[:-1], v[1:-1:2], v[6:1:-2], v[::-2], v[:],
            v[5:2], v[-100:100], v[3:], v[:0])


def read_slices_2d(X):
    return X[1:3], X[:, 1:4], X[::-1, ::2], X[1:, -1], X[-2:, :2], X[::2, ::-3], X[:, ::-1]


def read_none_ellipsis(X, T):
    return (X[None], X[:, None], X[..., 0], X[0, ...], X[1:, None, ::2], T[..., 1:3],
            T[0, ..., -1], T[:, None, 1], X[None, None, 0, :])


def read_gather_1d(v, idx):
    return v[idx], v[[0, 2, 5]], v[idx[::-1]]


def read_gather_2d_index(v, idx2):
    return v[idx2]


def read_gather_neg(v, neg):
    return v[neg]


def read_gather_int32(X, idx):
    return X[idx], X[:, idx]


def read_gather_rows_cols(X, idx):
    return X[idx], X[:, idx[:3]], X[idx, 1:3], X[idx, -1]


def read_gather_pairs(X, idx):
    return X[idx, idx], X[idx[:3], [0, 4, 1]], X[[0, 1], [1, 0]]


def read_gather_nonadjacent(T):
    idx = np.array([4, 0, 1])
    return T[0, :, idx]


def read_gather_int_adjacent(T, idx):
    return T[:, 1, idx]


def read_gather_nonadjacent2(T):
    return T[[0, 2], :, [1, 4]]


def read_gather_2d_idx_on_matrix(X, idx2):
    return X[idx2], X[:, idx2]


def read_dynamic_loop(X):
    s = 0.0
    n = X.shape[0]
    for i in range(n):
        s += X[i, n - 1 - i] * X[i, i]
    return s


def read_window_loop(v):
    out = np.zeros(v.shape[0] - 2)
    for i in range(v.shape[0] - 2):
        out[i] = v[i:i + 3].sum()
    return out


def read_window_2d_loop(X):
    out = np.zeros((X.shape[0] - 1, X.shape[1] - 1))
    for i in range(X.shape[0] - 1):
        for j in range(X.shape[1] - 1):
            out[i, j] = X[i:i + 2, j:j + 2].mean()
    return out


def read_runtime_index(v, k):
    return v[k], v[k + 1]


def read_runtime_row(X, k):
    return X[k], X[:, k], X[k, k]


def read_runtime_slice(v, k):
    return v[k:k + 3], v[k:]


def read_index_from_array(v, idx):
    return v[idx[0]], v[idx[1] + 1]


def read_loop_index_from_array(v, idx):
    s = 0.0
    for j in range(idx.shape[0]):
        s += v[idx[j]]
    return s


def read_shape_index(X):
    return X[X.shape[0] - 1], X[len(X) // 2]


# --- writes ------------------------------------------------------------------------------------
def write_elements(X, x):
    X[1, 2] = 5.0
    X[-1, -1] = x
    X[0][1] = 7.0
    X[2, 0] = 3
    return None


def write_slices(X, r):
    X[1:3] = 7.0
    X[:, 0] = r[:4]
    X[0, :] = r
    X[::2, 3] = -1.0
    X[3, ::-2] = 9


def write_broadcast(X, r, c):
    X[1:3, :] = r
    X[:, 1:3] = c
    X[...] = X * 2


def write_cast_float_into_int(J, F):
    J[0, 0:2] = 2.7
    J[1] = F[1]
    J[2, 1] = -2.7
    J[3, :] = F[0] * 10


def write_bool_into_float(X, M):
    X[0] = M[0]


def write_reverse_overlap(v):
    v[:] = v[::-1]


def write_shift_overlap(v):
    v[1:] = v[:-1]


def write_runtime_index(v, k, x):
    v[k] = x
    v[k + 2] = x * 2


def write_runtime_negative_index(v, k):
    v[k] = 100.0


def write_runtime_slice(v, k):
    v[k:k + 2] = 0.0


def write_loop_elements(X):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            X[i, j] = i * 10 + j


def write_loop_window(v):
    for i in range(0, v.shape[0] - 2, 2):
        v[i:i + 2] = v[i + 1] * 2


def aug_elements(X):
    X[0, 0] += 1.0
    X[1, 1] *= 3
    X[-1, 2] -= X[0, 0]
    X[2, 3] /= 2
    X[3][0] += 10


def aug_slices(X, r):
    X[1:3] *= 2
    X[:, 1] -= r[:4]
    X[0] += r
    X[::2, ::2] **= 2
    X[...] += 1


def aug_int_element_with_float(J):
    J[0, 0] += 1.5
    J[1, 1] *= 2.5


def aug_int_slice(J):
    J[0] += 3
    J[1:3] *= 2
    J[:, 0] //= 2
    J[3] %= 4


def aug_loop(v):
    for i in range(1, v.shape[0]):
        v[i] += v[i - 1]


def fancy_store(v, idx):
    v[idx] = 0.0
    v[[1, 5]] = np.array([10.0, 50.0])


def fancy_store_values(X, idx):
    X[idx[:2]] = X[0] * 2
    X[:, [0, 4]] = -1.0


def fancy_store_pairs(X):
    X[[0, 1, 2], [1, 2, 3]] = np.array([7.0, 8.0, 9.0])


def fancy_store_duplicates(v):
    v[[0, 2, 0]] = np.array([1.0, 2.0, 3.0])


def fancy_aug_duplicates(v, idx):
    v[idx] += 1.0


def fancy_store_neg(v, neg):
    v[neg] = 5.0


def mask_store(X):
    X[X > 0] = 0.0


def mask_store_scalar(X, x):
    X[X < -0.5] = x


def mask_store_1d_int(J):
    J[J % 2 == 0] = -1


def mask_store_rows(X, m):
    X[m] = 0.0


def mask_aug(X):
    X[X > 0] *= 2


def add_at(v, idx):
    np.add.at(v, idx, 1.0)
    np.add.at(v, [0, 0, 1], np.array([1.0, 2.0, 3.0]))


def add_at_2d(X, idx):
    np.add.at(X, (idx, idx), 10.0)


def add_at_rows(X, idx):
    np.add.at(X, idx, X[0])


def add_at_int(J, idx):
    np.add.at(J[0], idx, 2)


def write_reversed_and_list(v, w):
    v[::-1] = w
    v[0:3] = [1, 2, 3]
    v[5:1:-2] = [-1.0, -2.0]


def chained_assign(X):
    X[0] = X[1] = 0.0
    a = b = X[2, 2]
    return a + b


def unpack_array(v, X):
    a, b, c = v[:3]
    r0, r1 = X[:2]
    return a, b * 2, c, r0, r1


def loop_len(v):
    s = 0.0
    for i in range(len(v)):
        s += v[i] * i
    return s


cases = [
    case(read_ints, A),
    case(read_slices_1d, V),
    case(read_slices_2d, A),
    case(read_none_ellipsis, A, A3),
    case(read_gather_1d, V, IDX),
    case(read_gather_2d_index, V, IDX2),
    case(read_gather_neg, V, NEG),
    case(read_gather_int32, A, IDX32),
    case(read_gather_rows_cols, A, IDX),
    case(read_gather_pairs, A, IDX),
    case(read_gather_nonadjacent, A3),
    case(read_gather_int_adjacent, A3, IDX[:3].copy()),
    case(read_gather_nonadjacent2, A3),
    case(read_gather_2d_idx_on_matrix, A, IDX2),
    case(read_dynamic_loop, A[:, :4].copy()),
    case(read_window_loop, V),
    case(read_window_2d_loop, A),
    case(read_runtime_index, V, 3),
    case(read_runtime_index, V, -3, id="read_runtime_index_neg"),
    case(read_runtime_row, A, 2),
    case(read_runtime_row, A, -1, id="read_runtime_row_neg"),
    case(read_runtime_slice, V, 2),
    case(read_index_from_array, V, IDX),
    case(read_loop_index_from_array, V, IDX),
    case(read_shape_index, A),
    case(write_elements, A, 2.5),
    case(write_reversed_and_list, V, V * 2),
    case(chained_assign, A),
    case(unpack_array, V, A),
    case(loop_len, V),
    case(write_slices, A, V[:5].copy()),
    case(write_broadcast, A, V[:5].copy(), V[:8].reshape(4, 2).copy()),
    case(write_cast_float_into_int, I, A),
    case(write_bool_into_float, A, A > 0),
    case(write_reverse_overlap, V),
    case(write_shift_overlap, V),
    case(write_runtime_index, V, 2, 1.5),
    case(write_runtime_negative_index, V, -2),
    case(write_runtime_slice, V, 3),
    case(write_loop_elements, A),
    case(write_loop_elements, I, id="write_loop_elements_int"),
    case(write_loop_window, V),
    case(aug_elements, A),
    case(aug_slices, A, V[:5].copy()),
    case(aug_int_element_with_float, I),
    case(aug_int_slice, I),
    case(aug_loop, V),
    case(fancy_store, V, IDX),
    case(fancy_store_values, A, IDX),
    case(fancy_store_pairs, A),
    case(fancy_store_duplicates, V),
    case(fancy_aug_duplicates, V, IDX),
    case(fancy_store_neg, V, NEG),
    case(mask_store, A),
    case(mask_store_scalar, A, 9.0),
    case(mask_store_1d_int, I[0].copy()),
    case(mask_store_rows, A, np.array([True, False, True, False])),
    case(mask_aug, A),
    case(add_at, V, IDX),
    case(add_at_2d, A, np.array([0, 1, 1, 3])),
    case(add_at_rows, A, np.array([1, 1, 3])),
    case(add_at_int, I, np.array([0, 0, 4])),
]

test_indexing = run_cases(cases)


# --- a tuple held in a name indexes several axes (x[t] is x[i, j]); a list selects elements.
# Both were integer-array indices before (a silent wrong answer: a[(1, 2)] gave rows 1, 2)
def index_by_held_tuple(a, i, j):
    t = (i, j)
    c = (1, 2)
    return a[t], a[c], a[[0, 2]]


def index_by_tuple_argument(t, a):
    return a[t]


def tuple_from_if_expression(a, i):
    t = (i, 0) if i > 0 else (0, i)
    idx = [i, 0]
    return a[t], a[idx]


def write_through_held_tuple(a):
    s = 0.0
    for i in range(a.shape[0] - 1):
        p = (i, i + 1)
        s += a[p]
        a[p] = -1.0
    return s


def test_held_tuple_indexes_several_axes(backend):
    a = np.arange(12.0).reshape(3, 4)
    check(index_by_held_tuple, a, 1, 2, backend=backend)
    check(index_by_held_tuple, np.asfortranarray(a).astype(np.int8), 2, -1, backend=backend)
    check(index_by_tuple_argument, (1, 2), a, backend=backend)
    check(index_by_tuple_argument, (2,), a, backend=backend)
    check(tuple_from_if_expression, a, 1, backend=backend)
    check(tuple_from_if_expression, a, -2, backend=backend)
    check(write_through_held_tuple, a.copy(), backend=backend)
