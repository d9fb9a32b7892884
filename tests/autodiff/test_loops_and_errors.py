"""Reverse mode through loops, ifs and in-place updates; the API's errors; optimized vs
unoptimized gradients; a while loop with a data-dependent trip count (which ``jax.grad``
rejects on the direct JAX port)."""
from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402
from solvent.autodiff import vjp_function  # noqa: E402
from solvent.backends import get_backend  # noqa: E402
from solvent.frontend.translator import translate  # noqa: E402
from solvent.ir.verifier import verify  # noqa: E402
from solvent.passes.pipeline import run_pipeline  # noqa: E402

BACKENDS = ["xla", "interp"]


def check_grad(f, args, argnums, backend, rtol=1e-6):
    g = solvent.grad(f, argnums, backend=backend)(*args)
    g = g if isinstance(argnums, tuple) else (g,)
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for k, gk in zip(nums, g):
        exp = fd_grad(lambda *a: f(*[x.copy() if isinstance(x, np.ndarray) else x
                                     for x in a]), args, k)
        np.testing.assert_allclose(gk, exp, rtol=rtol, atol=1e-7, err_msg=f"argument {k}")


def power_loop(x, n):
    y = x.copy()
    for i in range(n):
        y = np.sin(y) * x + 0.5 * y
    return np.sum(y * y)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("trips", [0, 1, 2, 7])
def test_trip_counts(trips, backend):
    x = np.random.default_rng(trips).standard_normal(5)
    check_grad(power_loop, (x, trips), 0, backend)


def before_and_after(x, w, n):
    a = np.exp(x) * w          # defined before the loop ...
    s = np.zeros_like(x)
    for i in range(n):
        s = s + a * np.cos(s)  # ... used inside ...
    return np.sum(s) + np.sum(a * a)  # ... and after it


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_defined_before_loop_and_used_after(backend):
    rng = np.random.default_rng(3)
    check_grad(before_and_after, (rng.standard_normal(4), rng.standard_normal(4), 3), (0, 1),
               backend)


def overwrite(x, n):
    u = x.copy()
    for t in range(n):
        u[1:-1] = 0.5 * u[1:-1] * u[2:] + np.sin(u[:-2])  # slots overwritten each trip
        u[0] = u[-1] * u[1]                                # one slot overwritten
    return np.sum(u ** 3)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("trips", [0, 1, 2, 5])
def test_array_slot_overwritten_inside_loop(trips, backend):
    x = np.random.default_rng(trips).uniform(-1, 1, 6)
    check_grad(overwrite, (x, trips), 0, backend)


def mutate_argument(u, w):
    u *= w
    u[1:] += u[:-1] * w[1:]
    return np.sum(np.tanh(u))


@pytest.mark.parametrize("backend", BACKENDS)
def test_function_that_mutates_its_argument(backend):
    rng = np.random.default_rng(5)
    u, w = rng.standard_normal(5), rng.standard_normal(5)
    u0 = u.copy()
    check_grad(mutate_argument, (u, w), (0, 1), backend)
    np.testing.assert_array_equal(u, u0)  # the gradient writes nothing back
    outs, vjp_fn = solvent.vjp(mutate_argument, u, w, backend=backend)
    ref = u.copy()
    ret = mutate_argument(ref, w)
    np.testing.assert_allclose(outs[0], ret, rtol=1e-12)
    np.testing.assert_allclose(outs[1], ref, rtol=1e-12)  # the mutated argument's final value
    ct_u = np.random.default_rng(6).standard_normal(5)
    gu, gw = vjp_fn((0.0, ct_u))

    def loss(u_, w_):
        v = u_.copy()
        mutate_argument(v, w_)
        return float(np.sum(v * ct_u))
    np.testing.assert_allclose(gu, fd_grad(loss, (u, w), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, fd_grad(loss, (u, w), 1), rtol=1e-6, atol=1e-8)


def set_and_return(x):
    x[0] = 7.0
    return x


def scale_a_view_and_return_it(x):
    y = x[1:]
    y *= 2.0
    return y


@pytest.mark.parametrize("backend", BACKENDS + ["native"])
@pytest.mark.parametrize("fn", [set_and_return, scale_a_view_and_return_it])
def test_vjp_returns_a_mutated_argument_at_its_final_value(fn, backend):
    """``return x`` (or a view of x) after mutating x: the returned value is x's final value,
    as NumPy's call returns it (it was the caller's unchanged array), and a new array: the
    caller's stays as it was."""
    x = np.array([1.0, 2.0, 3.0])
    ref = x.copy()
    want = fn(ref)
    (ret, final), vjp_fn = solvent.vjp(fn, x, backend=backend)
    np.testing.assert_array_equal(ret, want)
    np.testing.assert_array_equal(final, ref)
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])
    assert not np.shares_memory(ret, x)
    ct_r, ct_x = np.array([0.5, -1.0, 2.0])[:want.shape[0]], np.array([1.0, 3.0, -2.0])

    def loss(x_):
        v = x_.copy()
        return float(np.sum(fn(v) * ct_r) + np.sum(v * ct_x))
    np.testing.assert_allclose(vjp_fn((ct_r, ct_x))[0], fd_grad(loss, (x,), 0), rtol=1e-6,
                               atol=1e-8)


def branchy(x, c):
    s = 0.0
    for i in range(4):
        if np.sum(x) * i > c:
            s = s + np.sum(np.exp(x) * i)
        else:
            s = s - np.sum(x * x)
    return s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("c", [-100.0, 0.0, 100.0])
def test_if_inside_loop(c, backend):
    x = np.random.default_rng(1).standard_normal(4)
    check_grad(branchy, (x, c), 0, backend)


def nested(x, n):
    y = x.copy()
    for i in range(n):
        for j in range(3):
            y = y * 0.9 + np.sin(y[::-1]) * (j + 1)
    return np.sum(y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_loops(backend):
    x = np.random.default_rng(2).standard_normal(4)
    check_grad(nested, (x, 3), 0, backend)


def newton_sqrt(a, tol):
    """Iterate until the residual is small: the trip count depends on the data."""
    x = a.copy()
    r = np.max(np.abs(x * x - a))
    while r > tol:
        x = 0.5 * (x + a / x)
        r = np.max(np.abs(x * x - a))
    return np.sum(x * a)


def newton_sqrt_jax(a, tol):
    """``newton_sqrt`` ported to JAX directly: the while loop becomes ``lax.while_loop``."""
    import jax
    import jax.numpy as jnp

    def cond(c):
        return c[1] > tol

    def body(c):
        x, _ = c
        x = 0.5 * (x + a / x)
        return x, jnp.max(jnp.abs(x * x - a))
    x, _ = jax.lax.while_loop(cond, body, (a, jnp.max(jnp.abs(a * a - a))))
    return jnp.sum(x * a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_loop_with_data_dependent_trip_count(backend):
    """solvent differentiates the loop; jax.grad refuses the same program ported to JAX."""
    a = np.array([2.0, 9.0, 0.5, 30.0])
    g = solvent.grad(newton_sqrt, backend=backend)(a, 1e-10)
    # d/da sum(sqrt(a) * a) = 1.5 sqrt(a), up to the last Newton step's error
    np.testing.assert_allclose(g, 1.5 * np.sqrt(a), rtol=1e-8)
    np.testing.assert_allclose(g, fd_grad(lambda a_: newton_sqrt(a_, 1e-10), (a,), 0),
                               rtol=1e-6)
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        ja = jax.numpy.array(a)
        assert float(newton_sqrt_jax(ja, 1e-10)) == pytest.approx(newton_sqrt(a, 1e-10),
                                                                  rel=1e-12)
        with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
            jax.grad(newton_sqrt_jax)(ja, 1e-10)


def test_run_time_trip_count_recomputes():
    """A loop.for whose trip count is a run-time value (no tape): the reverse pass
    recomputes the carried values; same gradient as the taped (compile-time) version."""
    x = np.random.default_rng(4).standard_normal(5)
    tr = translate(power_loop, (x, 4))  # n stays a run-time i64 argument
    fn = run_pipeline(tr.fn)
    g, seeded = vjp_function(fn, [0])
    verify(g, tensor_only=True)
    for backend in BACKENDS:
        outs = get_backend(backend).compile(g)(x, 4, 1.0)
        np.testing.assert_allclose(outs[-1], solvent.grad(power_loop)(x, 4), rtol=1e-12)


def test_integer_argument_is_refused_by_name():
    with pytest.raises(solvent.DifferentiationError, match="argument 'n'"):
        solvent.grad(power_loop, 1)(np.ones(3), 2)
    with pytest.raises(solvent.DifferentiationError, match="argument 'x'"):
        solvent.grad(power_loop, 0)(np.arange(3), 2)


def complex_exp(x):
    y = np.exp(np.fft.fft(x))
    return np.sum(np.abs(y))


def test_op_without_rule_names_the_source_line():
    """Every op has a rule now; exp of a complex value is one without a complex rule."""
    import inspect
    line = inspect.getsourcelines(complex_exp)[1] + 1
    with pytest.raises(solvent.DifferentiationError,
                       match=rf"tensor.exp at line {line}\b"):
        solvent.grad(complex_exp)(np.ones(3))


def sine_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(np.sin(x * i))
    return s


def test_op_without_a_vjp_rule_names_op_and_line(monkeypatch):
    """An op whose rule is missing from the table (here sin's, removed for the test) is
    refused with the op's name and source line, also inside a loop."""
    import inspect
    from solvent.ir.registry import _VJPS
    monkeypatch.delitem(_VJPS, "tensor.sin")
    line = inspect.getsourcelines(sine_loop)[1] + 3
    with pytest.raises(solvent.DifferentiationError,
                       match=rf"tensor.sin at line {line}\b.*no VJP rule"):
        solvent.grad(sine_loop)(np.ones(3), 4)


def sqrt_or_linear(y):
    if y > 0:
        r = y ** 0.5
    else:
        r = 2.0 * y
    return r


def guarded_inverse(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] != 0.0:
            s += 1.0 / x[i]
    return s


def entropy(p):
    s = 0.0
    for i in range(len(p)):
        if p[i] > 0:
            s -= p[i] * math.log(p[i])
    return s


def pair_energy(p):
    n = p.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            e += 1.0 / (p[i] - p[j]) ** 2
    return e


@pytest.mark.parametrize("backend", BACKENDS + ["native"])
@pytest.mark.parametrize("fn,arg", [
    (sqrt_or_linear, -1.0), (sqrt_or_linear, 4.0),
    (guarded_inverse, np.array([2.0, 0.0, -0.5])),
    (entropy, np.array([0.0, 0.25, 0.75, 0.0])),
    (pair_energy, np.array([0.0, 1.0, 3.0, -2.0]))])
def test_a_branch_not_taken_gives_no_nan(fn, arg, backend):
    """Once ``if`` is a ``select`` (and a triangular loop a masked rectangle), the branch not
    taken at an element is computed there too, and its derivative can be inf or NaN
    (sqrt'(-1), 1/0 on the diagonal): its zero cotangent must contribute zero, as in the
    unoptimized program, which never differentiates it."""
    got = solvent.grad(fn, backend=backend)(arg)
    want = solvent.grad(fn, backend="interp", optimize=False)(arg)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=0)
    assert np.all(np.isfinite(got))
    if fn in (sqrt_or_linear, pair_energy):   # (the others' zeros are a kink and a jump)
        np.testing.assert_allclose(got, fd_grad(fn, (arg,), 0), rtol=1e-6, atol=1e-8)


def scaled_sum(x, s):
    return np.sum(x * s)


def test_keyword_arguments_and_numpy_scalars():
    """Arguments passed by keyword count by parameter position (``argnums``); a NumPy
    float32 scalar's gradient is an np.float32 (a Python float's a float); an unknown
    keyword names the user's function, not a wrapper."""
    x = np.array([1.0, 2.0])
    assert solvent.grad(scaled_sum, 1)(x, s=2.0) == pytest.approx(3.0)
    v, (gx, gs) = solvent.value_and_grad(scaled_sum, (0, 1))(s=3.0, x=x)
    assert v == pytest.approx(9.0)
    np.testing.assert_array_equal(gx, [3.0, 3.0])
    assert gs == pytest.approx(3.0) and type(gs) is float
    g32 = solvent.grad(scaled_sum, 1)(x.astype(np.float32), np.float32(2.0))
    assert type(g32) is np.float32 and g32 == pytest.approx(3.0)
    _, vjp_fn = solvent.vjp(scaled_sum, x.astype(np.float32), np.float32(2.0))
    assert type(vjp_fn(np.float32(1.0))[1]) is np.float32
    with pytest.raises(TypeError, match=r"scaled_sum\(\): got an unexpected keyword"):
        solvent.grad(scaled_sum)(x, 2.0, t=1.0)


def test_negative_argnums_count_from_the_last_parameter():
    """``argnums=-1`` is the last parameter, as in ``jax.grad`` (it raised "argnums -1 is
    out of range"), also when the last parameter is passed by keyword or left at its
    default; one past the first parameter is still out of range."""
    x = np.array([1.0, 2.0])
    assert solvent.grad(scaled_sum, -1)(x, 2.0) == pytest.approx(3.0)
    assert solvent.grad(scaled_sum, -1)(x, s=2.0) == pytest.approx(3.0)
    v, (gs, gx) = solvent.value_and_grad(scaled_sum, (-1, -2))(x, 2.0)
    assert v == pytest.approx(6.0) and gs == pytest.approx(3.0)
    np.testing.assert_array_equal(gx, [2.0, 2.0])
    _, vjp_fn = solvent.vjp(scaled_sum, x, 2.0, argnums=(-1,))
    assert vjp_fn(1.0)[0] == pytest.approx(3.0)
    with pytest.raises(ValueError, match="out of range"):
        solvent.grad(scaled_sum, -3)(x, 2.0)


def linspace_loss(a, b):
    return np.sum(np.linspace(a, b, 5) ** 2 * np.arange(5.0)) + np.sum(np.linspace(b, a, 3, endpoint=False))


@pytest.mark.parametrize("backend", BACKENDS + ["native"])
def test_linspace_endpoints_have_gradients(backend):
    """np.linspace(a, b, n) is linear in a and b (it raised "tensor.linspace ... has no VJP
    rule")."""
    check_grad(linspace_loss, (0.3, 1.7), (0, 1), backend)


def kw_only_loss(x, *, w):
    return np.sum(x * w * x)


def var_loss(x, *rest, **kw):
    return np.sum(x * x) * rest[0] + kw["s"] * np.sum(x)


class Weighted:
    def __init__(self, w):
        self.w = w

    def loss(self, x, s=2.0):
        return np.sum(self.w * x * x) * s


def test_keyword_only_varargs_methods_and_partials_bind_as_jit_does():
    """grad binds arguments as solvent.jit does: keyword-only parameters, *args and **kwargs
    (they raised "missing a required argument: 'w'" / "f() takes 2 positional arguments"), a
    bound method (raised "name 'self' is not defined") and a functools.partial (raised
    AttributeError '__code__'); argnums count the parameters left to the caller."""
    import functools
    x, w = np.array([1.0, 2.0, 3.0]), np.array([0.5, 1.0, -1.0])
    np.testing.assert_allclose(solvent.grad(kw_only_loss, 1)(x, w=w), x * x)
    np.testing.assert_allclose(solvent.grad(kw_only_loss)(x, w=w), 2 * w * x)
    np.testing.assert_allclose(solvent.grad(var_loss)(x, 3.0, s=2.0), 6 * x + 2.0)
    m = Weighted(w)
    np.testing.assert_allclose(solvent.grad(m.loss)(x), 4 * w * x)
    gx, gs = solvent.grad(m.loss, (0, -1))(x, 3.0)
    np.testing.assert_allclose(gx, 6 * w * x)
    assert gs == pytest.approx(np.sum(w * x * x))
    p = functools.partial(kw_only_loss, w=w)
    v, g = solvent.value_and_grad(p)(x)
    assert v == pytest.approx(kw_only_loss(x, w=w))
    np.testing.assert_allclose(g, 2 * w * x)
    out, vjp_fn = solvent.vjp(functools.partial(Weighted.loss, m), x, 3.0)
    assert out == pytest.approx(m.loss(x, 3.0))
    gx, gs = vjp_fn(1.0)   # the partial's own argument (m) gets no cotangent
    np.testing.assert_allclose(gx, 6 * w * x)


def test_grad_needs_a_float_scalar():
    with pytest.raises(solvent.DifferentiationError, match="one float scalar"):
        solvent.grad(lambda_free_vector)(np.ones(3))


def lambda_free_vector(x):
    return x * 2.0


def test_value_and_grad_and_gradient_program_passes_the_verifier():
    x = np.random.default_rng(0).standard_normal(3)
    v, g = solvent.value_and_grad(power_loop)(x, 3)
    assert v == pytest.approx(power_loop(x, 3), rel=1e-12)
    np.testing.assert_allclose(g, fd_grad(lambda a: power_loop(a, 3), (x,), 0), rtol=1e-6)


def pick(x, y, t):
    """Returns its argument on one path of a run-time if, a new value on the other."""
    if np.sum(x) > t:
        return x
    return y * 2.0


@pytest.mark.parametrize("t", [-100.0, 100.0])
def test_vjp_of_an_argument_returned_on_one_path(t):
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    out, vjp_fn = solvent.vjp(pick, x, y, t, argnums=(0, 1))
    np.testing.assert_array_equal(out, pick(x, y, t))
    ct = np.array([0.5, -2.0])
    gx, gy = vjp_fn(ct)
    np.testing.assert_array_equal(gx, ct if t < 0 else 0.0)
    np.testing.assert_array_equal(gy, 0.0 if t < 0 else 2.0 * ct)


def lu_by_row_slices(A):
    n = A.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] = A[i, k] / A[k, k]
            A[i, k + 1:] -= A[i, k] * A[k, k + 1:]   # its length follows k
    return np.sum(A)


def test_a_slice_of_run_time_length_is_refused_with_the_line_and_a_rewrite():
    with pytest.raises(solvent.DifferentiationError, match=r"slice with run-time bounds .*"
                       r"test_loops_and_errors\.py:\d+.* has a length known only at run "
                       r"time, .*write the slice as a loop over its elements"):
        solvent.grad(lu_by_row_slices)(np.eye(3) * 4.0 + 1.0)
