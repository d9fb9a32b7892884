"""speculate_checks (native): a loop whose checks test values read from its inputs runs a
check-only pass over its range first, then the loop without those checks when none fails,
else the loop as it was. Results, the error raised first (type, message, line) and untouched
arguments after a failure match plain Python/NumPy; the clean copy holds none of the checks
and converts the checked value without NumPy's out-of-range handling."""
import math

import numpy as np
import pytest

import solvent
from solvent.ir.parser import parse_function
from solvent.ir.verifier import verify
from solvent.corpus.histogram_loops import kernel as floor_hist
from solvent.passes.speculate_checks import SPECULATE_MAX_BYTES, speculate_checks

from differential import copy_keep_layout, jitted

def sqrt_rows(scale, x, out):
    for i in range(x.shape[0]):
        out[i] = math.sqrt(x[i]) * scale


def running_sqrt(x, out):
    # the checked value depends on a value the loop carries: not speculable
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        out[i] = math.sqrt(s)


def same_as_python(fn, *args):
    """Python's outcome (result, or exception type) and solvent native's agree, the
    arguments keep their layout (strided, reversed, Fortran) on both sides."""
    f = jitted(fn, "native")
    py_args = [copy_keep_layout(a) for a in args]
    sv_args = [copy_keep_layout(a) for a in args]
    try:
        want = fn(*py_args)
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e)) as got:
            f(*sv_args)
        where = fn.__code__.co_filename.rsplit("/", 1)[-1] + ":"
        assert where in str(got.value), str(got.value)   # the kernel's own line
        for a, b in zip(sv_args, args):   # nothing written after a failure
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
        return type(e)
    got = f(*sv_args)
    if want is not None:
        np.testing.assert_array_equal(got, want)
    for a, b in zip(sv_args, py_args):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
    return None


def _samples(kind, n, dtype, rng):
    x = rng.standard_normal(2 * n).astype(dtype)
    if kind == "strided":
        x = x[::2]
    elif kind == "reversed":
        x = x[::-1][:n]
    else:
        x = x[:n]
    return x


@pytest.mark.parametrize("kind", ["plain", "strided", "reversed"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_histogram_matches_python(kind, dtype):
    rng = np.random.default_rng(7)
    for n in (0, 1, 257):
        assert same_as_python(floor_hist, 8, -2.0, 2.0, _samples(kind, n, dtype, rng)) is None


@pytest.mark.parametrize("bad, error", [(np.nan, ValueError), (np.inf, OverflowError),
                                        (-np.inf, OverflowError)])
@pytest.mark.parametrize("at", [0, 5, 99])
def test_the_first_failing_sample_raises_as_python(bad, error, at):
    x = np.random.default_rng(at).standard_normal(100)
    x[at] = bad
    if at + 3 < x.shape[0]:
        x[at + 3] = np.inf if bad != bad else np.nan   # a later failure of another kind
    assert same_as_python(floor_hist, 8, -2.0, 2.0, x) is error


def test_beyond_int64_still_refused_with_the_reason():
    x = np.array([0.1, 1e300, 0.5])
    with pytest.raises(OverflowError, match="beyond 2\\*\\*63"):
        jitted(floor_hist, "native")(4, -1.0, 1.0, x)


@pytest.mark.parametrize("neg_at", [None, 0, 13, 63])
def test_sqrt_domain_checks(neg_at):
    x = np.random.default_rng(3).random(64)
    if neg_at is not None:
        x[neg_at] = -0.5
    want = None if neg_at is None else ValueError
    assert same_as_python(sqrt_rows, 2.5, x, np.zeros(64)) is want


def col_log(k, scale, A, out):
    # compile-time column and a scalar before the arrays, as ported from C
    n = A.shape[0]
    for i in range(n):
        out[i] = math.log(A[i, k]) * scale


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("rows", [0, 1, 9])
def test_a_column_read_in_any_layout(layout, dtype, rows):
    rng = np.random.default_rng(rows)
    A = (rng.random((2 * rows, 6)) + 0.5).astype(dtype)
    A = A[::2, ::2] if layout == "strided" else A[:rows, :3]
    if layout == "F":
        A = np.asfortranarray(A)
    out = np.zeros(rows, dtype)
    assert same_as_python(col_log, 1, 2.0, A, out) is None
    if rows:
        A = copy_keep_layout(A)
        A[rows - 1, 1] = 0.0 if rows > 1 else -1.0   # log(0): ValueError too, as math.log
        assert same_as_python(col_log, 1, 2.0, A, out) is ValueError


def test_a_carried_value_keeps_the_loop_as_it_was():
    x = np.array([1.0, 2.0, -4.0, 0.5])
    assert same_as_python(running_sqrt, x, np.zeros(4)) is ValueError
    assert same_as_python(running_sqrt, np.abs(x), np.zeros(4)) is None


def _after_version_checks(fn, *args):
    """The IR speculate_checks sees natively for loops version_checks leaves as they are:
    the stage after hoist_checks under the interpreter (where the two passes are off, idle,
    and show no stage of their own)."""
    text = solvent.jit(fn, backend="interp").explain(*args)
    stage = text.split("## after hoist_checks", 1)[1].split("## after", 1)[0]
    return parse_function(stage.strip())


def test_the_clean_copy_holds_none_of_the_checks():
    fn = speculate_checks(_after_version_checks(floor_hist, 8, -2.0, 2.0, np.zeros(300)))
    verify(fn)
    pre = next(op for op in fn.body.ops if op.name == "loop.for")
    assert [r.type.dtype for r in pre.results] == ["i1"]
    assert not any(op.name == "error.check" for op in pre.walk())
    # int()'s three conditions (fits or not NaN, fits or not infinite, fits): one and
    body = pre.regions[0].block
    last = body.terminator.operands[0].owner
    assert last.name == "tensor.and" and last.operands[0] is body.args[1]
    assert last.operands[1].owner.name == "tensor.and"     # ge and lt: fits int64
    branch = next(op for op in fn.body.ops if op.name == "loop.if")
    assert branch.operands[0] is pre.results[0]
    clean, checked = ([op for op in r.block.ops if op.name == "loop.for"][0]
                      for r in branch.regions)
    assert not any(op.name == "error.check" for op in clean.walk())
    assert sum(op.name == "error.check" for op in checked.walk()) == 3
    converts = [op for op in clean.walk() if op.name == "tensor.convert"
                and op.results[0].type.dtype == "i64"]
    assert converts and all(op.attrs.get("in_range") for op in converts)
    assert not any(op.attrs.get("in_range") for op in checked.walk()
                   if op.name == "tensor.convert")


def gather_sqrt(x, idx, out):
    # an index check of idx[i] (IndexError: left to raising) and a value check (sqrt)
    for i in range(out.shape[0]):
        out[i] = math.sqrt(x[idx[i]])


def sqrt_steps(T, x, out):
    # the loop with value checks sits in a time loop: left to raising (module docstring)
    for t in range(T):
        for i in range(x.shape[0]):
            out[i] = math.sqrt(x[i]) + out[i] * 0.5


def test_a_loop_nested_in_another_is_left_alone():
    fn = _after_version_checks(sqrt_steps, 3, np.ones(8), np.zeros(8))
    before = str(fn)
    assert str(speculate_checks(fn)) == before
    x = np.array([1.0, 4.0, -1.0, 9.0])
    assert same_as_python(sqrt_steps, 2, x, np.zeros(4)) is ValueError
    assert same_as_python(sqrt_steps, 2, np.abs(x), np.zeros(4)) is None


def test_index_checks_stay_and_carried_values_and_large_inputs_are_left_alone():
    fn = speculate_checks(_after_version_checks(gather_sqrt, np.ones(5), np.arange(5),
                                                np.zeros(5)))
    verify(fn)
    branch = next(op for op in fn.body.ops if op.name == "loop.if")
    clean = [op for op in branch.regions[0].block.ops if op.name == "loop.for"][0]
    kinds = [op.attrs["kind"] for op in clean.walk() if op.name == "error.check"]
    assert kinds == ["IndexError"]
    x = np.array([1.0, 4.0, -1.0, 9.0])
    assert same_as_python(gather_sqrt, x, np.array([0, 1, 3, 1]), np.zeros(4)) is None
    assert same_as_python(gather_sqrt, x, np.array([0, 2, 3, 1]), np.zeros(4)) is ValueError
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        jitted(gather_sqrt, "native")(x, np.array([0, 7, 2, 1]), np.zeros(4))
    fn = _after_version_checks(running_sqrt, np.ones(8), np.zeros(8))
    before = str(fn)
    assert str(speculate_checks(fn)) == before
    n = SPECULATE_MAX_BYTES // 8 + 1     # a check-only pass reading more than the bound
    fn = _after_version_checks(sqrt_rows, 2.0, np.ones(n), np.zeros(n))
    assert not any(op.name == "loop.if" for op in speculate_checks(fn).body.ops)
    fn = _after_version_checks(sqrt_rows, 2.0, np.ones(64), np.zeros(64))
    assert any(op.name == "loop.if" for op in speculate_checks(fn).body.ops)


def test_automatic_choice_compiles_with_the_native_options():
    # choosing the native backend reruns the passes its options change (version and
    # speculate checks), and explain shows each stage once (version_checks none: the
    # histogram has no index check for it to version, so it is idle)
    text = solvent.jit(floor_hist).explain(8, -2.0, 2.0, np.zeros(300))
    assert "## backend: native" in text and "compiled with native's pass options" in text
    final = text.split("## after mark_parallel", 1)[1]
    assert "in_range = true" in final
    for name, times in (("version_checks", 0), ("speculate_checks", 1), ("checks_to_values", 1)):
        assert text.count(f"## after {name}\n") == times, name


def sqrt_backwards(x, out):
    for i in range(x.shape[0] - 1, -1, -1):
        out[i] = math.sqrt(x[i])


def test_a_backward_loop_counts_its_trips():
    # a negative step: the check-only pass still reads every element once
    n = SPECULATE_MAX_BYTES // 8 + 1
    fn = _after_version_checks(sqrt_backwards, np.ones(n), np.zeros(n))
    assert not any(op.name == "loop.if" for op in speculate_checks(fn).body.ops)
    fn = _after_version_checks(sqrt_backwards, np.ones(64), np.zeros(64))
    assert any(op.name == "loop.if" for op in speculate_checks(fn).body.ops)
    x = np.array([1.0, 4.0, -1.0, 9.0])
    assert same_as_python(sqrt_backwards, x, np.zeros(4)) is ValueError
    assert same_as_python(sqrt_backwards, np.abs(x), np.zeros(4)) is None
