"""Differential tests: for/while/if, break/continue, carried values, returns, inlined helpers."""
import numpy as np

from differential import case, run_cases

rng = np.random.default_rng(6)
V = rng.standard_normal(7)
A = rng.standard_normal((4, 5))
I = rng.integers(-9, 9, 7)
POS = np.array([0.5, 1.5, 2.5, 9.0, 0.1, 3.0])


# --- for over range ----------------------------------------------------------------------------
def range_forms(v):
    a = 0.0
    for i in range(5):
        a += v[i]
    b = 0.0
    for i in range(2, 6):
        b += v[i] * i
    c = 0.0
    for i in range(1, 7, 2):
        c -= v[i]
    d = 0.0
    for i in range(6, -1, -1):
        d = d * 0.5 + v[i]
    e = 0.0
    for i in range(6, 0, -3):
        e += v[i]
    return a, b, c, d, e


def range_zero_trip(v):
    s = 1.0
    for i in range(5, 2):
        s += v[i]
    for i in range(0, 3, -1):
        s += 100.0
    for i in range(v.shape[0], v.shape[0]):
        s += 1000.0
    return s


def range_from_args(v, lo, hi):
    s = 0.0
    for i in range(lo, hi):
        s += v[i]
    return s


def range_from_args_step(v, lo, hi, st):
    s = 0.0
    for i in range(lo, hi, st):
        s = s * 2 + v[i]
    return s


def range_runtime_zero_trip(v, lo, hi):
    c = 0
    for i in range(lo, hi):
        v[i] = 0.0
        c += 1
    return c


def range_count_arg(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def nested_matmul(X, Y):
    n, k = X.shape
    m = Y.shape[1]
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for p in range(k):
                acc += X[i, p] * Y[p, j]
            out[i, j] = acc
    return out


def triangular_loops(X):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(i + 1, X.shape[1]):
            s += X[i, j]
    return s


def time_loop_rebind(u, T, dt):
    for t in range(T):
        lap = np.zeros_like(u)
        lap[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
        u = u + dt * lap
    return u


def time_loop_inplace(u, T):
    w = u.copy()
    for t in range(T):
        w[1:-1] = 0.5 * (u[:-2] + u[2:])
        u[:] = w
    return w


def time_loop_two_arrays(a, b, T):
    for t in range(T):
        a, b = b, a + b
    return a, b


def accumulator_int_start(v):
    s = 0
    for i in range(v.shape[0]):
        s += v[i]
    return s


def accumulator_pyint(n):
    s = 0
    for i in range(n):
        s += i
    return s, i


def accumulator_float(v):
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i] * 2
    return s


def accumulator_count(v):
    count = 0
    for i in range(v.shape[0]):
        if v[i] > 0:
            count += 1
    return count


def accumulator_f32(F):
    s = 0.0
    for i in range(F.shape[0]):
        s += F[i]
    return s


def accumulator_division(n):
    x = 1
    for i in range(n):
        x = x / 2
    return x


def product_accumulator(v):
    p = 1
    for i in range(3):
        p *= 2
    q = p
    for i in range(v.shape[0]):
        q = q * 1.0
    return p, q


# --- while -------------------------------------------------------------------------------------
def while_halving(x, tol):
    n = 0
    while x > tol:
        x = x / 2
        n += 1
    return x, n


def while_data_dependent(v, thresh):
    i = 0
    s = 0.0
    while s < thresh and i < v.shape[0]:
        s += v[i]
        i += 1
    return i, s


def while_short_circuit(v, limit):
    i = 0
    while i < v.shape[0] and v[i] < limit:
        i += 1
    return i


def while_newton(a):
    x = a
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def while_array_carry(v, n):
    k = 0
    while k < n:
        v = v * 0.5 + 1
        k += 1
    return v


def while_break_continue(v):
    i = 0
    s = 0.0
    while True:
        i += 1
        if i >= v.shape[0]:
            break
        if v[i] < 0:
            continue
        s += v[i]
    return s, i


# --- if ----------------------------------------------------------------------------------------
def if_elif_else(v):
    x = v[0]
    if x > 1.0:
        y = x * 2
    elif x > 0.0:
        y = x + 10
    elif x > -1.0:
        y = -x
    else:
        y = x * 0
    return y


def if_in_loop(v):
    out = np.zeros_like(v)
    for i in range(v.shape[0]):
        if v[i] > 0:
            out[i] = v[i]
        elif v[i] < -1:
            out[i] = -1.0
        else:
            out[i] = v[i] * v[i]
    return out


def if_scalar_args(x, flag):
    if flag:
        x = x + 1
    if not flag:
        x = x - 1
    return x


def if_changes_dtype(v, k):
    r = 0
    if k > 0:
        r = v[0]
    return r


def if_static_shape(X):
    if X.shape[0] > 3:
        Y = X[:3]
    else:
        Y = X
    if X.ndim == 2:
        s = Y.sum(axis=1)
    else:
        s = Y
    return Y, s


def if_static_shape_small(X):
    return if_static_shape(X)


def if_array_rebind_value(X, c):
    Y = X * 1
    if c > 0:
        Y = X * 2
    return Y


# --- break / continue --------------------------------------------------------------------------
def for_break(v, thresh):
    idx = -1
    for i in range(v.shape[0]):
        if v[i] > thresh:
            idx = i
            break
    return idx


def for_break_loopvar(v, thresh):
    for i in range(v.shape[0]):
        if v[i] > thresh:
            break
    return i


def for_continue(v):
    s = 0.0
    n = 0
    for i in range(v.shape[0]):
        if v[i] < 0:
            continue
        s += v[i]
        n += 1
    return s, n


def nested_break(X):
    hits = 0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] > 0.5:
                break
            hits += 1
    return hits


def break_with_mutation(v):
    for i in range(v.shape[0]):
        if v[i] > 2.0:
            break
        v[i] = -v[i]


def loopvar_after_loop(n):
    for i in range(n):
        pass
    j = 0
    for j in range(3, 10, 3):
        pass
    return i, j


def loopvar_after_loop_static(v):
    for i in range(v.shape[0]):
        v[i] += i
    return i


def last_value_in_loop(v):
    for i in range(v.shape[0]):
        last = v[i] * 2
    return last


def while_continue(v):
    i = 0
    s = 0.0
    while i < v.shape[0]:
        i += 1
        if v[i - 1] < 0:
            continue
        s += v[i - 1]
    return s


# --- returns -----------------------------------------------------------------------------------
def ret_none(v):
    v[0] = 1.0


def ret_none_explicit(v):
    v[1] = 2.0
    return None


def ret_tuple(v, x):
    return v.sum(), x, v * 2, (x, 3), "name", None


def ret_nested_tuple_unpack(v):
    a, b = v[0], v[1]
    (c, d), e = (a + b, a - b), a * b
    return e, d, c


def ret_constants(v):
    return 3, 2.5, True, -1


def ret_scalar_kinds(v, n, x):
    return v[0], n + 1, x * 2, n * x, v.shape[0] * 2, v[0] + n, len(v)


def ret_int_scalar_array(J):
    return J[0], J[0] + 1, J[0] * 2.5, J.sum() // 2


# --- helper functions --------------------------------------------------------------------------
def _h_axpy(a, x, y=None):
    if y is None:
        r = a * x
    else:
        r = a * x + y
    return r


def _h_early(x, y=None):
    if y is None:
        return x * 2
    return x + y


def helper_early_return(v, w):
    return _h_early(v), _h_early(v, w)


def _h_stats(v, scale=1.0):
    return v.mean() * scale, v.std() * scale


def _h_lap(u, dx=1.0):
    out = np.zeros_like(u)
    out[1:-1] = (u[:-2] - 2 * u[1:-1] + u[2:]) / (dx * dx)
    return out


def _h_nested(v):
    m, s = _h_stats(v, scale=2.0)
    return _h_axpy(m, v, s)


def helpers(v, w):
    a = _h_axpy(2.0, v)
    b = _h_axpy(2.0, v, w)
    m, s = _h_stats(v)
    return a, b, m, s, _h_nested(w), _h_lap(v, dx=0.5)


def helper_in_loop(u, T):
    for t in range(T):
        u = u + 0.1 * _h_lap(u)
    return u


def helper_kwargs(v):
    return _h_axpy(x=v, a=3.0), _h_stats(scale=0.5, v=v)


cases = [
    case(range_forms, V),
    case(range_zero_trip, V),
    case(range_from_args, V, 1, 5),
    case(range_runtime_zero_trip, V, 4, 2),
    case(range_runtime_zero_trip, V, 2, 4, id="range_runtime_nonzero_trip"),
    case(range_from_args_step, V, 6, 0, -2),
    case(range_count_arg, 6),
    case(range_count_arg, 0, id="range_count_arg_zero"),
    case(nested_matmul, A, A.T.copy()),
    case(triangular_loops, A),
    case(time_loop_rebind, V, 5, 0.1),
    case(time_loop_inplace, V, 3),
    case(time_loop_two_arrays, V, V[::-1].copy(), 4),
    case(accumulator_int_start, V, id="accumulator_int_to_float"),
    case(accumulator_pyint, 5),
    case(accumulator_float, V),
    case(accumulator_count, V),
    case(accumulator_f32, V.astype(np.float32)),
    case(accumulator_int_start, I.astype(np.int32), id="accumulator_int_array"),
    case(accumulator_division, 3),
    case(product_accumulator, V),
    case(while_halving, 100.0, 1.0),
    case(while_halving, 0.5, 1.0, id="while_halving_zero_trip"),
    case(while_data_dependent, POS, 4.0),
    case(while_data_dependent, POS, 1000.0, id="while_data_dependent_exhaust"),
    case(while_short_circuit, POS, 5.0),
    case(while_short_circuit, POS, 100.0, id="while_short_circuit_exhaust"),
    case(while_newton, 2.0),
    case(while_array_carry, V, 3),
    case(while_break_continue, V),
    case(if_elif_else, np.array([2.0])),
    case(if_elif_else, np.array([0.5]), id="if_elif_1"),
    case(if_elif_else, np.array([-0.5]), id="if_elif_2"),
    case(if_elif_else, np.array([-5.0]), id="if_elif_else_branch"),
    case(if_in_loop, V * 2),
    case(if_scalar_args, 1.5, True),
    case(if_scalar_args, 1.5, False, id="if_scalar_args_false"),
    case(if_changes_dtype, V, 1),
    case(if_static_shape, A),
    case(if_static_shape_small, A[:2].copy()),
    case(if_array_rebind_value, A, 1),
    case(if_array_rebind_value, A, -1, id="if_array_rebind_value_else"),
    case(for_break, V, 0.5),
    case(for_break, V, 100.0, id="for_break_never"),
    case(for_break_loopvar, V, 0.5),
    case(for_continue, V),
    case(nested_break, A),
    case(break_with_mutation, POS),
    case(loopvar_after_loop, 4),
    case(last_value_in_loop, V),
    case(while_continue, V),
    case(loopvar_after_loop_static, V),
    case(ret_none, V),
    case(ret_none_explicit, V),
    case(ret_tuple, V, 2.5),
    case(ret_nested_tuple_unpack, V),
    case(ret_constants, V),
    case(ret_scalar_kinds, V, 3, 1.5),
    case(ret_int_scalar_array, I),
    case(ret_int_scalar_array, I.astype(np.int16), id="ret_int16_scalar_array"),
    case(helpers, V, V[::-1].copy()),
    case(helper_in_loop, V, 3),
    case(helper_kwargs, V),
    case(helper_early_return, V, V[::-1].copy()),
]

test_control = run_cases(cases)


# --- temporaries first assigned after a conditional break/continue (C-style early exits):
# the statements after the jump form one guarded region, and a name assigned and read only
# there is dead after it (it was refused as "assigned on only one path")
def early_exit_temporaries(x, y):
    for i in range(x.shape[0]):
        if x[i] < 0:
            break
        t = x[i] * 2
        u = t + 1.0
        y[i] = t * u


def skip_then_temporaries(x, y):
    total = x[0] * 0.0      # a NumPy scalar whatever the trip count
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        sq = x[i] * x[i]
        total += sq
        y[i] = sq
    return total


def temporary_read_after_the_loop(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            break
        t = x[i]
    return t


def test_temporaries_after_a_conditional_jump():
    import pytest
    import solvent
    from differential import check
    for x in (np.array([1.0, 2.0, -1.0, 3.0]), np.array([0.5, 1.5, 2.5]), np.array([-1.0])):
        for backend in ("xla", "interp", "native"):
            check(early_exit_temporaries, x, np.zeros(x.shape[0]), backend=backend)
            check(skip_then_temporaries, x, np.zeros(x.shape[0]), backend=backend)
    # read after the loop: it may be unbound (Python raises NameError on x[0] < 0): refused
    with pytest.raises(solvent.UnsupportedError, match="'t' is assigned on only one path"):
        solvent.jit(temporary_read_after_the_loop)(np.array([1.0, -1.0]))
