"""flag_checks (native): a loop nest whose value checks test a scalar some loop of it carries
runs first with one flag in place of all its checks, and again as it was only when the flag
says one failed. Results, the error raised first (type, message, line, index errors and value
errors in either order) and untouched arguments after a failure match plain Python/NumPy;
nests that could not run twice safely (a while loop, a print) or hold no such check are left
as they were."""
import math

import numpy as np
import pytest

import solvent
from solvent.corpus.polar_helper_loops import kernel as polar_loops
from solvent.ir.parser import parse_function
from solvent.ir.verifier import verify
from solvent.passes.flag_checks import FlagChecks

from differential import copy_keep_layout, jitted
from test_speculate_checks import running_sqrt, same_as_python, sqrt_rows


def _flagged(fn, *args):
    """flag_checks on the IR it sees natively for these loops (the stage after hoist_checks
    under the interpreter, where the native-only passes are idle and show no stage), and
    how many nests it took."""
    text = solvent.jit(fn, backend="interp").explain(*args)
    stage = text.split("## after hoist_checks", 1)[1].split("## after", 1)[0]
    ir = parse_function(stage.strip())
    before = str(ir)
    n = FlagChecks(enabled=True).transform(ir)
    verify(ir)
    return ir, before, n


def integrate(steps, dt, x, out):
    # a scalar state per element, checked every step: math.sqrt and math.log of it
    for i in range(x.shape[0]):
        v = x[i]
        for s in range(steps):
            v = v + dt * math.sqrt(v) - dt * math.log(v)
        out[i] = v


def gather_walk(steps, x, idx, out):
    # an index check (x[idx[i]]) and a value check of the carried v in one nest
    for i in range(out.shape[0]):
        v = x[idx[i]]
        for s in range(steps):
            v = math.sqrt(v) - 0.25
        out[i] = v


def while_walk(x, out):
    # a while loop in the nest: a failed check must end it, so the nest is left alone
    for i in range(x.shape[0]):
        v = x[i]
        k = 0
        while v > 1.0 and k < 50:
            v = math.sqrt(v) - 0.1
            k += 1
        out[i] = v


def printing_walk(x, out):
    # a print in the nest would print twice
    for i in range(x.shape[0]):
        v = x[i]
        for s in range(3):
            v = math.sqrt(v)
        if i == 0:
            print("first", v)
        out[i] = v


def test_the_first_run_holds_no_check_and_the_rerun_is_the_nest_as_it_was():
    fn, _, n = _flagged(running_sqrt, np.ones(8), np.zeros(8))
    assert n == 1
    first = next(op for op in fn.body.ops if op.name == "loop.for")
    assert first.results[-1].type.dtype == "i1"
    assert not any(op.name == "error.check" for op in first.walk())
    branch = next(op for op in fn.body.ops if op.name == "loop.if")
    assert branch.operands[0] is first.results[-1]
    then, other = (r.block for r in branch.regions)
    assert [op.name for op in then.ops] == ["loop.yield"]
    assert list(then.ops[0].operands) == list(first.results[:-1])
    checked = [op for op in other.ops if op.name == "loop.for"]
    assert len(checked) == 1
    assert any(op.name == "error.check" for op in checked[0].walk())


def test_every_check_of_the_nest_goes_into_the_flag_index_checks_too():
    fn, _, n = _flagged(gather_walk, 3, np.ones(5), np.arange(5), np.zeros(5))
    assert n == 1
    first = next(op for op in fn.body.ops if op.name == "loop.for")
    assert not any(op.name == "error.check" for op in first.walk())
    # the inner loop's flag is its own (starts true), and-ed in after it: a reduction
    inner = next(op for op in first.walk() if op.name == "loop.for" and op is not first)
    init = inner.operands[-1].owner
    assert init.name == "tensor.constant" and init.attrs["value"] is True


@pytest.mark.parametrize("fn, args", [
    (while_walk, (np.ones(4), np.zeros(4))),
    (sqrt_rows, (2.0, np.ones(4), np.zeros(4))),    # its check reads an input, not a carry
])
def test_nests_that_cannot_run_twice_or_need_no_flag_are_left_alone(fn, args):
    ir, before, n = _flagged(fn, *args)
    assert n == 0 and str(ir) == before


def test_a_print_keeps_its_nest_whole_and_a_loop_inside_without_it_is_taken():
    ir, _, n = _flagged(printing_walk, np.ones(4), np.zeros(4))
    assert n == 1
    outer = [op for op in ir.body.ops if op.name in ("loop.for", "loop.if")]
    assert [op.name for op in outer] == ["loop.for"]     # not run twice
    assert sum(op.name == "io.print" for op in ir.walk()) == 1
    inner = [op for op in outer[0].regions[0].block.ops if op.name in ("loop.for", "loop.if")]
    assert [op.name for op in inner][:2] == ["loop.for", "loop.if"]   # the s loop, flagged
    x = np.array([4.0, 9.0, -1.0])
    assert same_as_python(printing_walk, x, np.zeros(3)) is ValueError


@pytest.mark.parametrize("kind", ["plain", "strided", "reversed"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_results_match_python_in_any_layout(kind, dtype):
    rng = np.random.default_rng(11)
    for n in (0, 1, 33):
        x = (rng.random(2 * n) + 1.0).astype(dtype)
        x = x[::2] if kind == "strided" else x[::-1][:n] if kind == "reversed" else x[:n]
        want, got = np.zeros(n, dtype), np.zeros(n, dtype)
        keep = copy_keep_layout(x)
        integrate(6, 0.05, x, want)
        jitted(integrate, "native")(6, 0.05, x, got)
        # the native log is libm's within an ulp, with or without the flag
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-14)
        np.testing.assert_array_equal(x, keep)


def drain(steps, dt, x, out):
    for i in range(x.shape[0]):
        v = x[i]
        for s in range(steps):
            v = v - dt * math.sqrt(v)
        out[i] = v


@pytest.mark.parametrize("at", [0, 7, 32])
def test_the_first_failing_element_and_step_raises_as_python(at):
    x = np.random.default_rng(at).random(33) + 1.0
    assert same_as_python(drain, 10, 0.1, x, np.zeros(33)) is None
    x[at] = 0.05            # goes negative in the fourth step: the fifth's sqrt fails
    assert same_as_python(drain, 10, 0.1, x, np.zeros(33)) is ValueError
    assert same_as_python(drain, 4, 0.1, x, np.zeros(33)) is None    # not yet
    x[at] = -1.0            # fails in the first step
    assert same_as_python(drain, 1, 0.1, x, np.zeros(33)) is ValueError


@pytest.mark.parametrize("index_first", [True, False])
def test_an_index_error_and_a_value_error_keep_their_order(index_first):
    x = np.full(6, 4.0)
    idx = np.arange(6)
    bad_index, bad_value = (1, 3) if index_first else (3, 1)
    idx[bad_index] = 9
    x[bad_value] = 0.01     # sqrt(0.01) - 0.25 < 0: the next step's sqrt fails
    f = jitted(gather_walk, "native")
    args = [3, x, idx, np.zeros(6)]
    keep = [copy_keep_layout(a) for a in args]
    want = IndexError if index_first else ValueError
    with pytest.raises(want) as got:
        f(*args)
    assert "test_flag_checks.py:" in str(got.value)
    with pytest.raises(want):
        gather_walk(*[copy_keep_layout(a) for a in keep])
    for a, b in zip(args, keep):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bad, error", [(np.nan, ValueError), (np.inf, OverflowError)])
def test_polar_loops_raise_as_python_and_leave_the_arguments(bad, error):
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((6, 7)), rng.standard_normal((6, 7))
    np.testing.assert_array_equal(same_as_python(polar_loops, 4, 0.3, x, y), None)
    y = np.asfortranarray(y)
    y[3, 2] = bad    # atan2(nan, .) is nan; r = inf makes the angle inf
    assert same_as_python(polar_loops, 4, 0.3, x, y) is error


def test_the_flag_run_is_what_runs_natively_when_nothing_fails():
    x, y = np.random.default_rng(2).standard_normal((2, 5, 5))
    text = solvent.jit(polar_loops, backend="native").explain(3, 0.3, x, y)
    stage = text.split("## after flag_checks", 1)[1].split("## after", 1)[0]
    assert "loop.if" in stage
    got = jitted(polar_loops, "native")(3, 0.3, x, y)
    want = polar_loops(3, 0.3, x, y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
