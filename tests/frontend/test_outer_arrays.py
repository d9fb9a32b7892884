"""Module-global and closure arrays read by a compiled function (frontend/translator.py
``outer_array``): implicit arguments passed on every call, as Python reads them at call
time. Writes into them between calls are seen, writes by the function reach them, and
rebinding the name to another array compiles again."""
import numpy as np
import pytest

import solvent
from differential import check

COEF = np.array([1.0, -2.0, 0.5])
TABLE_I8 = np.arange(12, dtype=np.int8).reshape(3, 4)[:, ::-1]      # strided, int8
COUNTS = np.zeros(4, np.int64)
WEIGHTS_F = np.asfortranarray(np.linspace(0, 1, 6).reshape(2, 3).astype(np.float32))


def poly(x):
    out = np.zeros_like(x)
    for k in range(COEF.shape[0]):
        out += COEF[k] * x ** k
    return out


def lookup(scale, idx):
    return scale * TABLE_I8[idx % 3].sum(axis=1)


def count_into_global(x):
    for v in x:
        COUNTS[int(v) % 4] += 1
    return COUNTS.sum()


def weighted(x):
    return WEIGHTS_F @ x


def returns_the_global():
    return COEF


BACKENDS = ["xla", "native", "interp", None]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 5])
def test_global_arrays_read_like_numpy(backend, n):
    rng = np.random.default_rng(n)
    check(poly, rng.standard_normal(n), backend=backend)
    check(poly, np.arange(n, dtype=np.float32), backend=backend)
    check(lookup, 3, rng.integers(0, 9, n), backend=backend)
    check(weighted, rng.standard_normal(3).astype(np.float32), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_into_a_global_between_calls_are_seen_and_rebinding_compiles_again(backend):
    global COEF
    saved = COEF
    try:
        f = solvent.jit(poly, backend=backend)
        x = np.linspace(-1, 1, 4)
        assert np.allclose(f(x), poly(x))
        COEF[0] = 7.0                          # in place: the next call reads it
        assert np.allclose(f(x), poly(x))
        COEF = np.array([0.0, 1.0])            # rebound (another length): compiled again
        assert np.allclose(f(x), x)
    finally:
        COEF = saved
        COEF[0] = 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_function_writes_into_a_global_as_numpy_does(backend):
    COUNTS[:] = 0
    want = count_into_global(np.array([1, 2, 5, 7], np.int8))
    expected = COUNTS.copy()
    COUNTS[:] = 0
    got = solvent.jit(count_into_global, backend=backend)(np.array([1, 2, 5, 7], np.int8))
    assert got == want and np.array_equal(COUNTS, expected)


def test_a_returned_global_is_the_global_itself():
    assert solvent.jit(returns_the_global)() is COEF


def _make_closure():
    table = np.array([1.0, 2.0, 3.0])

    def scaled(x):
        return x * table
    return scaled, table


@pytest.mark.parametrize("backend", BACKENDS)
def test_closure_arrays_are_read_at_call_time(backend):
    f, table = _make_closure()
    jf = solvent.jit(f, backend=backend)
    assert np.array_equal(jf(np.ones(3)), table)
    table[0] = 100.0
    assert np.array_equal(jf(np.ones(3)), f(np.ones(3)))


W2 = np.array([[1.0, 2.0], [0.5, -1.0]])


def _loss(x):
    return np.sum(np.tanh(W2 @ x) ** 2)


def test_gradients_read_the_global_array_at_call_time():
    g = solvent.grad(_loss)
    x, eps = np.array([0.3, -0.2]), 1e-6

    def fd():
        return np.array([(_loss(x + eps * e) - _loss(x - eps * e)) / (2 * eps)
                         for e in np.eye(2)])
    assert np.allclose(g(x), fd(), rtol=1e-6)
    saved = W2[0, 0]
    try:
        W2[0, 0] = 3.0
        assert np.allclose(g(x), fd(), rtol=1e-6)
    finally:
        W2[0, 0] = saved
