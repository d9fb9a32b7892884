"""Accuracy of the native backend's vector math in units in the last place: libmvec and the
LLVM intrinsics are allowed a few ulp where NumPy's own loops differ too, never more. The
differential `check` compares with a relative tolerance; this test bounds the error in ulp so
a routine that loses digits (a float32 routine called on float64 data, a fast-math rewrite)
fails even where a relative tolerance would pass it."""
import numpy as np
import pytest

import solvent
from test_native_vector_math import UNARY, powers

MAX_ULP = 8
rng = np.random.default_rng(29)


def _ulp_error(got, want):
    """Largest distance in ulp of `want`'s dtype over the finite, non-tiny values of `want`."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    keep = np.isfinite(want) & (np.abs(want) > np.finfo(want.dtype).tiny)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    if not keep.any():
        return 0.0
    return float(np.max(np.abs(got[keep] - want[keep]) / np.spacing(np.abs(want[keep]))))


def _plain(ufunc):
    def kernel(x):
        return ufunc(x)
    kernel.__name__ = f"plain_{ufunc.__name__}"
    return kernel


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions_within_a_few_ulp(name, dtype):
    ufunc, lo, hi = UNARY[name]
    with np.errstate(over="ignore"):  # log's range overflows float32 to inf
        x = rng.uniform(lo, hi, 4099).astype(dtype)
    f = solvent.jit(_plain(ufunc), backend="native")
    with np.errstate(all="ignore"):
        got, want = f(x), ufunc(x)
    assert _ulp_error(got, want) <= MAX_ULP, name


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pow_and_atan2_within_a_few_ulp(dtype):
    x = rng.uniform(0.1, 40, 2051).astype(dtype)
    y = rng.uniform(-6, 6, 2051).astype(dtype)
    f = solvent.jit(powers, backend="native")
    with np.errstate(all="ignore"):
        got, want = f(x, y), powers(x, y)
    assert _ulp_error(got[0], want[0]) <= MAX_ULP
    assert _ulp_error(got[1], want[1]) <= MAX_ULP


def test_the_bound_catches_a_lost_digit():
    """The measure itself: float32 rounding of float64 results is millions of ulp away."""
    x = rng.uniform(-5, 5, 101)
    assert _ulp_error(np.exp(x.astype(np.float32)).astype(np.float64), np.exp(x)) > 1e6
    assert _ulp_error(np.exp(x), np.exp(x)) == 0.0
