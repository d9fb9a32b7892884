"""Float-to-integer casts of values NumPy's C loops leave undefined (NaN, inf, beyond the
target's range: NumPy warns and gives what x86-64's truncating conversion gives), np.copyto,
dtypes passed as arguments, and the refusal of growing lists. NumPy is the oracle."""
import copy
import warnings

import numpy as np
import pytest

import solvent
from differential import check

BACKENDS = ["xla", "native", "interp"]
ODD = np.array([1.7, -2.5, 300.0, 4.0, -200.0, 1e10, -1e10, np.nan, np.inf, -np.inf,
                2.0 ** 31, -2.0 ** 31, 2.0 ** 31 - 1, 2.0 ** 63, -2.0 ** 63, 70000.5, -1.0,
                255.9, 4e9])


def cast(x, dt):
    return x.astype(dt)


# uint32 is left out: NumPy's own answer for it depends on the array's length (its SIMD
# loop and its scalar loop disagree beyond the range); uint64's does not here (negative
# values wrap: -2.5 is 2**64 - 3)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src", [np.float64, np.float32])
@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                np.uint64])
def test_float_to_int_beyond_the_range_as_numpy(dt, src, backend):
    x = ODD.astype(src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = x.astype(dt)
    got = solvent.jit(cast, backend=backend)(x, dt)      # the dtype: a compile-time argument
    np.testing.assert_array_equal(got, expected)


def copy_rows(a, b):
    np.copyto(a, b)                    # broadcast, same_kind casting
    return a


def copy_where(a, b, m):
    np.copyto(a, b, where=m)


def copy_unsafe(a, v):
    np.copyto(a, v, casting="unsafe")
    return a


def relax(u, steps):                   # the copyto time-step idiom
    new = np.zeros_like(u)
    for _ in range(steps):
        new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        np.copyto(u, new)
    return u


R = np.random.default_rng(5)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", [
    (copy_rows, (np.zeros((3, 4)), R.standard_normal(4))),
    (copy_rows, (np.zeros((3, 4), np.float32), R.standard_normal((3, 4)))),
    (copy_rows, (np.asfortranarray(np.zeros((3, 4))), 2.5)),
    (copy_where, (np.zeros(5), np.arange(5.0), np.array([1, 0, 1, 0, 1], bool))),
    (copy_unsafe, (np.zeros(4, np.int8), np.array([1.7, -2.5, 100.0, 4.0]))),
    (relax, (R.standard_normal((6, 7)), 3)),
], ids=["broadcast", "float32", "fortran-scalar", "where", "unsafe-int8", "relax"])
def test_copyto(fn, args, backend):
    check(fn, *copy.deepcopy(args), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_copyto_same_kind_refuses_float_into_int_as_numpy(backend):
    a = np.zeros(3, np.int64)
    with pytest.raises(TypeError, match=r"test_casts_and_copyto.py:\d+:\d+: Cannot cast array "
                                        r"data from dtype\('float64'\) to dtype\('int64'\)"):
        solvent.jit(copy_rows, backend=backend)(a, np.ones(3))
    assert (a == 0).all()


def zeros_of(n, dtype):
    return np.zeros(n, dtype=dtype) + 1


@pytest.mark.parametrize("dtype", [np.float32, np.dtype("int16"), float, int, bool, complex])
def test_dtype_arguments_are_compile_time_values(dtype):
    f = solvent.jit(zeros_of)
    check(zeros_of, 4, dtype, backend=None)
    assert f(3, dtype).dtype == zeros_of(3, dtype).dtype


def history(x, n):
    hist = []
    for i in range(n):
        x = x * 0.9 + 1
        hist.append(x.sum())
    return np.array(hist)


def test_a_list_grown_in_a_loop_is_compiled():
    # (was refused: "a list cannot grow in compiled code"; now tests/frontend/test_list_growth.py)
    x = np.random.default_rng(0).random(3)
    np.testing.assert_allclose(solvent.jit(history)(x, 4), history(x, 4))
