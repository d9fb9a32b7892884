"""A scalar stored into an integer array the way NumPy does it: a float (or a np.uint64)
into a signed integer array, and a Python float into an unsigned one, goes through a Python
int: NaN raises ValueError, an infinity or a value out of the dtype's range OverflowError,
and the rest is truncated. A NumPy float scalar into an unsigned array, and every array
store, is a cast. Each case against NumPy on every backend: the same values, or the same
exception type (NumPy's message for the out-of-range ones)."""
import numpy as np
import pytest

import solvent

BACKENDS = ("interp", "native", "xla")


def store_one(a, v):
    a[0] = v


def store_row(a, v):
    a[1:] = v


def store_in_loop(a, x):
    for i in range(x.shape[0]):
        a[i] = x[i] * 2.0


def scaled_in_place(a, s):
    a[0] *= s


VALUES = {
    float: [2.7, -2.7, 300.0, -1.0, 1e30, float("nan"), float("inf"), -0.0],
    np.float64: [np.float64(v) for v in (2.7, -2.7, 300.0, -1.0, 1e30, np.nan, -np.inf)],
    np.float32: [np.float32(v) for v in (2.7, 300.0, -1.0, np.nan)],
    np.uint64: [np.uint64(v) for v in (5, 300, 2**63, 2**64 - 1)],
}
DTYPES = (np.int8, np.int64, np.uint8, np.uint64)


def outcome(fn, a, v):
    try:
        with np.errstate(all="ignore"):
            fn(a, v)
        return a
    except (ValueError, OverflowError) as e:
        return type(e)


def same(got, want, what):
    if isinstance(want, type):
        assert got is want, what
    else:
        assert not isinstance(got, type), what
        assert got.dtype == want.dtype and np.array_equal(got, want), what


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,kind", [(store_one, k) for k in VALUES] + [(store_row, np.float64)],
                         ids=lambda p: getattr(p, "__name__", p))
def test_scalar_store_follows_numpy(fn, kind, backend):
    for dt in DTYPES:
        jf = solvent.jit(fn, backend=backend)
        for v in VALUES[kind]:
            want = outcome(fn, np.zeros(3, dt), v)
            got = outcome(jf, np.zeros(3, dt), v)
            same(got, want, (dt.__name__, repr(v)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_elements_stored_in_a_loop(backend):
    jf = solvent.jit(store_in_loop, backend=backend)
    ok = np.array([1.3, -60.0, 63.9])
    a = np.zeros(3, np.int8)
    jf(a, ok)
    assert np.array_equal(a, [2, -120, 127])
    for bad, err in ((np.array([1.0, np.nan, 2.0]), ValueError),
                     (np.array([1.0, 64.0, 2.0]), OverflowError),
                     (np.array([np.inf, 1.0, 2.0]), OverflowError)):
        a = np.zeros(3, np.int8)
        with pytest.raises(err, match="test_scalar_store_through_int.py"):
            jf(a, bad)
        assert not a.any()                  # nothing written when the call fails


@pytest.mark.parametrize("backend", BACKENDS)
def test_augmented_store_of_a_float_product(backend):
    jf = solvent.jit(scaled_in_place, backend=backend)
    a = np.array([5, 1], np.int8)
    jf(a, 20.5)
    assert a.tolist() == [102, 1]
    a = np.array([5, 1], np.int8)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        jf(a, np.float64(100.0))            # NumPy: Python integer 500 out of bounds
    assert a.tolist() == [5, 1]
