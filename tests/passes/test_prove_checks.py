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
