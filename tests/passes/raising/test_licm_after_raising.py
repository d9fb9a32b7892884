"""LICM runs again after raising: the index checks a raised gather gets (``x[cols[i, k]]``
in spmv_ell_loops' power iteration) depend only on ``cols``, so they leave the time loop,
computed once instead of every iteration; the results and the first IndexError stay NumPy's/Python's."""
import re

import numpy as np
import pytest

import solvent
from solvent.corpus.spmv_ell_loops import kernel as power_steps


def _args(n, K=3, bad=None):
    rng = np.random.default_rng(n)
    cols = rng.integers(0, max(n, 1), (n, K))
    if bad is not None:
        cols[bad] = n + 2
    return rng.standard_normal((n, K)), cols, rng.standard_normal(n)


def _readers_of_cols_in_loop(fn):
    cols = fn.args[2]
    loop = next(op for op in fn.body.ops if op.name == "loop.for")
    return sorted(op.name for op in loop.walk() if cols in op.operands)


@pytest.mark.parametrize("be", ["native", "xla", "interp"])
@pytest.mark.parametrize("n,iters", [(0, 2), (1, 1), (5, 3), (6, 0)])
def test_power_steps_match_numpy(be, n, iters):
    args = _args(n)
    want = power_steps(iters, *args)
    got = solvent.jit(power_steps, backend=be)(iters, *args)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("be", ["native", "xla"])
def test_first_index_error_is_pythons(be):
    vals, cols, x = _args(5, bad=(3, 1))
    cols[4, 0] = -9   # later in the order Python visits
    with pytest.raises(IndexError) as want:
        power_steps(2, vals, cols, x)
    with pytest.raises(IndexError, match=re.escape(str(want.value))):
        solvent.jit(power_steps, backend=be)(2, vals, cols, x)


def test_index_checks_leave_the_time_loop():
    ir = solvent.jit(power_steps, backend="interp").compile((2, *_args(5))).fn
    assert _readers_of_cols_in_loop(ir) == ["tensor.gather"]   # the read stays per step
