"""An update written in place computes its value inside its own loop when the value reads
the updated array only through the window being written (``ey[1:, :] -= 0.5 * (hz[1:, :] -
hz[:-1, :])``: one pass, no temporary); a read of that array at any other position keeps
the temporary (NumPy computes the whole right-hand side first)."""
import numpy as np
import pytest

import solvent

from differential import check


def own_window(ey, hz):
    ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])


def fdtd_steps(ex, ey, hz, steps):
    for t in range(steps):
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def shifted_self(x):
    x[1:, :] = x[:-1, :] + 2.0 * x[1:, :]


def reversed_self(x):
    x[1:] = x[:0:-1] * 3.0 + 1.0


def strided_self(x):
    x[::2] = x[1::2] - x[::2]


def other_then_own(x, y):
    x[1:-1] = x[1:-1] * 0.5 + x[2:] * y[1:-1]


def _updates(fn, *args):
    c = solvent.jit(fn, backend="native").compile(args)
    plan = c.executable.plan
    ups = [op for op in c.fn.walk() if op.name == "tensor.update_slice"]
    return ups, plan


@pytest.mark.parametrize("order", ["C", "F"])
def test_own_window_update_is_one_pass(order):
    rng = np.random.default_rng(0)
    ey, hz = (np.array(rng.random((9, 7)), order=order) for _ in range(2))
    check(own_window, ey, hz, backend="native")
    ups, plan = _updates(own_window, ey, hz)
    assert ups and all(up.operands[1].owner in plan.fused for up in ups)


@pytest.mark.parametrize("n", [1, 2, 13])
def test_fdtd_steps_match_numpy(n):
    rng = np.random.default_rng(n)
    ex, ey, hz = (rng.random((n, n + 2)) for _ in range(3))
    check(fdtd_steps, ex, ey, hz, 3, backend="native")
    check(fdtd_steps, *(np.asfortranarray(a) for a in (ex, ey, hz)), 3, backend="native")


@pytest.mark.parametrize("fn", [shifted_self, reversed_self, strided_self])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.int64])
def test_reads_outside_the_window_keep_numpy_semantics(fn, dtype):
    x = (np.arange(48).reshape(12, 4) % 7).astype(dtype)
    check(fn, x, backend="native")
    ups, plan = _updates(fn, x)
    assert ups and not any(up.operands[1].owner in plan.fused for up in ups
                           if up in plan.inplace)


def test_one_other_read_of_the_updated_array_keeps_the_temporary():
    x, y = np.linspace(0.0, 1.0, 10), np.linspace(1.0, 2.0, 10)
    check(other_then_own, x, y, backend="native")
    check(other_then_own, np.zeros(0), np.zeros(0), backend="native")


def column_scan(Y):
    """prefix_sum_loops' column scan as XLA's raising leaves it (natively its sweep over
    rows stays a parallel loop: test_native_parallel_sweeps.py)."""
    for j in range(1, Y.shape[1]):
        Y[:, j] = Y[:, j] + Y[:, j - 1]
    return Y


def wrapped_columns(Y):
    """``j - 1`` is -1 at ``j = 0``: the last column (the same column when there is one)."""
    for j in range(Y.shape[1]):
        Y[:, j] = Y[:, j] * 0.5 + Y[:, j - 1]


def row_recurrence(x, w):
    for i in range(1, x.shape[0]):
        x[i, 1:] = x[i, 1:] - w * x[i - 1, 1:] + x[0, 1:]


@pytest.mark.parametrize("fn,nargs", [(column_scan, 1), (wrapped_columns, 1),
                                      (row_recurrence, 2)])
@pytest.mark.parametrize("shape", [(1, 1), (5, 1), (1, 4), (6, 5)], ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.int8])
def test_windows_differing_in_an_index_update_in_one_pass(fn, nargs, shape, order, dtype):
    """The update's value reads the updated array through windows that differ from the
    written one only in an integer index (another column, another row): element ``k`` of
    each is either the element written at ``k`` or one the update never writes, so the value
    is computed inside the update's loop (no temporary per step; prefix_sum_loops' column
    scan: two passes per column -> one)."""
    x = np.array((np.arange(np.prod(shape)).reshape(shape) % 5), dtype=dtype, order=order)
    args = (x, 3) if nargs == 2 else (x,)
    check(fn, *args, backend="native")
    ups, plan = _updates(fn, *args)
    inplace = [up for up in ups if up in plan.inplace or up in plan.into_slot]
    if shape[0] > 1 and shape[1] > 1:
        assert inplace and all(up.operands[1].owner in plan.fused for up in inplace)
