"""NumPy keywords and forms that solvent used to drop, mishandle or refuse:
``np.linspace`` with array endpoints (an internal error before) and its ``axis``; an integer
``dtype`` floors before the cast as NumPy does (truncation gave -0.5 -> 0, NumPy -1);
``np.array(x, copy=False / None)`` is ``x`` itself, so writes through it reach ``x`` (a copy
before: the write was lost); ``np.var``/``np.std`` honour ``dtype``. Differential against
NumPy on every backend. Also np.take(mode=clip|wrap), np.ptp, np.roll with tuples of shifts
and axes (refused before)."""
from __future__ import annotations

import numpy as np
import pytest

import solvent

from differential import check

BACKENDS = ["native", "xla", "interp"]


def linspace_rows(a, b):
    return np.linspace(a, b, 5), np.linspace(a, b, 4, axis=1), np.linspace(a, 2.0, 1)


def linspace_last_axis(a, b):
    return np.linspace(a, b, 3, endpoint=False, axis=-1), np.linspace(a, b, 0)


def linspace_integer(stop):
    return np.linspace(-1, 0, 3, dtype=int), np.linspace(-3.5, stop, 6, dtype=np.int8)


def write_through_no_copy(x):
    y = np.array(x, copy=False)
    y[0] = 5.0
    z = np.array(x[1:], copy=None)
    z[0] = 7.0
    return x


def no_copy_of_a_temporary(x):
    return np.array(x + 1, copy=False)


def copy_false_needs_a_copy(x):
    return np.array(x, dtype=np.float32, copy=False)


def var_std_dtype(x):
    return np.var(x, dtype=np.float32), np.std(x, axis=0, dtype=np.float32, ddof=1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_linspace_with_array_endpoints(backend):
    rng = np.random.default_rng(0)
    check(linspace_rows, rng.random(3), rng.random(3) + 1, backend=backend)
    check(linspace_rows, rng.random((2, 3)), rng.random(3) + 1, backend=backend)
    check(linspace_last_axis, rng.random(3), rng.random(3).astype(np.float32),
          backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_linspace_to_integers_floors(backend):
    check(linspace_integer, 2.5, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_array_without_copy_is_the_argument(backend):
    rng = np.random.default_rng(1)
    check(write_through_no_copy, rng.random(4), backend=backend)
    check(write_through_no_copy, np.asfortranarray(rng.random((3, 2))), backend=backend)
    check(no_copy_of_a_temporary, rng.random(4), backend=backend)


def test_copy_false_where_a_copy_is_needed_is_numpys_error():
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        copy_false_needs_a_copy(np.ones(3))
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        solvent.jit(copy_false_needs_a_copy)(np.ones(3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_var_and_std_take_dtype(backend):
    check(var_std_dtype, np.random.default_rng(2).random((4, 3)), backend=backend)


def var_std_complex(z):
    return np.var(z), z.std(axis=0), z.var(axis=1, ddof=1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_var_and_std_of_complex_values_are_real(backend):
    # the squared modulus's real part was taken with fe.ufunc(np.real): AttributeError
    rng = np.random.default_rng(3)
    z = rng.random((4, 3)) + 1j * rng.random((4, 3))
    check(var_std_complex, z, backend=backend)
    check(var_std_complex, z.astype(np.complex64), backend=backend)


def take_modes(x, idx):
    return (np.take(x, idx, axis=0, mode="clip"), np.take(x, idx, mode="wrap"),
            np.take(x, idx[0], axis=1, mode="wrap"), np.take(x, idx, axis=-1, mode="clip"))


def ptp_forms(x):
    return np.ptp(x), np.ptp(x, axis=0), np.ptp(x, axis=1, keepdims=True)


def roll_tuples(x):
    return (np.roll(x, (1, 2), axis=(0, 1)), np.roll(x, (1, -3), axis=(1, 1)),
            np.roll(x, 2, axis=(0, 1)), np.roll(x, (1, 1)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8])
def test_take_modes_ptp_and_tuple_rolls(backend, dtype):
    x = (np.random.default_rng(3).random((4, 5)) * 50).astype(dtype)
    check(take_modes, x, np.array([0, 7, -9, -1, 3]), backend=backend)
    check(ptp_forms, x, backend=backend)
    check(roll_tuples, x, backend=backend)
    check(roll_tuples, np.asfortranarray(x), backend=backend)


def contiguous_views(A, x):
    r = np.ascontiguousarray(A[1])           # a C-contiguous row: A's own memory
    r[0] = -1.0
    c = np.ascontiguousarray(A[:, 1])        # a column: a copy
    c[0] = -2.0
    f = np.ascontiguousarray(x, dtype=np.float32)
    return A, c, f, np.ascontiguousarray(x[0]), np.ascontiguousarray(2.5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ascontiguousarray_is_the_array_when_no_copy_is_needed(backend):
    rng = np.random.default_rng(4)
    check(contiguous_views, rng.random((3, 4)), rng.random(5), backend=backend)
    check(contiguous_views, np.asfortranarray(rng.random((3, 4))), rng.random(5),
          backend=backend)


def rotations_and_fix(a):
    return (np.rot90(a), np.rot90(a, 2), np.rot90(a, -1), np.rot90(a, 3, axes=(1, 0)),
            np.rot90(a, 4), np.fix(a * 0.7), np.fix(-2.5))


def take_bad_mode(x):
    return np.take(x, [0, 1], mode="bogus")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.bool_])
def test_rot90_and_fix(backend, dtype):
    a = (np.arange(12).reshape(3, 4) - 5).astype(dtype)
    check(rotations_and_fix, a, backend=backend)
    check(rotations_and_fix, np.asfortranarray(a)[:, ::-1], backend=backend)
    check(rotations_and_fix, a.reshape(3, 2, 2), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_take_refuses_an_unknown_mode_as_numpy_does(backend):
    with pytest.raises(ValueError, match="clipmode must be one of"):
        take_bad_mode(np.arange(3.0))
    with pytest.raises(ValueError, match=r"test_creation_keywords.py:\d+.*clipmode must be"):
        solvent.jit(take_bad_mode, backend=backend)(np.arange(3.0))


def repeat_counts(x, v):
    return (np.repeat(x, [1, 2], axis=0), np.repeat(x, [2, 0, 1], axis=1), np.repeat(v, [1, 0, 2]),
            np.repeat(x, [2]), np.repeat(v, (0, 0, 0)), x.repeat([0, 1], axis=0),
            np.repeat(x, [1, 1, 1, 2, 0, 3]))


def repeat_bad_counts(v):
    return np.repeat(v, [1, 2])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.complex64, np.bool_])
def test_repeat_with_a_count_per_item(backend, dtype):
    # (was refused: "arrays of counts are not supported"); the native backend gathers no
    # complex values (automatic choice then runs XLA)
    if backend == "native" and dtype == np.complex64:
        backend = None
    x = (np.arange(6).reshape(2, 3) % 4).astype(dtype)
    v = np.array([4, 5, 6]).astype(dtype)
    check(repeat_counts, x, v, backend=backend)
    check(repeat_counts, np.asfortranarray(x), v[::-1], backend=backend)
    with pytest.raises(ValueError, match=r"test_creation_keywords.py:\d+.*could not be broadcast"):
        solvent.jit(repeat_bad_counts, backend=backend)(v)


def linspace_steps(a, b, lo32, hi32):
    return (np.linspace(a, b, 5, retstep=True), np.linspace(a, b, 1, retstep=True),
            np.linspace(a, 10.0, 4, endpoint=False, retstep=True, dtype=int),
            np.linspace(np.array([a, b]), 2.0, 3, retstep=True),
            np.linspace(lo32, hi32, 3, retstep=True))


@pytest.mark.parametrize("backend", ["xla", "interp"])   # native: no linspace of one sample
def test_linspace_retstep_as_numpy(backend):
    """The step (stop - start) / div in the computation's dtype (float32 endpoints: a
    float32), an array of steps for array endpoints, and NaN where there is no interval."""
    args = (0.5, 1.75, np.float32(0), np.float32(1))
    want = linspace_steps(*args)
    got = solvent.jit(linspace_steps, backend=backend)(*args)
    for (ws, wst), (gs, gst) in zip(want, got):
        assert gs.dtype == ws.dtype and np.array_equal(gs, ws)
        assert type(gst) is type(wst) and np.array_equal(gst, wst, equal_nan=True)
