"""Float ``//`` and ``%`` follow NumPy's ``npy_divmod`` bit for bit on every backend: the sign
of a zero quotient or remainder, near-integer quotients (where ``floor(a / b)`` is off by one),
infinities, NaN and division by zero (not subnormals: XLA:CPU flushes them to zero, see
the README). Every (a, b) pair of the edge values below, float64 and
float32, is compared with NumPy including the sign of zeros (found by the fuzzer, seeds 207
and 3352: ``1.0 // (-0.0 // 0.5)`` was ``-inf`` on XLA, NumPy ``inf``)."""
import itertools

import numpy as np
import pytest

import solvent

EDGES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 0.1, -0.1, 0.3, 2.9999999999999996,
         1e300, -1e-300, np.inf, -np.inf, np.nan, 7.0, 0.7]


def floordiv(a, b):
    return a // b


def remainder(a, b):
    return a % b


def divmod_pair(a, b):
    q, r = divmod(a, b)
    return q, r


def _same(x, y):
    x, y = np.asarray(x), np.asarray(y)
    assert x.dtype == y.dtype
    both_nan = np.isnan(x) & np.isnan(y)
    equal = (x == y) & (np.signbit(x) == np.signbit(y))
    bad = ~(both_nan | equal)
    assert not bad.any(), f"differs at {np.argwhere(bad)[:5].ravel()}: {x[bad][:5]} vs {y[bad][:5]}"


@pytest.mark.parametrize("backend", ["xla", "interp", "native"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kernel", [floordiv, remainder, divmod_pair])
def test_float_divmod_matches_numpy_bitwise(kernel, dtype, backend):
    with np.errstate(over="ignore"):  # 1e300 is inf in float32: one more edge value
        pairs = np.array(list(itertools.product(EDGES, EDGES)), dtype=dtype)
    a, b = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
    with np.errstate(all="ignore"):
        want = kernel(a, b)
        got = solvent.jit(kernel, backend=backend)(a, b)
    for w, g in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,)):
        _same(w, g)


def mixed_shapes(A, v, s):
    return A // v[:, None], A % s, s // v, v % A[:, 0], A[0] // A


@pytest.mark.parametrize("backend", ["xla", "interp", "native"])
def test_float_divmod_broadcasts(backend):
    rng = np.random.default_rng(0)
    A, v = rng.standard_normal((3, 4)), rng.standard_normal(3)
    with np.errstate(all="ignore"):
        want = mixed_shapes(A, v, 0.7)
    got = solvent.jit(mixed_shapes, backend=backend)(A, v, 0.7)
    for w, g in zip(want, got):
        _same(w, g)


def extrema(a, b):
    return np.maximum(a, b), np.minimum(a, b)


@pytest.mark.parametrize("backend", ["xla", "interp", "native"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_real_maximum_minimum_follow_numpy_on_ties_and_nan(dtype, backend):
    """Every pair of the edge values: a NaN in either operand wins, and on a tie the second
    operand (np.maximum(0.0, -0.0) is -0.0; XLA ordered -0.0 below 0.0 and native kept the
    first operand: the s25 loop probe's Floyd-Warshall with a -0.0 entry)."""
    pairs = np.array(list(itertools.product(EDGES, EDGES)), dtype=dtype)
    a, b = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
    want = extrema(a, b)
    got = solvent.jit(extrema, backend=backend)(a, b)
    for w, g in zip(want, got):
        _same(w, g)


C_EDGES = [0, 1, -1, 1j, -1j, 1 + 1j, 1 - 1j, np.nan, complex(np.nan, 1), complex(1, np.nan),
           complex(np.inf, 0), complex(0, -np.inf)]


@pytest.mark.parametrize("backend", ["xla", "interp"])  # native refuses complex arrays
def test_complex_maximum_minimum_follow_numpy_nan_and_order(backend):
    """Lexicographic order, and a NaN in either part wins (fuzzer seed 40105:
    np.maximum(nan+nanj, 1) was 1 on XLA)."""
    pairs = np.array(list(itertools.product(C_EDGES, C_EDGES)), dtype=np.complex128)
    a, b = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
    with np.errstate(all="ignore"):
        want = extrema(a, b)
    got = solvent.jit(extrema, backend=backend)(a, b)
    for w, g in zip(want, got):
        _same(w.real, g.real)
        _same(w.imag, g.imag)


def reduced_extrema(z):
    return np.max(z), np.min(z, axis=1), np.max(z, axis=0), np.min(z[:0], axis=1)


@pytest.mark.parametrize("backend", ["xla", "interp"])  # native refuses complex arrays
def test_complex_max_min_reductions_give_the_first_nan(backend):
    """A complex max/min over an axis gives the first element with a NaN part, as NumPy's
    does (fuzzer seed 628: XLA's skipped them); an empty set of rows gives no row."""
    n = np.nan
    z = np.array([[1 + 1j, complex(n, 2), 3 + 0j, 0j], [complex(2, n), 5 + 1j, complex(n, n), 1j],
                  [0j, 1j, 2 + 2j, -1j]])
    for w, g in zip(reduced_extrema(z), solvent.jit(reduced_extrema, backend=backend)(z)):
        w, g = np.asarray(w), np.asarray(g)
        assert w.shape == g.shape
        _same(w.real, g.real)
        _same(w.imag, g.imag)
