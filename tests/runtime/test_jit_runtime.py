"""The runtime: specialization cache rule, scoped float64, argument binding, write-back."""
import jax
import numpy as np
import pytest

import solvent
from solvent.backends import get_backend


def time_loop(T, A):
    for t in range(T):
        A[1:-1] = 0.5 * (A[:-2] + A[2:])
    return A.sum()


def make(n, A):
    out = np.zeros(n)
    out[:3] = A[:3]
    return out


def test_scalar_loop_bound_does_not_recompile():
    f = solvent.jit(time_loop)
    A = np.random.rand(16)
    f(3, A.copy())
    f(50, A.copy())
    f(7, A.copy())
    assert len(f._cache) == 1


def test_new_shape_or_dtype_compiles_again():
    f = solvent.jit(time_loop)
    f(3, np.random.rand(16))
    f(3, np.random.rand(17))
    f(3, np.random.rand(16).astype(np.float32))
    assert len(f._cache) == 3


def test_integer_that_decides_a_shape_is_specialized_on_its_value():
    f = solvent.jit(make)
    A = np.arange(5.0)
    for n in (4, 6, 4):
        out = f(n, A)
        assert out.shape == (n,) and np.array_equal(out[:3], A[:3])
    assert len(f._cache) == 2  # n=4 and n=6; the second n=4 call is a cache hit
    assert f._static[next(iter(f._static))] == frozenset({0})


def test_float64_without_touching_jax_global_config():
    before = jax.config.jax_enable_x64
    out = solvent.jit(time_loop)(2, np.random.rand(8))
    assert isinstance(out, np.float64)
    assert jax.config.jax_enable_x64 == before
    assert jax.numpy.ones(2).dtype == (np.float64 if before else np.float32)


def test_keyword_arguments_bind_like_python():
    f = solvent.jit(time_loop)
    A = np.random.rand(8)
    B = A.copy()
    assert np.isclose(f(A=A, T=4), time_loop(4, B))
    assert np.array_equal(A, B)


def test_decorator_with_options_and_bad_options():
    @solvent.jit(backend="interp")
    def g(x):
        return x * 2.0
    assert np.array_equal(g(np.ones(3)), np.full(3, 2.0))
    with pytest.raises(ValueError):
        solvent.jit(time_loop, fallback="numba")
    with pytest.raises(ValueError):
        solvent.jit(time_loop, backend="tpu-magic")(1, np.ones(3))


def test_explain_names_stages_and_backend(capsys):
    text = solvent.explain(time_loop, 3, np.ones(8))
    assert "## after frontend" in text and "## after functionalize" in text
    assert "## backend: native" in text and "# why:" in text   # small time steps
    assert f"# {get_backend('native').describe()}\n" in text and \
        "# why: native: its loops' iterations write at most 14 array elements natively" in text
    assert text in capsys.readouterr().out
    # ~6e6 elements written per step, over STEP_WORK, but 1-D: still native (choice.py
    # StepWork.rank)
    text = solvent.explain(time_loop, 3, np.ones(3 * 10 ** 6))
    assert "## backend: native" in text and "work on 1-D arrays only" in text


def test_results_are_writable_arrays_and_keep_identity():
    def twice(x):
        y = x * 2.0
        z = x + 1.0
        return y, y, z
    a, b, c = solvent.jit(twice)(np.ones(4))
    assert a is b and a is not c          # NumPy returns the same object twice
    a[0] = 7.0
    assert b[0] == 7.0 and c[0] == 2.0 and a.flags.writeable


def newton_sqrt(a, tol=1e-12):
    x = a
    while abs(x * x - a) > tol:
        x = 0.5 * (x + a / x)
    return x


def test_default_arguments_are_run_time_values():
    f = solvent.jit(newton_sqrt)
    assert f(2.0) == newton_sqrt(2.0)
    assert f(2.0, 1e-3) == newton_sqrt(2.0, 1e-3)
    assert f(9.0, tol=1e-6) == newton_sqrt(9.0, tol=1e-6)
    assert len(f._cache) == 1
