"""``x ** 0.5``: NumPy's float power loop takes the square root where one scalar exponent
0.5 meets an array (``(-inf) ** 0.5`` is NaN, ``(-0.0) ** 0.5`` is -0.0), while a scalar
base (``x[i] ** 0.5``) and ``np.float_power`` use C's pow (inf, 0.0). Each form against
NumPy, bit for bit (sign of zero and NaN included), on every backend."""
import numpy as np
import pytest

import solvent

BACKENDS = ("interp", "native", "xla")


def array_half(x):
    return x ** 0.5


def ufunc_half(x):
    return np.power(x, 0.5)


def runtime_exponent(x, e):
    return x ** e


def in_place(x):
    x **= 0.5


def element_loop(x):
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i] ** 0.5
    return y


def float_power(x):
    return np.float_power(x, 0.5)


def exponent_array(x, e):
    return x ** e


X = np.array([-np.inf, -0.0, 0.0, 4.0, np.inf, -1.0, np.nan, 2.0])
CASES = [
    (array_half, (X,)), (array_half, (X.astype(np.float32),)), (ufunc_half, (X,)),
    (runtime_exponent, (X, 0.5)), (runtime_exponent, (X, 2.0)), (in_place, (X,)),
    (element_loop, (X,)), (float_power, (X,)), (exponent_array, (X, np.full(8, 0.5))),
    (array_half, (np.array([-4 + 0j, 9 + 0j, -0.0 + 0j], np.complex64),)),   # (XLA: 1 ulp off
    # NumPy elsewhere, as for np.sqrt)
]


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "c":   # complex64 ** 0.5 is NumPy's sqrt: (-4) ** 0.5 is exactly 2j
        assert a.dtype == b.dtype
        same_bits(a.real, b.real)
        same_bits(a.imag, b.imag)
        return
    assert a.dtype == b.dtype and a.shape == b.shape
    both_nan = np.isnan(a) & np.isnan(b)
    assert np.array_equal(np.where(both_nan, 0, a), np.where(both_nan, 0, b))
    assert np.array_equal(np.signbit(a) | both_nan, np.signbit(b) | both_nan), (a, b)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in
                                                 enumerate(CASES)])
def test_power_of_one_half_follows_numpy(fn, args, backend):
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"):
        want = fn(*want_args)
    got = solvent.jit(fn, backend=backend)(*got_args)
    if want is None:
        same_bits(got_args[0], want_args[0])
    else:
        same_bits(got, want)
