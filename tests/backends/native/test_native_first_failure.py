"""The first failure in program order is the one reported, when a loop the native backend
keeps as a loop holds a check that became a value (a hoisted, loop-invariant index check:
passes/checks_to_values) before a native check of a per-iteration index.

``out[i] = B[i] + A[row, 0]`` with ``row`` out of bounds and ``B`` shorter than ``out``:
NumPy stops at i = 0 on ``row``. The native chunk of a parallel-marked loop carried the
invariant check's code as a value and went on, so B's own check stopped the program at
i = len(B) with B's index (backends/native/error_exit.py). Each kernel runs as a plain
loop (mark_parallel off), as a parallel-marked loop run in the calling thread, and on the
pool (4 threads, threshold 0: the threads and threshold are read at run time, so one jit
serves both), and its IndexError must name NumPy's index, with the caller's arrays
unchanged."""
import copy
import math

import numpy as np
import pytest

import solvent
from solvent.backends.native import threads

LOOPS = {"raise_loops": {"enabled": False}, "raise_contractions": {"enabled": False}}
MODES = {"plain": dict(LOOPS, mark_parallel={"enabled": False}), "parallel": LOOPS,
         # the native default: loops whose raised form gathers data stay loops
         "no_gathers": {"raise_loops": {"data_gathers": False}}}


def invariant_then_varying(out, B, A, row):
    for i in range(out.size):
        out[i] = B[i] + A[row, 0]


def varying_operand_first(out, B, A, row):
    for i in range(out.size):
        out[i] = A[row, 0] * B[i]


def nested_invariant_in_inner(out, B, A, row):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = B[j] + A[row, i]


def nested_invariant_before_inner(out, B, A, row):
    for i in range(out.shape[0]):
        t = A[row, 0]
        for j in range(out.shape[1]):
            out[i, j] = B[j] * t


def invariant_from_iteration_60(out, B, A, row):
    # the invariant check fails in chunk 0 (iteration 60), B's in a later chunk (150)
    for i in range(out.size):
        v = 0.0
        if i >= 60:
            v = A[row, 0]
        out[i] = B[i] + v


def loop_then_check_in_time_loop(out, B, A, row):
    # the inner loop's code passes through the sqrt's domain check before the outer yield
    for t in range(2):
        for i in range(out.size):
            out[i] = B[i] + A[row, t]
        out[0] = math.sqrt(out[1])


CASES = [
    (invariant_then_varying, lambda row: (np.zeros(4), np.arange(2.0), np.ones((3, 3)), row)),
    (varying_operand_first, lambda row: (np.zeros(4), np.arange(2.0), np.ones((3, 3)), row)),
    (nested_invariant_in_inner,
     lambda row: (np.zeros((4, 3)), np.ones(2), np.ones((3, 4)), row)),
    (nested_invariant_before_inner,
     lambda row: (np.zeros((4, 3)), np.ones(2), np.ones((3, 4)), row)),
    (invariant_from_iteration_60,
     lambda row: (np.zeros(200), np.ones(150), np.ones((3, 4)), row)),
    (loop_then_check_in_time_loop,
     lambda row: (np.zeros(4), np.arange(2.0), np.ones((3, 3)), row)),
]


def numpy_message(fn, args):
    try:
        fn(*copy.deepcopy(args))
    except IndexError as e:
        return str(e)
    raise AssertionError("NumPy raised nothing: the case tests nothing")


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("fn,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_first_failure_in_program_order(fn, make, mode):
    f = solvent.jit(fn, backend="native", passes=MODES[mode])
    for pool in (False, True):
        old = threads.configure(threads=4, threshold=0) if pool else None
        try:
            # row = 9 / -9: the invariant check fails first; row = 1: only B's fails
            for row in (9, -9, 1):
                args = make(row)
                expected = numpy_message(fn, args)
                before = copy.deepcopy(args)
                with pytest.raises(IndexError) as e:
                    f(*args)
                assert str(e.value).endswith(": " + expected), (pool, row)
                for a, b in zip(args[:3], before[:3]):
                    assert np.array_equal(a, b)
        finally:
            if pool:
                threads.configure(**old)
