"""prove_checks inside ``if``: the condition holds in the then-branch and fails in the
else-branch, so ``if i < n: a[i]`` needs no run-time check; reads made unconditional by
if-conversion and then raised keep clamping their other subscripts."""
import numpy as np
import pytest

import solvent
from tests.differential import check

BACKENDS = ["interp", "native", "xla"]


def guarded_tail(a, b):
    for i in range(a.size + 4):
        if i < a.size:
            b[i] = 2.0 * a[i]
    return b


def guarded_else(a, b):
    for i in range(-3, a.size + 4):
        if i >= a.size or i < 0:
            pass
        else:
            b[i] = a[i] + 1
    return b


def chained(a, b):
    n, m = a.shape
    for i in range(n + 3):
        for j in range(m + 3):
            if 1 <= i < n - 1 and 1 <= j < m - 1:
                b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]
    return b


def shifted(src, dst):
    for i in range(src.shape[0]):
        for j in range(src.shape[1] + 1):
            if 1 <= j < src.shape[1]:
                dst[i, j] = src[i, j - 1] + src[i, j]
    return dst


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,shape", [(guarded_tail, (7,)), (guarded_else, (5,)),
                                      (chained, (6, 5)), (shifted, (4, 6)),
                                      (chained, (1, 1)), (shifted, (3, 1))])
def test_guarded_accesses_match_numpy(fn, shape, backend):
    rng = np.random.default_rng(0)
    check(fn, rng.random(shape), np.zeros(shape), backend=backend)


@pytest.mark.parametrize("fn,shape", [(guarded_tail, (7,)), (guarded_else, (5,)),
                                      (chained, (6, 5))])
def test_checks_under_the_guard_are_proved(fn, shape):
    args = (np.ones(shape), np.zeros(shape))
    c = solvent.jit(fn, backend="interp").compile(args)
    assert not c.fn.errors


def off_by_one(a, b):
    for i in range(a.size + 4):
        if i < a.size + 1:
            b[i] = a[i]
    return b


def test_an_unproved_check_under_a_guard_still_raises():
    a, b = np.ones(5), np.zeros(5)
    c = solvent.jit(off_by_one, backend="interp").compile((a, b))
    assert c.fn.errors
    for backend in BACKENDS:
        with pytest.raises(IndexError, match="index 5 is out of bounds"):
            solvent.jit(off_by_one, backend=backend)(a, b.copy())


def blocked_stencil(src, dst):
    # a kernel's block and thread loops, as simt lowers them: the guard keeps every read in
    # range, the thread loops are raised after if-conversion made the reads unconditional
    n, m = src.shape
    for by in range(2):
        for bx in range(2):
            for ty in range(8):
                for tx in range(8):
                    i = bx * 8 + tx
                    j = by * 8 + ty
                    if 1 <= i < n - 1 and 1 <= j < m - 1:
                        dst[i, j] = src[i, j - 1] + src[i - 1, j] + src[i + 1, j] + src[i, j + 1]
    return dst


@pytest.mark.parametrize("backend", BACKENDS)
def test_raised_thread_loops_keep_clamping_the_subscripts_that_stay_scalar(backend):
    rng = np.random.default_rng(1)
    check(blocked_stencil, rng.random((16, 16)), np.zeros((16, 16)), backend=backend)


def bound_from_a_loop(a, b):
    """``n`` leaves the first loop as a carried value (the kernel lowering's block-level
    ``n = A.shape[0]`` assigned by every thread); the second loop's range and subscripts
    are then known. ``k`` is 2 when its loop runs (size 4: b[i + 2] with i < 4 fits b's 6),
    and in [0, 2] when the bounds do not prove a run (size 1: b[i + k], i = 0, fits 3)."""
    n = 0
    for t in range(3):
        n = a.shape[0]
    k = 0
    for t in range(b.shape[0] - 4):
        k = 2
    for i in range(n):
        b[i + k] = a[i]
    return b


@pytest.mark.parametrize("shape", [(4,), (1,)])
def test_a_loop_result_bounds_a_later_loop(shape):
    a, b = np.arange(1.0, shape[0] + 1.0), np.zeros(shape[0] + 2)
    check(bound_from_a_loop, a, b, backend="interp")
    c = solvent.jit(bound_from_a_loop, backend="interp").compile((a, b))
    assert not c.fn.errors
