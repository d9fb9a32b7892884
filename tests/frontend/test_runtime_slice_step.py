"""Slices whose step is computed at run time: ``is_prime[i * i::i] = False`` (the sieve of
Eratosthenes), ``x[::k]`` with ``k`` a loop variable, negative steps, 2-D. They were refused
("a slice step must be known at compile time"); now the step is an index operand of the
slice (``["r", j, k, 0, m]``, ops/indexspec.py), checked not to be zero (NumPy's
ValueError). Each kernel runs on the backends that take run-time lengths against NumPy on
the same source; XLA refuses it with the construct and line, and automatic choice runs it."""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from solvent.errors import UnsupportedError

BACKENDS = ["native", "interp", None]   # None: automatic choice


def sieve(n):
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_p[i]:
            is_p[i * i::i] = False
    return np.nonzero(is_p)[0]


def strided_sums(x, kmax):
    out = np.zeros(kmax)
    for k in range(1, kmax + 1):
        out[k - 1] = x[::k].sum() - x[::-k].sum() + x[k - 1::k].max()
    return out


def reversed_from(x, k):
    # steps of both signs chosen at run time, bounds past the ends
    s = 0.0
    for step in (-k, k, -1, 1):
        s += np.sum(x[len(x) + 3:-len(x) - 5:step]) + np.sum(x[-2::step] * 2.0)
    return s


def decimate_rows(a, f):
    # 2-D: every f-th row, and every f-th column from the end, f an array value
    step = int(f[0])
    b = a[::step, :].copy()
    c = a[:, ::-step]
    return b.sum(axis=0), c.sum(axis=1)


def strided_update(x, k):
    for i in range(1, k):
        x[i::i] += 1
        x[-1::-i] *= 2
    return x


def zero_step(x, k):
    for i in range(k):
        x[::i] = 0.0     # i == 0 first: NumPy's ValueError before any write
    return x


def _inputs():
    rng = np.random.default_rng(7)
    yield "C", rng.standard_normal(23)
    yield "F-strided", np.asfortranarray(rng.standard_normal((6, 5)))[:, 1]
    yield "reversed", rng.standard_normal(17)[::-1]
    yield "float32", rng.standard_normal(11).astype(np.float32)
    yield "one", np.array([2.5])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 30, 97, 100])
def test_sieve(backend, n):
    np.testing.assert_array_equal(solvent.jit(sieve, backend=backend)(n), sieve(n))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,x", list(_inputs()))
def test_reads_with_run_time_steps(backend, name, x):
    kmax = max(1, len(x))
    np.testing.assert_allclose(solvent.jit(strided_sums, backend=backend)(x, kmax),
                               strided_sums(x, kmax), rtol=1e-6)
    for k in (1, 2, 5, 40):
        np.testing.assert_allclose(solvent.jit(reversed_from, backend=backend)(x, k),
                                   reversed_from(x, k), rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("f", [1, 2, 3, 7])
def test_two_d_steps(backend, order, f):
    a = np.asarray(np.arange(42.0).reshape(6, 7), order=order)
    fa = np.array([f], dtype=np.int8)
    got = solvent.jit(decimate_rows, backend=backend)(a, fa)
    for g, e in zip(got, decimate_rows(a, fa)):
        np.testing.assert_allclose(g, e)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex64])
def test_in_place_updates(backend, dtype):
    x = (np.arange(13) % 5).astype(dtype)
    want = strided_update(x.copy(), 6)
    got = x.copy()
    r = solvent.jit(strided_update, backend=backend)(got, 6)
    np.testing.assert_array_equal(r, want)
    np.testing.assert_array_equal(got, want)     # the caller's array, updated in place


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_step_raises_and_leaves_the_array(backend):
    x = np.arange(5.0)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        zero_step(x.copy(), 3)
    with pytest.raises(ValueError, match="slice step cannot be zero") as e:
        solvent.jit(zero_step, backend=backend)(x, 3)
    assert "test_runtime_slice_step.py" in str(e.value)
    np.testing.assert_array_equal(x, np.arange(5.0))


def test_xla_refuses_with_the_line():
    with pytest.raises(UnsupportedError, match=r"run-time bounds.*test_runtime_slice_step.py"):
        solvent.jit(sieve, backend="xla")(10)
