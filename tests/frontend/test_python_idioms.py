"""Ordinary Python that scientists write (issue 14): iteration over arrays, enumerate, zip
and tuples; builtins; None slice bounds; run-time negative stops; functions defined inside
the kernel; lambdas; functions passed in; run-time asserts; imports in the body. Each at two
sizes, against NumPy on the same source (in-place effects included)."""
import math

import numpy as np
import pytest

import solvent
from differential import case, check, run_cases


def rows_sum(A):
    s = 0.0
    for row in A:
        s += row.sum()
    return s


def rows_written_through(A):
    for row in A:               # each row is a view: writes reach A, as in NumPy
        row[0] = row[-1] * 2.0


def enumerate_weighted(x):
    s = 0.0
    for i, v in enumerate(x):
        s += i * v
    for i, v in enumerate(x, 1):
        s -= i * v
    for n, v in enumerate(x, start=len(x)):   # the keyword form (Welford's loop writes it)
        s += v / n
    return s


def zip_dot(a, b):
    s = 0.0
    for u, v in zip(a, b):
        s += u * v
    return s


def zip_uneven(a, b):
    out = np.zeros(a.shape[0])
    for k, (u, v) in enumerate(zip(a, b)):
        out[k] = u - v
    return out


def over_tuple(A):
    total = 0.0
    for w in (0.5, 1.5, 2.5):
        total += w * A.sum()
    for X in (A, 2 * A):        # a tuple of arrays: unrolled
        total += X[0]
    return total


def nested_loops_over_arrays(A, B):
    acc = 0.0
    for a_row in A:
        for b in B:
            acc += a_row[0] * b
    return acc


def builtins_on_scalars(x, y):
    q, r = divmod(7, 2)
    return (max(x, y), min(x, y, 0.25), abs(x - y), round(x), int(x), float(y), bool(x),
            q, r, sum((x, y, 1.0)), max((x, y)))


def divmod_runtime(x, y):
    return divmod(x, y)


def python_sum_of_array(A):
    return sum(A), sum(A, 10)


def dp_table(t):
    for i in range(1, t.shape[0]):
        for j in range(1, t.shape[1]):
            t[i, j] = max(t[i, j], t[i, j - 1] + 0.5, t[i - 1, j] - 0.25)
    return t[-1, -1]


def none_bounds(a, k):
    return a[:None].sum(), a[: -1 + k or None].sum(), a[None:2].sum()


def negative_runtime_stop(d):
    s = 0.0
    for ip in range(2):
        s += d[1 + ip:-2 + ip].sum()
    return s


def shapes_compare(a, b):
    assert a.shape == b.shape and a.ndim == 1
    return a + b


def starred_unpack(A):
    n, *rest = A.shape            # the starred name takes a list of what is left
    *lead, m = A.shape
    first, *mid, last = (1.0, A[0, 0], 2.0, 3.0)
    return n + len(rest), lead, m, len(mid), mid[0] + first + last


def zip_star_rows(A, B):
    t = 0.0
    for a, b, c in zip(*(A, B, A * 2)):      # zip(*S): S's rows side by side
        t += (a * b).sum() + c[0]
    return t


def zip_star_uneven(x, y):
    t = 0.0
    for p in zip(*(x, y)):                    # the shortest wins, as in Python
        t += p[0] - p[1]
    return t


def shape_slices(A):
    ax = -1 % (A.ndim - 1)        # computed, but known at compile time
    lead, rest = A.shape[:ax], A.shape[ax + 1:]
    return np.zeros(lead + (2,) + rest), A.shape[::-1], A.shape[-1:], len(A.shape[ax:])


def nested_def(A, c):
    scale = 2.0

    def taper(x, p=3):
        return x * scale + p * c       # reads the enclosing variables

    out = taper(A)
    scale = 5.0                        # late binding: the next call sees the new value
    return out + taper(A, 1)


def lambda_inside(A):
    f = lambda x: x * 2 + 1            # noqa: E731
    g = lambda x, y=3.0: x - y         # noqa: E731
    return f(A) + g(A)


def import_inside(A):
    import numpy as npx
    from math import sqrt
    return npx.sum(A) + sqrt(2.0)


def apply(f, x):
    return f(x) + f(2.0 * x)


def square(v):
    return v * v


def checked(A, n):
    assert A.shape[0] == n
    assert A[0] > 0, "first value must be positive"
    return A * n


def _weighted(x, *ws, scale=1.0, **opts):
    s = x * scale
    for w in ws:
        s = s + w
    if "shift" in opts:
        s = s - opts["shift"]
    return s * len(ws) + len(opts)


def star_helpers(x, y):
    """Helpers with *args and **kwargs, called inside the kernel (they were refused)."""
    return (_weighted(x), _weighted(x, y, 2.0), _weighted(x, *(y, y), scale=0.5, shift=1.5),
            _weighted(x, shift=y[0], other=3))


SIZES = [3, 7]


def _cases(n):
    rng = np.random.default_rng(n)
    A = rng.random((n, 4))
    x, y = rng.random(n), rng.random(n + 1)
    return [
        case(rows_sum, A, id=f"rows_sum-{n}"),
        case(rows_written_through, A, id=f"rows_written-{n}"),
        case(enumerate_weighted, x, id=f"enumerate-{n}"),
        case(zip_dot, x, y[:n], id=f"zip-{n}"),
        case(zip_uneven, x, y, id=f"zip_uneven-{n}"),
        case(over_tuple, x, id=f"over_tuple-{n}"),
        case(nested_loops_over_arrays, A, x, id=f"nested_iter-{n}"),
        case(builtins_on_scalars, 1.7 + n, 0.2, id=f"builtins-{n}"),
        case(divmod_runtime, 7 + n, 3, id=f"divmod-int-{n}"),
        case(divmod_runtime, -7.5 - n, 2.0, id=f"divmod-float-{n}"),
        case(python_sum_of_array, x, id=f"pysum-{n}"),
        case(python_sum_of_array, np.arange(n, dtype=np.int8) * 60, id=f"pysum-int8-{n}"),
        case(python_sum_of_array, A, id=f"pysum-2d-{n}"),
        case(dp_table, rng.random((n, n + 2)), id=f"dp-{n}"),
        case(none_bounds, x, 1, id=f"none-bounds-k1-{n}"),
        case(none_bounds, x, 0, id=f"none-bounds-k0-{n}"),
        case(negative_runtime_stop, rng.random(n + 5), id=f"neg-stop-{n}"),
        case(shapes_compare, x, x, id=f"shape-eq-{n}"),
        case(starred_unpack, A, id=f"starred-unpack-{n}"),
        case(starred_unpack, A[:, :, None], id=f"starred-unpack-3d-{n}"),
        case(zip_star_rows, A, A[::-1].copy(), id=f"zip-star-rows-{n}"),
        case(zip_star_uneven, x, y[:2], id=f"zip-star-uneven-{n}"),
        case(shape_slices, A, id=f"shape-slices-{n}"),
        case(shape_slices, A.T[..., None], id=f"shape-slices-3d-{n}"),
        case(nested_def, x, 0.5, id=f"nested-def-{n}"),
        case(lambda_inside, x, id=f"lambda-{n}"),
        case(import_inside, x, id=f"import-{n}"),
        case(apply, square, x, id=f"fn-arg-{n}"),
        case(apply, np.cos, x, id=f"ufunc-arg-{n}"),
        case(checked, x + 0.1, n, id=f"assert-{n}"),
        case(star_helpers, x, y[:n], id=f"star-helpers-{n}"),
    ]


test_python_idioms = run_cases([c for n in SIZES for c in _cases(n)])


def test_runtime_assert_raises_with_the_line_and_writes_nothing(backend):
    def writes_then_asserts(A):
        A[1] = 5.0
        assert A[0] > 0, "first value must be positive"
        return A
    A = np.array([-1.0, 2.0])
    with pytest.raises(AssertionError, match=r"test_python_idioms.py:\d+:\d+: first value must"):
        solvent.jit(writes_then_asserts, backend=backend)(A)
    assert A[1] == 2.0


def test_shape_mismatch_assert_fails_at_compile_time():
    with pytest.raises(AssertionError, match=r"test_python_idioms.py:\d+"):
        solvent.jit(shapes_compare)(np.ones(3), np.ones(4))


def test_functions_passed_in_compile_one_version_each():
    f = solvent.jit(apply)
    x = np.arange(3.0)
    for fn in (square, np.sin, square):
        np.testing.assert_allclose(f(fn, x), apply(fn, x))
    assert len(f._cache) == 2


def test_negative_stop_that_turns_non_negative_is_an_error(backend):
    def window(d, ip):
        return d[1 + ip:-2 + ip].sum()
    check(window, np.arange(8.0), 1, backend=backend)
    with pytest.raises(IndexError, match="stop"):
        solvent.jit(window, backend=backend)(np.arange(8.0), 5)


def test_break_in_loop_over_a_tuple_is_refused_with_the_line():
    def f(A):
        for w in (1.0, 2.0):
            if w > 1.5:
                break
            A[0] = w
    with pytest.raises(solvent.UnsupportedError, match=r"test_python_idioms.py:\d+:\d+: break"):
        solvent.jit(f)(np.zeros(2))


@solvent.jit
def _jitted_helper(v, s):
    v[0] = s
    return v * 2


def _calls_a_jitted_function(x):
    y = _jitted_helper(x[1:], 5.0)       # writes through the view into x, as NumPy does
    return y.sum() + _jitted_helper(x, -1.0)[2]


@pytest.mark.parametrize("backend", ["xla", "native", "interp", None])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_jitted_function_calls_another_jitted_function(backend, dtype):
    """The callee (a solvent.jit object) is inlined from its Python source, as a plain
    module-level helper is (it was refused: 'call to ..._jitted_helper is not supported')."""
    check(_calls_a_jitted_function, np.arange(5, dtype=dtype)[::-1], backend=backend)


def mixed_max_min(a, x, f):
    # Python's max/min return whichever operand wins, unconverted: 300 is not wrapped into
    # int8, 0.1 is not rounded to float32 (both were: silent wrong answers)
    return (max(300, x[0]), min(-300, x[1]), max(a, x[0]), min(0.1, f[0]), max(0, x[0]),
            abs(-3), abs(a - 400))


@pytest.mark.parametrize("n", [2, 9])
def test_max_min_of_a_python_number_and_a_numpy_scalar_keep_the_value(backend, n):
    r = np.random.default_rng(n)
    x = r.integers(-100, 100, n).astype(np.int8)
    f = (r.random(n) * 0.2).astype(np.float32)
    got = solvent.jit(mixed_max_min, backend=backend)(500, x, f)
    want = mixed_max_min(500, x, f)
    for g, w in zip(got, want):   # the values; the type follows the winner in Python
        assert g == w and np.asarray(g).dtype.kind == np.asarray(w).dtype.kind, (got, want)
    assert type(got[5]) is int and got[5] == 3


def nonzero_pairs(A):
    s = A.sum() * 0.0               # np.float64 whatever the trip count
    for i, j in zip(*np.nonzero(A > 0)):      # np.nonzero's run-time-length arrays
        s += A[i, j] * (i + 1) - j
    return s


@pytest.mark.parametrize("backend", ["native", "interp", None])
@pytest.mark.parametrize("A", [np.arange(-5.0, 7.0).reshape(3, 4), np.zeros((2, 3)),
                               np.zeros((3, 0))], ids=["mixed", "none-positive", "empty"])
def test_zip_star_over_nonzero(A, backend):
    check(nonzero_pairs, A, backend=backend)


def by_dtype(a, b):                        # code that branches on its argument's dtype
    if a.dtype == np.float32 or a.dtype in (np.float16,):
        return a * 2
    if b.dtype != np.int8 and a.dtype.kind == "f":
        return a + b
    return a - 1


@pytest.mark.parametrize("backend", ["interp", "native", "xla"])
@pytest.mark.parametrize("dt", ["float32", "float64", "int8", "int64"])
def test_dtype_comparisons_are_decided_at_compile_time(dt, backend):
    a = np.arange(1, 5).astype(dt)
    check(by_dtype, a, np.arange(4, dtype=np.int8), backend=backend)
    check(by_dtype, a, np.arange(4.0), backend=backend)
