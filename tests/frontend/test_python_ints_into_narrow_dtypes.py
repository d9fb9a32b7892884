"""NEP 50 where NumPy builds an array or scalar of a given integer dtype from Python ints:
np.array(300, dtype=np.int8), np.asarray([1, 300], np.int8), np.full(3, 300, np.int8),
np.full_like, np.int8(300), np.uint8(-1) raise OverflowError (they wrapped to 44 / 255
before: silent wrong answers); NumPy integer scalars wrap as NumPy casts them, except as
items of a sequence, which NumPy assigns through Python ints."""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from differential import check

BACKENDS = ["native", "xla", "interp"]


def array_scalar(n):
    return np.array(n, dtype=np.int8)


def array_items(n):
    return np.asarray([[1, 2], [3, n]], dtype=np.uint8)


def full_value(n):
    return np.full(3, n, dtype=np.int16), np.full_like(np.zeros(2, np.int8), n)


def scalar_type(n):
    return np.int8(n) + np.int8(1)


def constant_table():
    return np.array([1, 2, 400], dtype=np.uint8)


def constant_scalar():
    return np.uint8(-1)


def numpy_scalar_wraps(a):
    return np.array(a[0], dtype=np.int8), np.int8(a[1]), np.full(2, a[0], dtype=np.int8)


def numpy_scalar_item(a):
    return np.array([1, a[0]], dtype=np.int8)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [array_scalar, array_items, full_value, scalar_type])
def test_python_int_arguments_in_range_and_out(backend, fn):
    check(fn, 100, backend=backend)
    check(fn, 0, backend=backend)
    f = solvent.jit(fn, backend=backend)
    for bad in (70000, -70000):
        with pytest.raises(OverflowError) as want:
            fn(bad)
        with pytest.raises(OverflowError, match="out of bounds for") as got:
            f(bad)
        assert str(want.value) in str(got.value), (want.value, got.value)


@pytest.mark.parametrize("fn", [constant_table, constant_scalar])
def test_constants_out_of_range_are_refused_with_the_line(fn):
    with pytest.raises(OverflowError) as want:
        fn()
    with pytest.raises(OverflowError) as got:
        solvent.jit(fn)()
    assert str(want.value) in str(got.value)
    assert "test_python_ints_into_narrow_dtypes.py" in str(got.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_numpy_integer_scalars_wrap_as_numpy_casts_them(backend):
    check(numpy_scalar_wraps, np.array([300, -129, 5]), backend=backend)
    check(numpy_scalar_item, np.array([5, 6]), backend=backend)
    with pytest.raises(OverflowError):
        numpy_scalar_item(np.array([300]))
    with pytest.raises(OverflowError):
        solvent.jit(numpy_scalar_item, backend=backend)(np.array([300]))


def store_element(u, v):
    u[0] = v[0]            # v[0] is an np.int64: into an unsigned array it wraps (a cast)
    return u


def store_literal(u):
    u[0] = 300             # a Python int: must fit, as in NumPy 2
    return u


@pytest.mark.parametrize("backend", BACKENDS + [None])
def test_numpy_integer_elements_stored_into_unsigned_arrays_wrap(backend):
    for dt in (np.uint8, np.uint16, np.uint32):
        check(store_element, np.zeros(1, dt), np.array([260]), backend=backend)
        check(store_element, np.zeros(1, dt), np.array([-1]), backend=backend)
    with pytest.raises(OverflowError):            # signed targets: NumPy raises
        solvent.jit(store_element, backend=backend)(np.zeros(1, np.int8), np.array([300]))
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        solvent.jit(store_literal, backend=backend)(np.zeros(1, np.uint8))


# --- Python ints beyond int64 (frontend/wide_ints.py) ---------------------------------------
def u64_with_wide_ints(u):
    return (u == 18446744073709551615, u + (2**64 - 1), u > 2**63, (2**64 - 1) - u,
            u // (2**63 + 5), np.where(u > 1, 2**64 - 1, u))


def u64_wide_stores(u):
    u[0] = 2**64 - 1
    return u, np.full(2, 2**63, np.uint64)


def wide_ints_with_other_dtypes(a, x32):
    return a < 2**64, a == 2**63, a > -2**70, x32 * 2**70, a.astype(np.float64) + 2**64


def int64_plus_wide(a):
    return a + 2**63


@pytest.mark.parametrize("backend", BACKENDS + [None])
def test_python_ints_beyond_int64_next_to_uint64_and_others(backend):
    u = np.array([1, 2**63 + 1, 2**64 - 1], np.uint64)
    check(u64_with_wide_ints, u, backend=backend)
    check(u64_wide_stores, u, backend=backend)
    check(wide_ints_with_other_dtypes, np.array([1, -5]), np.ones(2, np.float32),
          backend=backend)
    with pytest.raises(OverflowError, match="9223372036854775808 out of bounds for int64"):
        solvent.jit(int64_plus_wide, backend=backend)(np.array([1]))
