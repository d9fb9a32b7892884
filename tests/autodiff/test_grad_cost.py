"""What the gradient program keeps and copies (issue 11's cheap-gradient principle), checked
on the IR and against finite differences: a long linear time loop whose reverse steps read no
state records no tape and is not checkpointed; a transpose read by a product and by its
rule's product is not materialized."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402
from solvent.autodiff.checkpoint import AUTO_BYTES  # noqa: E402


def smooth(u, c, steps):
    """A linear time loop: the reverse step's cotangents need none of the states."""
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * np.arange(u.shape[0]))


def wavy(u, c, steps):
    """The same loop made nonlinear: its reverse steps read the states."""
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2.0 * u[1:-1] + u[:-2]) + 0.01 * np.sin(u[1:-1])
    return np.sum(u * np.arange(u.shape[0]))


def _loss(f):
    return lambda u, c, steps: float(f(u.copy(), c, steps))


def test_linear_loop_over_the_budget_keeps_no_tape():
    """10,000 steps of a 1,024-element state would tape 82 MB (over the automatic budget):
    with respect to ``u`` only (``c`` a constant), nothing is taped or checkpointed, and the
    gradient passes the dot-product test against finite differences of NumPy."""
    steps, n = 10_000, 1024
    assert steps * (n - 2) * 8 > AUTO_BYTES
    rng = np.random.default_rng(3)
    u, c = rng.standard_normal(n), 0.1
    gf = solvent.grad(smooth, 0)
    g = gf(u.copy(), c, steps)
    report = gf.compiled(u.copy(), c, steps).report
    assert report["checkpointed"] == [] and report["tape_bytes"] == 0
    v = rng.standard_normal(n)
    assert rel_close(directional(_loss(smooth), (u, c, steps), [0], [v]), float(v @ g), 1e-6)


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_state_read_by_the_reverse_pass_is_still_checkpointed(backend):
    """With ``c`` differentiated too (its cotangent reads every state) and the nonlinear
    loop, the tape is kept, and a forced budget checkpoints it; both equal finite
    differences."""
    rng = np.random.default_rng(4)
    u, c, steps = rng.standard_normal(7), 0.2, 9
    for f in (smooth, wavy):
        taped = solvent.grad(f, (0, 1), checkpoints=0, backend=backend)
        ck = solvent.grad(f, (0, 1), checkpoints=2, backend=backend)
        gt, gk = taped(u.copy(), c, steps), ck(u.copy(), c, steps)
        assert taped.compiled(u.copy(), c, steps).report["tape_bytes"] > 0
        assert ck.compiled(u.copy(), c, steps).report["checkpointed"]
        for a, b in zip(gt, gk):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gt[0], fd_grad(_loss(f), (u, c, steps), 0),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gt[1], fd_grad(_loss(f), (u, c, steps), 1),
                                   rtol=1e-6, atol=1e-8)


def test_linear_loop_under_a_forced_budget_is_not_checkpointed():
    """``checkpoints=k`` on a loop whose reverse steps read no state: nothing to snapshot."""
    u = np.random.default_rng(5).standard_normal(6)
    gf = solvent.grad(smooth, 0, checkpoints=2, backend="interp")
    g = gf(u.copy(), 0.3, 8)
    assert gf.compiled(u.copy(), 0.3, 8).report["checkpointed"] == []
    np.testing.assert_allclose(g, fd_grad(_loss(smooth), (u, 0.3, 8), 0), rtol=1e-6, atol=1e-8)


def chain(A, B, x):
    return A @ (B.T @ x)


def chain_loss(A, B, x, w):
    return np.sum((A @ (B.T @ x)) * w)


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_transpose_read_by_two_products_is_not_copied(backend):
    """``B.T`` is read by the product and by the product's cotangent rule: the gradient
    program's products read ``B`` with the contracted dims renamed, with no transpose op;
    the cotangents equal finite differences (non-square shapes, Fortran-ordered ``B``)."""
    rng = np.random.default_rng(6)
    A = rng.standard_normal((3, 4))
    B = np.asfortranarray(rng.standard_normal((5, 4)))
    x = rng.standard_normal(5)
    ct = rng.standard_normal(3)
    out, vjp_fn = solvent.vjp(chain, A, B, x, backend=backend)
    np.testing.assert_allclose(out, chain(A, B, x), rtol=1e-13)
    got = vjp_fn(ct)
    g = solvent.grad(chain_loss, (0, 1, 2), backend=backend).compiled(A, B, x, ct)
    assert not [op for op in g.fn.walk() if op.name == "tensor.transpose"]
    for k, arg in enumerate((A, B, x)):
        ref = fd_grad(lambda *a: float(chain(*a) @ ct), (A, B, x), k)
        np.testing.assert_allclose(got[k], ref, rtol=1e-6, atol=1e-8)


def is_zero_guard(op) -> bool:
    """``select(ct == 0, 0, ct * d)``: a rule's guard (rules_elementwise.nothing_from_zero)."""
    from solvent.ir.rewrite import constant_value
    cond = op.operands[0].owner
    return getattr(cond, "name", None) == "tensor.eq" and \
        constant_value(cond.operands[1]) == 0 and constant_value(op.operands[1]) == 0


def shifted_where(x, s, w):
    return np.sum(np.where(x > 0.0, x - s, x) * w)


def nested_where(x, w):
    rows, cols = np.arange(x.shape[0]), np.arange(x.shape[1])
    y = np.where(rows[:, None] > 1, np.where(cols > 0, x * x, x), x)
    return np.sum(y * w)


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_where_of_an_update_gives_the_cotangent_whole(backend):
    """``np.where(m, x - s, x)``: x's two cotangents ``where(m, ct, 0)`` and ``where(m, 0,
    ct)`` meet as ``ct`` (the primal's select the only one left); with ``s`` differentiated its own
    select stays. Both equal finite differences; a nested where (row and column masks) too."""
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((2, 5))
    gf = solvent.grad(shifted_where, 0, backend=backend)
    np.testing.assert_allclose(gf(x, 0.3, w), w, rtol=0, atol=0)
    selects = [op for op in gf.compiled(x, 0.3, w).fn.walk() if op.name == "tensor.select"
               and not is_zero_guard(op)]
    assert len(selects) == 1  # the primal's
    g2 = solvent.grad(shifted_where, (0, 1), backend=backend)(x, 0.3, w)
    np.testing.assert_allclose(g2[1], fd_grad(shifted_where, (x, 0.3, w), 1), rtol=1e-6)
    X, W = rng.standard_normal((2, 4, 3))
    gx = solvent.grad(nested_where, 0, backend=backend)(X, W)
    np.testing.assert_allclose(gx, fd_grad(nested_where, (X, W), 0), rtol=1e-6, atol=1e-8)


def rank_two(A, x, y):
    return np.sum(A * np.outer(A @ x, y)) + np.sum((A.T @ (A @ x)) * y[: A.shape[1]])


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_outer_products_of_cotangents_are_element_work(backend):
    """The cotangents of ``A @ x`` and ``A.T @ u`` are outer products: the gradient program
    writes them as broadcast multiplies (no dot_general without a contracted dim), and
    the gradients equal finite differences (non-square, a Fortran-ordered ``A``)."""
    rng = np.random.default_rng(8)
    A = np.asfortranarray(rng.standard_normal((4, 3)))
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    gf = solvent.grad(rank_two, (0, 1, 2), backend=backend)
    got = gf(A, x, y)
    dots = [op for op in gf.compiled(A, x, y).fn.walk() if op.name == "tensor.dot_general"]
    assert dots and all(op.attrs["lhs_contract"] for op in dots)
    for k in range(3):
        np.testing.assert_allclose(got[k], fd_grad(rank_two, (A, x, y), k),
                                   rtol=1e-6, atol=1e-8)


def descend(X, y, w, lr, iters):
    """Least-squares gradient descent: two products of X a step."""
    for it in range(iters):
        r = X @ w - y
        w = w - lr * (X.T @ np.tanh(r))
    return np.sum(w * w)


def descend_until(X, y, w, lr):
    """The same, for as many steps as the residual asks (a data-dependent trip count)."""
    r = X @ w - y
    it = 0
    while np.sum(r * r) > 1e-3 and it < 40:
        w = w - lr * (X.T @ np.tanh(r))
        r = X @ w - y
        it += 1
    return np.sum(w * w)


def _loops(fn):
    return [op for op in fn.body.ops if op.name in ("loop.for", "loop.while")]


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_products_of_a_trip_are_taped_not_recomputed(backend):
    """A reverse step reads the trip's products ``X @ w`` and ``X.T @ tanh(r)`` from the
    tape: its only products are the two its rules emit (four if it recomputed them), and the
    gradients equal finite differences (a 12x9 ``X``, Fortran-ordered: sums of 9 and 12
    terms, over ``COSTLY_CONTRACTION``)."""
    rng = np.random.default_rng(9)
    X = np.asfortranarray(rng.standard_normal((12, 9))) / 3
    y, w = rng.standard_normal(12), rng.standard_normal(9)
    args = (X, y, w, 0.05, 6)
    gf = solvent.grad(descend, (0, 1, 2, 3), backend=backend)
    got = gf(*args)
    fwd, rev = _loops(gf.compiled(*args).fn)
    assert len([op for op in rev.walk() if op.name == "tensor.dot_general"]) == 2
    for k in range(4):
        np.testing.assert_allclose(got[k], fd_grad(descend, args, k), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("backend", ["xla", "native"])
def test_products_of_a_while_trip_are_taped(backend):
    """The same in a while loop of a data-dependent trip count (its tape has a capacity)."""
    rng = np.random.default_rng(10)
    X = rng.standard_normal((10, 9)) / 4
    y, w = rng.standard_normal(10), rng.standard_normal(9)
    args = (X, y, w, 0.1)
    got = solvent.grad(descend_until, (0, 1, 2, 3), backend=backend)(*args)
    for k in range(4):
        np.testing.assert_allclose(got[k], fd_grad(descend_until, args, k), rtol=1e-6,
                                   atol=1e-8)


def row_recurrence(v, w, k, cols):
    """A table filled row by row in scalar loops (each row from the one before, reading a
    slot ``k[i]`` to the left where there is one: a knapsack's shape)."""
    n = v.shape[0]
    t = np.zeros((n + 1, cols))
    t[0, :] = w
    for i in range(n):
        for c in range(cols):
            t[i + 1, c] = np.sin(t[i, c]) * v[i]
            if k[i] <= c:
                t[i + 1, c] += t[i, c - k[i]]
    return np.sum(t * t)


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_array_changed_by_an_inner_loop_tapes_its_slots(backend):
    """The outer loop's table changes only through the inner loop's slot writes: its tape
    holds the inner trips' old slots and indices (``2 n cols`` of each), not ``n`` copies
    of the ``(n + 1) x cols`` table; the gradients equal finite differences."""
    rng = np.random.default_rng(11)
    n, cols = 12, 5
    v, w = rng.standard_normal(n) / 2, rng.standard_normal(cols)
    k = rng.integers(1, 4, n).astype(np.int8)
    args = (v, w, k, cols)
    gf = solvent.grad(row_recurrence, (0, 1), backend=backend)
    gv, gw = gf(*args)
    table = (n + 1) * cols * 8
    assert gf.compiled(*args).report["tape_bytes"] < n * table
    np.testing.assert_allclose(gv, fd_grad(row_recurrence, args, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, fd_grad(row_recurrence, args, 1), rtol=1e-6, atol=1e-8)
