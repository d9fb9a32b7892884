"""Differential tests: views, aliasing and in-place mutation of argument arrays."""
import numpy as np
import pytest

import solvent
from differential import case, check, run_cases

rng = np.random.default_rng(5)
A = rng.standard_normal((4, 5))
B = rng.standard_normal((4, 5))
S = rng.standard_normal((4, 4))
V = rng.standard_normal(6)


def row_view_write(X, i, j, x):
    row = X[i]
    row[j] = x


def row_view_write_static(X):
    row = X[1]
    row[2] = 42.0
    row += 1.0
    return row.sum()


def strided_view_fill(X):
    v = X[1:, ::2]
    v[...] = 0.0


def strided_view_aug(X):
    v = X[::2]
    v += 1
    v[0, 0] = -5.0


def transpose_view_write(X):
    Xt = X.T
    Xt[0, 1] = 5.0
    Xt[2] = -1.0


def reshape_view_write(X):
    R = X.reshape(-1)
    R[3] = 1.0
    R[10:12] = 2.0


def ravel_view_write(X):
    R = np.ravel(X)
    R[0] = 77.0


def chained_views_write(X):
    v = X[1:]
    w = v[:, 1:].T
    w[0, 0] = 123.0


def view_of_view_read(X):
    v = X[1:3]
    w = v[:, ::-1]
    X[1, 4] = 99.0
    return w[0, 0]


def view_sees_base_mutation(X):
    v = X[0]
    X[0, 1] = 100.0
    return v.sum(), v.copy()


def view_sees_whole_mutation(X):
    col = X[:, 1]
    X[:] = 0.0
    return col * 1


def view_sees_augassign(X):
    v = X[:, 0]
    X += 1.0
    return v + 0


def scalar_read_is_copy(X):
    x = X[0, 0]
    X[0, 0] = 5.0
    return x


def alias_write(X):
    Y = X
    Y[0] = 1.0
    Y[1, 1] = 2.0


def alias_inplace(X):
    x = X
    x += 1
    x *= 2


def rebinding_not_inplace(X):
    x = X
    x = x + 1
    x[0, 0] = 50.0
    return x


def rebind_arg(X):
    X = X * 2
    X[0, 0] = 0.0
    return X


def return_arg(X):
    X[0, 0] = 3.0
    return X


def return_arg_unmodified(X):
    return X


def return_args_tuple(X, Y):
    return Y, X, X.sum()


def return_alias(X):
    Y = X
    return Y


def return_asarray(X):
    return np.asarray(X)


def asarray_alias_write(X):
    Y = np.asarray(X)
    Y[0, 0] = -9.0


def copy_is_independent(X):
    Y = X.copy()
    Y[0] = 0.0
    X[1] = 1.0
    return Y


def swap_rows(X):
    X[0], X[1] = X[1], X[0]


def swap_elements(v):
    v[0], v[1] = v[1], v[0]


def swap_rows_copy(X):
    X[[0, 1]] = X[[1, 0]]


def inplace_with_transpose_overlap(Q):
    Q += Q.T


def assign_from_own_view(X):
    X[1:] = X[:-1] * 2


def mutate_in_loop(X, n):
    for i in range(n):
        X[i] *= 2.0
        if X[i, 0] > 0:
            X[i, 1] = 0.0


def mutate_in_if(X, Y, x):
    if x > 0:
        X[0] = 1.0
    else:
        Y[0] = 2.0


def mutate_in_while(v):
    i = 0
    while v[i] < 100.0 and i < 5:
        v[i] = 100.0 + i
        i += 1


def time_loop_copy_back(u, w, T):
    for t in range(T):
        w[1:-1] = 0.5 * (u[:-2] + u[2:])
        u[:] = w


def helper_mutates(X, i):
    X[i] = -1.0


def helper_returns_view(X):
    return X[1]


def mutation_in_helper(X):
    helper_mutates(X, 0)
    r = helper_returns_view(X)
    r[:] = 7.0
    helper_mutates(r, 2)


def helper_aug(v):
    v += 10.0


def mutation_in_helper_aug(X):
    helper_aug(X[0])
    helper_aug(X[:, 1])


def fill_method(X):
    X[0].fill(3.0)
    X.T[1].fill(-3.0)


def write_two_args(X, Y):
    X[:] = Y
    Y[0, 0] = 5.0


def view_in_loop(X):
    for i in range(X.shape[0]):
        r = X[i]
        r[:] = r * i


def local_view_rebound_in_loop(X):
    for i in range(X.shape[0]):
        r = X[i]
        r += i
    return X.sum()


def mutate_then_read_elem(v):
    v[2] = 10.0
    return v[2] * 2


def view_then_rebind(X):
    v = X[0]
    X = X * 2
    v[0] = 1.0
    return X


def out_kwarg(X, Y):
    np.multiply(X, 2, out=X)
    np.add(X, Y, out=Y)


def transpose_self_assign(Q):
    Q[:] = Q.T


def reshape_contiguous_slice_is_view(X):
    R = X[1:3].reshape(-1)
    R[0] = 11.0


def reshape_noncontiguous_is_copy(X):
    R = X[:, 1:3].reshape(-1)
    R[0] = 11.0
    return R


def reshape_transposed_is_copy(X):
    R = X.T.reshape(-1)
    R[:] = 0.0
    return R


def ravel_strided_is_copy(X):
    R = X[::2].ravel()
    R[1] = -4.0
    return R


cases = [
    case(row_view_write, A, 2, 3, 9.5),
    case(row_view_write_static, A),
    case(strided_view_fill, A),
    case(strided_view_aug, A),
    case(transpose_view_write, A),
    case(reshape_view_write, A),
    case(ravel_view_write, A),
    case(chained_views_write, A),
    case(view_of_view_read, A),
    case(view_sees_base_mutation, A),
    case(view_sees_whole_mutation, A),
    case(view_sees_augassign, A),
    case(scalar_read_is_copy, A),
    case(alias_write, A),
    case(alias_inplace, A),
    case(rebinding_not_inplace, A),
    case(rebind_arg, A),
    case(return_arg, A),
    case(return_arg_unmodified, A),
    case(return_args_tuple, A, B),
    case(return_alias, A),
    case(return_asarray, A),
    case(asarray_alias_write, A),
    case(copy_is_independent, A),
    case(swap_rows, A),
    case(swap_elements, V),
    case(swap_rows_copy, A),
    case(inplace_with_transpose_overlap, S),
    case(assign_from_own_view, A),
    case(mutate_in_loop, A, 3),
    case(mutate_in_if, A, B, 1.0),
    case(mutate_in_if, A, B, -1.0, id="mutate_in_if_else"),
    case(mutate_in_while, V),
    case(time_loop_copy_back, V, np.zeros(6), 4),
    case(mutation_in_helper, A),
    case(mutation_in_helper_aug, A),
    case(fill_method, A),
    case(write_two_args, A, B),
    case(view_in_loop, A),
    case(local_view_rebound_in_loop, A),
    case(mutate_then_read_elem, V),
    case(view_then_rebind, A),
    case(out_kwarg, A, B),
    case(transpose_self_assign, S),
    case(reshape_contiguous_slice_is_view, A),
    case(reshape_noncontiguous_is_copy, A),
    case(reshape_transposed_is_copy, A),
    case(ravel_strided_is_copy, A),
]

test_mutation = run_cases(cases)


def return_view(X):
    return X[1:3]


def test_returned_view_shares_memory(backend):
    """NumPy returns a view of the caller's array: writing into it reaches the caller's array."""
    X = A.copy()
    out = check(return_view, X, backend=backend)
    X2 = A.copy()
    out = solvent.jit(return_view, backend=backend)(X2)
    out[0, 0] = 1234.0
    assert X2[1, 0] == 1234.0, "the returned view is a copy: writing into it does not reach X"


def return_arg_or_new(X, x):
    if x > 0.0:
        return X + 1.0
    return X


def return_one_of_two_args(X, Y, x):
    if x > 0.0:
        return Y
    return X


def return_arg_from_nested_ifs(x, X, k):     # a scalar first, as strangers write it
    if x > 0.0:
        if k > 0:
            return X
        X[0, 0] = -7.0                       # written, then the caller's array returned
        return X
    return X * 3.0


def return_tuple_with_arg_on_one_path(X, Y, x):
    if x > 0:
        return X, Y + 1
    return X * 2, Y


def test_return_arg_from_one_arm_of_an_if_is_the_callers_object(backend):
    """Which object NumPy returns depends on the data: the program returns which path ran,
    and the caller gets its own array back on the paths that return it."""
    X, Y = A.copy(), np.asfortranarray(A + 0.5)
    f = solvent.jit(return_arg_or_new, backend=backend)
    assert f(X, -1.0) is X
    r = f(X, 1.0)
    assert r is not X and np.array_equal(r, A + 1.0)
    g = solvent.jit(return_one_of_two_args, backend=backend)
    assert g(X, Y, 1.0) is Y and g(X, Y, -1.0) is X
    h = solvent.jit(return_arg_from_nested_ifs, backend=backend)
    assert h(1.0, X, 1) is X
    assert h(1.0, X, -1) is X and X[0, 0] == -7.0
    r = h(-1.0, X, 1)
    assert r is not X and np.array_equal(r, X * 3.0)
    t = solvent.jit(return_tuple_with_arg_on_one_path, backend=backend)
    r1, r2 = t(X, Y, 1), t(X, Y, -1)
    assert r1[0] is X and r1[1] is not Y and np.array_equal(r1[1], Y + 1)
    assert r2[0] is not X and np.array_equal(r2[0], X * 2) and r2[1] is Y
    for fn, args in ((return_arg_or_new, (A.copy(), 1.0)), (return_one_of_two_args,
                     (A.copy(), A + 0.5, -1.0)), (return_arg_from_nested_ifs, (1.0, A.copy(), -1)),
                     (return_tuple_with_arg_on_one_path, (A.copy(), A + 0.5, -1))):
        check(fn, *args, backend=backend)


def test_return_arg_identity(backend):
    X = A.copy()
    assert solvent.jit(return_arg, backend=backend)(X) is X
    assert X[0, 0] == 3.0
    Y = A.copy()
    r = solvent.jit(return_args_tuple, backend=backend)(X, Y)
    assert r[0] is Y and r[1] is X


# --- augmented assignment follows Python's evaluation order: the item (B[:, 0]) is fetched
# before the right-hand side runs, so its IndexError wins over the RHS's error; the in-place
# operation then reads the contents after the right-hand side (fuzzer seeds 20439, 21472)
def augassign_item_error_first(B):
    B[:, 0] -= 1.5 / B.min()          # B has no column 0: IndexError, not min()'s ValueError


def augassign_element_read_before_rhs(x):
    x[0] += x.sum()                   # the element is read, then the sum: both see the old x
    return x


def test_augassign_fetches_the_item_before_the_right_hand_side():
    import pytest
    B = np.zeros((3, 0))
    with pytest.raises(IndexError):
        augassign_item_error_first(B.copy())
    for backend in ("xla", "interp"):
        with pytest.raises(IndexError):
            solvent.jit(augassign_item_error_first, backend=backend)(B.copy())
        check(augassign_element_read_before_rhs, np.arange(4.0), backend=backend)


def return_view_or_product(k, X, x):
    if x > 0.0:
        return X[:]                # a view of the caller's (strided) array on this path
    return X * k


def return_shorter_view_or_product(k, X, x):
    if x > 0.0:
        return X[1:]
    return X * k


def test_returned_view_on_one_path_reaches_the_callers_array(backend):
    X = np.arange(8.0)[::2]
    r = solvent.jit(return_view_or_product, backend=backend)(2, X, 1.0)
    r[0] = 99.0
    assert X[0] == 99.0
    check(return_view_or_product, 2, np.arange(6, dtype=np.uint8), -1.0, backend=backend)
    with pytest.raises(solvent.UnsupportedError, match="the returned value has shape"):
        solvent.jit(return_shorter_view_or_product, backend=backend)(2, X, 1.0)
