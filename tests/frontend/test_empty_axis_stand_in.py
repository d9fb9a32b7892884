"""A constant index into an empty axis in code NumPy may not reach (a loop whose trip count
is known only at run time, a branch on data, after a run-time check that can fail first):
the index becomes a run-time check that fails where it is reached, and the read has a
stand-in value (writes are dropped) so the program compiles. A run-time index into an empty
axis is the same on every backend (the ops stay total: zeros read, nothing written), and a
read hoisted out of a loop or batched by raising never reports its own failure ahead of
one NumPy meets first. NumPy running the same source
is the oracle: same values where it returns, the same error class and message where it
raises, and the caller's arrays unchanged after a failure."""
import copy

import numpy as np
import pytest

import solvent
from differential import check, copy_keep_layout

BACKENDS = ["xla", "native", "interp", None]   # None: automatic choice


def store_by_mask(x):                 # issue 14's "run-time-length value written through a mask"
    y = x[x > 0.0]
    y[y > 1.0] = 0.0
    x[0] = y.sum()
    return y


def min_then_store(A, x):             # fuzz seed 606588: A.min() fails first on an empty A
    for i in range(1, A.shape[0] - 1):
        t4 = A.min() - i  # noqa: F841
    A[:, 0] += x


def read_in_branch(c, A):             # scalar argument first
    s = np.zeros(3)
    if c > 0:
        s = A[0] + A[:, 1].sum()
    return s


def read_in_loop(n, A):
    t = np.zeros(A.shape[1], dtype=A.dtype)
    for i in range(n):
        t = t + A[-1]
    return t


def write_in_loop(n, A, v):
    for i in range(n):
        A[0, 1] = v
        A[0] = v
    return A


def gather_in_loop(n, A, idx):
    out = np.zeros(idx.shape[0])
    for i in range(n):
        out += A[0, idx]
    return out


def while_sweep(A, tol):
    k = 0
    while A.sum() > tol and k < 3:    # an empty A sums to 0: the body never runs
        A[0] = A[0] * 0.5
        k += 1
    return A, k


def loop_store(B, n):                 # a run-time index into an empty array (XLA: TypeError)
    for i in range(n):
        B[i] = 1.0
    return B


def row_after_short(row, B, A, out):  # which read fails first moves with row and len(B)
    for i in range(out.size):
        out[i] = B[i] + A[row, 0]


def column_of_empty(B, out):
    for i in range(out.shape[0]):
        out[i] = B[i, 0]


def take(B, idx):
    return B[idx]


def put(B, idx):
    B[idx] = 2
    return B


def _run(fn, args, backend):
    np_args = copy.deepcopy(args)
    try:
        with np.errstate(all="ignore"):
            fn(*np_args)
    except Exception as e:           # NumPy raises: solvent raises the same, args unchanged
        sv_args = tuple(copy_keep_layout(a) for a in args)
        with pytest.raises(type(e)) as got:
            solvent.jit(fn, backend=backend)(*sv_args)
        assert str(e).split(":")[-1].strip() in str(got.value), (str(e), str(got.value))
        for a, b in zip(args, sv_args):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
        return
    check(fn, *args, backend=backend)


E = np.zeros((0, 3))
CASES = [
    (store_by_mask, (np.zeros(0) + 0.5,)),
    (store_by_mask, (np.array([-1.0, 2.0, 0.5]),)),
    (store_by_mask, (np.zeros(0, np.float32),)),
    (min_then_store, (np.zeros((3, 0)), 0.464)),
    (min_then_store, (np.zeros((1, 0)), 0.5)),        # loop never runs: IndexError
    (read_in_branch, (1.0, E)),
    (read_in_branch, (-1.0, E)),
    (read_in_branch, (1.0, np.ones((2, 3), order="F"))),
    (read_in_loop, (0, E)),
    (read_in_loop, (2, E)),
    (read_in_loop, (0, np.zeros((0, 4), np.int8))),
    (read_in_loop, (3, np.zeros((0, 2), np.complex64))),
    (read_in_loop, (2, np.arange(6.0).reshape(3, 2)[::2])),
    (write_in_loop, (0, E, 1.0)),
    (write_in_loop, (2, E, 1.0)),
    (write_in_loop, (2, np.zeros((0, 3), np.int8), 7)),
    (write_in_loop, (1, np.zeros((2, 3)), 4.0)),
    (gather_in_loop, (0, E, np.array([0, 2]))),
    (gather_in_loop, (1, E, np.array([0, 2]))),
    (while_sweep, (E, 1.0)),
    (while_sweep, (np.ones((2, 3)), 1.0)),
    (loop_store, (np.zeros(0), 0)),
    (loop_store, (np.zeros(0), 2)),
    (loop_store, (np.zeros(0, np.int8), 1)),
    (loop_store, (np.zeros(1), 2)),
    (row_after_short, (9, np.ones(0), np.ones((2, 3)), np.zeros(4))),   # B[0] first
    (row_after_short, (1, np.ones(0), np.ones((2, 3)), np.zeros(4))),
    (row_after_short, (9, np.ones(2), np.ones((2, 3)), np.zeros(4))),   # A[9] first, at i=0
    (row_after_short, (-3, np.ones(2), np.ones((2, 3), order="F"), np.zeros(4))),
    (row_after_short, (1, np.ones(2), np.ones((2, 3)), np.zeros(4))),   # B[2] at i=2
    (row_after_short, (9, np.ones(0), np.ones((2, 3)), np.zeros(0))),   # no trip
    (column_of_empty, (np.ones((0, 3)), np.zeros(2))),
    (column_of_empty, (np.ones((2, 0)), np.zeros(2))),
    (column_of_empty, (np.ones((0, 3)), np.zeros(0))),
    (take, (np.ones(0), np.array([0]))),
    (take, (np.ones(0), np.array([], dtype=np.int64))),
    (take, (np.ones((0, 2)), np.array([], dtype=np.int32))),
    (put, (np.ones(0), np.array([0]))),
    (put, (np.ones(0), np.array([], dtype=np.int64))),
]


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b or "auto")
@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in
                                                 enumerate(CASES)])
def test_empty_axis_index_matches_numpy(fn, args, backend):
    if backend == "xla" and fn is store_by_mask:
        with pytest.raises(solvent.UnsupportedError, match="native backend runs it"):
            solvent.jit(fn, backend=backend)(*copy.deepcopy(args))
        return
    _run(fn, args, backend)


def test_unreached_empty_axis_read_leaves_no_error_behind():
    """The stand-in read's check sits in the branch: a call that skips the branch returns
    normally, one that takes it raises; the same compiled function serves both."""
    f = solvent.jit(read_in_branch)
    np.testing.assert_array_equal(f(-1.0, E), np.zeros(3))
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        f(1.0, E)
    np.testing.assert_array_equal(f(-2.0, E), np.zeros(3))
