"""version_checks (native): an innermost loop whose index checks are affine in its counter
runs as a check-free copy when they hold at both ends of its range, else as it was. Results,
the IndexError raised first (with the line) and untouched arguments after a failure match
NumPy; the clean copy holds no check."""
import numpy as np
import pytest

import solvent
from solvent.ir.parser import parse_function
from solvent.ir.verifier import verify
from solvent.passes.version_checks import version_checks

JITS: dict = {}


def same_as_numpy(fn, *args, backend):
    """NumPy's result or IndexError text (with the line), arguments untouched after a
    failure; one jit per kernel."""
    f = JITS.setdefault(fn, solvent.jit(fn, backend=backend))
    np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    sv_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        fn(*np_args)
    except IndexError as e:
        with pytest.raises(IndexError) as got:
            f(*sv_args)
        assert str(e) in str(got.value) and ".py:" in str(got.value), (str(got.value), str(e))
        for a, b in zip(sv_args, args):   # nothing written after a failure
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
        return
    f(*sv_args)
    for a, b in zip(sv_args, np_args):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


def guarded_shift(w, vals, out):
    # out[c - w] only where w <= c: w < 0 reads past the end (IndexError), w in range never
    for c in range(out.shape[0]):
        out[c] = vals[c]
        if w <= c:
            out[c] = max(vals[c], out[c - w] + 1.0)


def strided(k, vals, out):
    for i in range(out.shape[0]):
        out[i] = vals[2 * i - k] * 3.0


def never_taken(flag, vals, out):
    # the check of vals[i + 50] fails at both ends, but its branch never runs
    for i in range(out.shape[0]):
        out[i] = vals[i]
        if flag > 1:
            out[i] = vals[i + 50]


@pytest.mark.parametrize("w", [0, 1, 3, 8, 9, -1, -2, -9])
def test_guarded_read_matches_numpy(w):
    same_as_numpy(guarded_shift, w, np.arange(8.0), np.zeros(8), backend="native")


@pytest.mark.parametrize("k", [0, 1, -1, 5, 13, 14, 20, -20])
def test_affine_subscript_matches_numpy(k):
    same_as_numpy(strided, k, np.arange(14.0), np.zeros(7), backend="native")


def test_a_check_in_a_branch_that_never_runs_keeps_the_checked_loop():
    same_as_numpy(never_taken, 0, np.arange(6.0), np.zeros(6), backend="native")
    same_as_numpy(never_taken, 2, np.arange(6.0), np.zeros(6), backend="native")


def test_out_of_bounds_still_raises_with_the_line():
    f = JITS.setdefault(guarded_shift, solvent.jit(guarded_shift, backend="native"))
    out = np.zeros(8)
    with pytest.raises(IndexError, match=r"test_version_checks.py:\d+.*index 8 is out of bounds"):
        f(-2, np.arange(8.0), out)
    np.testing.assert_array_equal(out, np.zeros(8))


def _after_hoisting(fn, *args):
    text = solvent.jit(fn, backend="interp").explain(*args)
    stage = text.split("## after hoist_checks", 1)[1].split("## after", 1)[0]
    return parse_function(stage.strip())


def test_the_clean_copy_holds_no_check():
    fn = version_checks(_after_hoisting(guarded_shift, 1, np.arange(8.0), np.zeros(8)))
    verify(fn)
    branch = next(op for op in fn.body.ops if op.name == "loop.if")
    clean, checked = ([op for op in r.block.ops if op.name == "loop.for"][0]
                      for r in branch.regions)
    assert not any(op.name == "error.check" for op in clean.walk())
    assert any(op.name == "error.check" for op in checked.walk())


def test_other_backends_keep_the_loop_as_it_was():
    # off there, the pass is idle and shows no stage: the program after it is the one
    # before it, and checks_to_values' stage, the next, has no loop.if before the loop
    text = solvent.jit(guarded_shift, backend="interp").explain(1, np.arange(8.0), np.zeros(8))
    assert "## after version_checks" not in text
    stage = text.split("## after checks_to_values", 1)[1].split("## after", 1)[0]
    assert "loop.for" in stage and "loop.if" not in stage.split("loop.for", 1)[0]
