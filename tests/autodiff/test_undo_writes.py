"""Undo writes (``passes/undo_writes.py``): a loop body that writes a small window of an
array it still needs unchanged afterwards writes in place and restores the window, instead of
copying the array each trip. Checked on IR (the interpreter's results before and after, the
native plan's copies) and end to end against finite differences: trip counts 0, 1, 2, a slot
overwritten in the loop, a while loop that leaves early, float32, strided and Fortran
inputs, on the native backend and the interpreter."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import fd_grad  # noqa: E402
import solvent  # noqa: E402
from solvent.passes.undo_writes import UndoWrites  # noqa: E402
from solvent.backends import get_backend  # noqa: E402
from solvent.backends.native.bufferize import Plan  # noqa: E402
from solvent.ir.parser import parse_function  # noqa: E402
from solvent.ir.verifier import verify  # noqa: E402

IR = """func @f(%A: tensor<6x6xf64>, %v: f64) {
  %0 = tensor.constant {dtype = "i64", value = 0} : i64
  %1 = tensor.constant {dtype = "i64", value = %TRIPS%} : i64
  %2 = tensor.constant {dtype = "i64", value = 1} : i64
  %3, %4 = loop.for %0, %1, %2, %A, %v : tensor<6x6xf64>, f64 {
  ^(%5: i64, %6: tensor<6x6xf64>, %7: f64):
    %8 = tensor.update_slice %6, %7, %5, %5 {spec = [["i", 0], ["i", 1]]} : tensor<6x6xf64>
    %9 = tensor.slice %8, %5 {spec = [["i", 0], ["s", 0, 6, 1]]} : tensor<6xf64>
    %10 = tensor.update_slice %8, %9, %2 {spec = [["i", 0], ["s", 0, 6, 1]]} : tensor<6x6xf64>
    %11 = tensor.reduce_sum %10 {axes = [0, 1], keepdims = false} : f64
    %12 = tensor.mul %11, %7 : f64
    loop.yield %6, %12
  }
  func.return %3, %4
}
"""


def _copies(fn) -> int:
    """update_slice ops inside loops that the native plan does not do in place."""
    p = Plan(fn, recompute=16)
    return sum(1 for o in fn.walk() if o.name == "tensor.update_slice"
               and o not in p.inplace and o.parent is not fn.body)


@pytest.mark.parametrize("trips", [0, 1, 2, 5])
def test_a_chain_of_writes_into_a_carried_array_is_undone_not_copied(trips):
    text = IR.replace("%TRIPS%", str(trips))
    before, after = parse_function(text), parse_function(text)
    assert _copies(before) == 1
    UndoWrites().run(after)
    verify(after, tensor_only=True)
    assert _copies(after) == 0
    restores = [o for o in after.walk() if o.name == "tensor.update_slice"]
    assert len(restores) == 4   # two writes, two restores in reverse order
    rng = np.random.default_rng(trips)
    A, v = rng.standard_normal((6, 6)), 0.3
    for name in ("interp", "native"):  # each backend before and after: the same sums
        want = get_backend(name).compile(before)(A.copy(), v)
        got = get_backend(name).compile(after)(A.copy(), v)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_a_write_read_after_the_restore_point_is_left_alone():
    """``x`` read while the written value is still live: the pass must not apply."""
    text = IR.replace("%TRIPS%", "3").replace(
        "%12 = tensor.mul %11, %7 : f64",
        "%13 = tensor.reduce_sum %6 {axes = [0, 1], keepdims = false} : f64\n"
        "    %14 = tensor.reduce_sum %10 {axes = [0], keepdims = false} : tensor<6xf64>\n"
        "    %15 = tensor.reduce_sum %14 {axes = [0], keepdims = false} : f64\n"
        "    %16 = tensor.add %13, %15 : f64\n"
        "    %12 = tensor.mul %16, %7 : f64")
    fn = parse_function(text)
    n_before = sum(1 for _ in fn.walk())
    UndoWrites().run(fn)
    assert sum(1 for _ in fn.walk()) == n_before


def chol_loss(A, w, m):
    n = A.shape[0]
    L = np.zeros_like(A)
    rows = np.arange(n)
    for j in range(m):
        d = np.sqrt(A[j, j] - np.dot(L[j, :], L[j, :]))
        L[j, j] = d
        col = (A[:, j] - L @ L[j, :]) / d
        L[:, j] = np.where(rows > j, col, L[:, j])
    return np.sum(L * w)


def overwrite_loss(A, w, m):
    """The diagonal slot written twice a trip, and the whole array read between."""
    for j in range(m):
        A[j, j] = np.sum(A[j, :] * A[:, j]) * 0.1
        A[j, j] = A[j, j] * A[j, j] + np.sum(A * w) * 0.01
    return np.sum(A * w)


def while_loss(A, w, tol):
    """Iterates until a residual is small, each trip writing one slot of ``A`` and reading
    the whole array: a data-dependent trip count that stops before the bound."""
    n = A.shape[0]
    j = 0
    r = tol + 1.0
    while r > tol and j < n:
        A[j, j] = 0.5 * A[j, j] + 0.01 * np.sum(A * w)
        r = abs(A[j, j]) * 0.5 ** j
        j += 1
    return np.sum(A * w)


def _spd(n, rng, dtype=np.float64):
    M = rng.random((n, n))
    return (M @ M.T + n * np.eye(n)).astype(dtype)


def _check(f, args, k, backend, rtol=1e-6, atol=1e-8):
    g = solvent.grad(f, k, backend=backend)(*[a.copy() if isinstance(a, np.ndarray) else a
                                              for a in args])
    fd = fd_grad(lambda *a: float(f(*[x.copy() if isinstance(x, np.ndarray) else x
                                      for x in a])), args, k)
    np.testing.assert_allclose(np.asarray(g, dtype=np.float64), fd, rtol=rtol, atol=atol)


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("m", [0, 1, 2, 6])
def test_cholesky_columns_gradient_equals_finite_differences(backend, m):
    rng = np.random.default_rng(m)
    n = 6
    A, w = _spd(n, rng), rng.standard_normal((n, n))
    _check(chol_loss, (A, w, m), 0, backend)


def test_the_cholesky_reverse_step_copies_no_array():
    rng = np.random.default_rng(0)
    n = 8
    A, w = _spd(n, rng), rng.standard_normal((n, n))
    g = solvent.grad(chol_loss, 0, backend="native").compiled(A, w, n)
    assert _copies(g.fn) == 0


@pytest.mark.parametrize("backend", ["native", "interp"])
@pytest.mark.parametrize("m", [0, 1, 2, 5])
def test_a_slot_overwritten_in_the_loop(backend, m):
    rng = np.random.default_rng(10 + m)
    A, w = rng.standard_normal((5, 5)), rng.standard_normal((5, 5))
    _check(overwrite_loss, (A, w, m), 0, backend)


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_a_while_loop_that_leaves_early(backend):
    rng = np.random.default_rng(3)
    A, w = rng.standard_normal((6, 6)) * 0.5, rng.standard_normal((6, 6))
    tol = 0.05
    a = A.copy()
    while_loss(a, w, tol)
    _check(while_loss, (A, w, tol), 0, backend)


def test_float32_cholesky_gradient():
    rng = np.random.default_rng(4)
    n = 6
    A, w = _spd(n, rng, np.float32), rng.standard_normal((n, n)).astype(np.float32)
    g = solvent.grad(chol_loss, 0, backend="native")(A.copy(), w, n)
    assert g.dtype == np.float32
    fd = fd_grad(lambda a, w, m: float(chol_loss(a.astype(np.float64), w.astype(np.float64),
                                                 m)), (A.astype(np.float64), w, n), 0)
    np.testing.assert_allclose(g, fd, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("layout", ["fortran", "strided"])
def test_strided_and_fortran_inputs(layout):
    rng = np.random.default_rng(5)
    n = 6
    A = _spd(n, rng)
    w = rng.standard_normal((n, n))
    if layout == "fortran":
        A, w = np.asfortranarray(A), np.asfortranarray(w)
    else:
        big = np.zeros((2 * n, 2 * n))
        big[::2, ::2] = A
        A = big[::2, ::2]
        assert not A.flags.c_contiguous
    g = solvent.grad(chol_loss, 0, backend="native")(A, w, n)
    fd = fd_grad(lambda a, w, m: float(chol_loss(a, w, m)), (np.ascontiguousarray(A), w, n), 0)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
