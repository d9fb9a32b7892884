"""Integer and float scalar semantics of the native backend against NumPy, element by element
in a scalar loop, over every integer dtype with edge values (min, max, -1, 0, 1)."""
import numpy as np
import pytest

from differential import check

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def int_table(a, b):
    n = a.shape[0]
    out = np.zeros((11, n), dtype=a.dtype)
    for i in range(n):
        x = a[i]
        y = b[i]
        out[0, i] = x + y
        out[1, i] = x - y
        out[2, i] = x * y
        out[3, i] = x // y
        out[4, i] = x % y
        out[5, i] = x & y
        out[6, i] = x | y
        out[7, i] = x ^ y
        out[8, i] = max(x, y)
        out[9, i] = min(x, y)
        out[10, i] = -x
    return out


def shifts(a, s):
    n = a.shape[0]
    out = np.zeros((2, n), dtype=a.dtype)
    for i in range(n):
        out[0, i] = a[i] << s[i]
        out[1, i] = a[i] >> s[i]
    return out


def conversions(x):
    n = x.shape[0]
    out = np.zeros((4, n))
    for i in range(n):
        out[0, i] = np.int8(x[i])
        out[1, i] = np.uint8(x[i] % 256)
        out[2, i] = np.float32(x[i])
        out[3, i] = x[i] != 0
    return out


def _edges(dt, rng, n=40):
    info = np.iinfo(dt)
    edge = [info.min, info.max, 0, 1, info.max - 1] + ([-1, info.min + 1] if info.min < 0 else [])
    vals = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    return np.concatenate([np.array(edge, dtype=dt), vals]).astype(dt)


@pytest.mark.parametrize("dt", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_integer_arithmetic_matches_numpy(dt):
    rng = np.random.default_rng(np.dtype(dt).itemsize)
    a = _edges(dt, rng)
    b = np.roll(_edges(dt, rng), 3)
    check(int_table, a, b, backend="native")
    check(int_table, a, np.zeros_like(a), backend="native")    # // and % by zero give 0


@pytest.mark.parametrize("dt", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_shifts_match_numpy(dt):
    rng = np.random.default_rng(1)
    a = _edges(dt, rng, 20)
    bits = np.dtype(dt).itemsize * 8
    s = rng.integers(0, bits + 3, a.shape[0]).astype(dt)   # includes shifts >= the width
    check(shifts, a, s, backend="native")


def test_float_to_int_and_bool_conversions():
    check(conversions, np.array([0.0, -1.5, 2.7, 127.9, -128.2, 255.5, 1e3, -0.0]),
          backend="native")


def to_int64(x):
    return x.astype(np.int64)


def to_int64_each(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = x[i].astype(np.int64)
    return out


def test_float_to_int_conversion_of_specials_is_numpys_vectorized_and_scalar():
    """NaN, infinities and values beyond int64 give what NumPy gives (x86-64's truncating
    conversion: the minimum), in the vector loop, its remainder and the scalar loop alike
    (LLVM's plain fptosi would be poison there)."""
    import warnings

    import solvent
    big = 2.0 ** 63
    specials = [np.nan, np.inf, -np.inf, 1e300, -1e300, big, -big, np.nextafter(big, 0),
                2.7, -2.7, 0.0, -0.0]
    x = np.array(specials * 5)   # long enough for the vector loop and its remainder
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = x.astype(np.int64)
    assert expected[7] == int(np.nextafter(big, 0)) and expected[8] == 2
    for fn in (to_int64, to_int64_each):
        np.testing.assert_array_equal(solvent.jit(fn, backend="native")(x), expected)
    finite = np.linspace(-1e6, 1e6, 101)
    check(to_int64, finite, backend="native")
    check(to_int64_each, finite.astype(np.float32), backend="native")
