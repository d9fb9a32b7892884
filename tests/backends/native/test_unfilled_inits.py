"""Fills that every element of is overwritten before it is read are not run natively
(backends/native/unfilled_inits.py): ``c = np.empty(n)`` before a loop setting every
``c[i]``. Where a loop leaves an element unwritten or reads the array, the fill stays: the
values of ``np.zeros`` are checked against NumPy, and each kernel's plan is checked for
which fills it drops."""
import numpy as np
import pytest

import solvent

from differential import check


def running_sum(x):
    n = x.shape[0]
    c = np.empty(n)
    run = 0.0
    for i in range(n):
        run += x[i]
        c[i] = run
    return c


def rows_of_a_recurrence(x):
    n, m = x.shape
    out = np.zeros((n, m), dtype=x.dtype)
    row = np.zeros(m, dtype=x.dtype)
    for i in range(n):
        row = row // 2 + x[i]
        out[i, :] = row
    return out


def skips_the_first(x):
    n = x.shape[0]
    c = np.zeros(n)
    for i in range(1, n):
        c[i] = c[i - 1] + x[i]
    return c


def stops_short(x):
    n = x.shape[0]
    c = np.zeros(n)
    run = 0.0
    for i in range(n - 1):
        run = run * 0.5 + x[i]
        c[i] = run
    return c


def writes_some(x):
    n = x.shape[0]
    c = np.zeros(n)
    run = 0.0
    for i in range(n):
        run = run * 0.5 + x[i]
        if run > 1.0:
            c[i] = run
    return c


def reads_ahead(x):
    n = x.shape[0]
    c = np.zeros(n)
    run = 0.0
    for i in range(n):
        run = run * 0.5 + x[i] + c[n - 1 - i]
        c[i] = run
    return c


def _unfilled(fn, *args):
    c = solvent.jit(fn, backend="native").compile(args)
    return c.executable.plan.unfilled


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_running_sum_into_empty_runs_no_fill(n):
    x = np.random.default_rng(n).random(n)
    check(running_sum, x, backend="native")
    if n:   # (an empty loop is gone before the backend sees it)
        assert len(_unfilled(running_sum, x)) == 1


@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (2, 1), (5, 4)], ids=str)
@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float32])
def test_rows_of_a_recurrence_run_no_fill(shape, dtype):
    x = (np.arange(np.prod(shape)).reshape(shape) % 7).astype(dtype)
    check(rows_of_a_recurrence, x, backend="native")
    ops = _unfilled(rows_of_a_recurrence, x)
    if shape[0] > 1:   # (a loop of one trip is unrolled before the backend sees it)
        assert [list(op.results[0].type.shape) for op in ops] == [list(shape)]


@pytest.mark.parametrize("fn", [skips_the_first, stops_short, writes_some, reads_ahead])
@pytest.mark.parametrize("n", [1, 2, 8])
def test_fill_stays_where_an_element_may_be_seen(fn, n):
    """np.zeros' zeros are seen: an element the loop skips, or the array read by the loop."""
    x = np.random.default_rng(n).random(n) * 3.0
    check(fn, x, backend="native")
    assert not _unfilled(fn, x)
