"""hoist_checks: a check of a loop-invariant index leaves its loop (``A[row, i]`` with a
scalar ``row``), guarded by ``the range is empty`` when the loop may make no trip; a check
after one that may fail first stays; a check of the loop's own counter (``f[t + c]`` in a
time loop) leaves when nothing else in the loop can fail. Results and the error raised
first match NumPy."""
import numpy as np
import pytest

import solvent
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.verifier import verify
from solvent.passes.hoist_checks import hoist_checks
from tests.differential import check

BACKENDS = ["interp", "native", "xla"]


def row_times(row, A, out):
    for i in range(A.shape[1]):
        out[i] = A[row, i] * 2.0


def row_prefix(row, n, A, out):
    for i in range(n):          # n == 0: the loop makes no trip and nothing fails
        out[i] = A[row, i] + 1


def after_a_failing_read(row, B, A, out):
    for i in range(out.size):   # B[i] may fail first: the row check stays in the loop
        out[i] = B[i] + A[row, 0]


def nested(row, A, out):
    for k in range(2):
        for i in range(A.shape[1]):
            out[k, i] = A[row, i] * k


def forced(lb, steps, c, u, f):
    for t in range(lb, steps):   # a time loop reading its forcing f[t + c]: the one check
        u[0] = f[t + c]
        for i in range(1, u.shape[0]):
            u[i] = 0.5 * (u[i] + u[i - 1])


def forced_and_indexed(steps, u, f, g):
    for t in range(steps):       # two checks of t: the first to fail in a trip wins
        u[t % 3] += f[t] + g[t + 1]


def _outcome(fn, args):
    try:
        fn(*args)
        return None, args
    except IndexError as e:
        return str(e), args


def same_as_numpy(fn, *args, backend):
    np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    sv_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    exp, _ = _outcome(fn, np_args)
    if exp is None:
        check(fn, *args, backend=backend)
        return
    with pytest.raises(IndexError) as got:
        solvent.jit(fn, backend=backend)(*sv_args)
    assert exp in str(got.value), (str(got.value), exp)   # with the line, as each backend puts it
    for a, b in zip(sv_args, args):   # nothing written after a failure
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("row", [0, 2, -3, 3, -4, 7])
def test_invariant_row_checks_match_numpy(row, backend):
    A = np.arange(15.0).reshape(3, 5)
    same_as_numpy(row_times, row, A, np.zeros(5), backend=backend)
    same_as_numpy(nested, row, A, np.zeros((2, 5)), backend=backend)
    A8 = np.arange(15, dtype=np.int8).reshape(3, 5)
    for n in (0, 1, 5):
        same_as_numpy(row_prefix, row, n, A8, np.zeros(5, np.int8), backend=backend)


# B empty: B[0] fails first (native reported A's row while LICM's hoisted read of A[row, 0]
# raised itself, and XLA failed in jax on the gather from an empty array)
@pytest.mark.parametrize("backend,nb", [(b, n) for b in BACKENDS for n in (0, 2, 4)])
@pytest.mark.parametrize("row", [1, 9])
def test_a_check_after_one_that_may_fail_first_stays(nb, row, backend):
    same_as_numpy(after_a_failing_read, row, np.ones(nb), np.ones((2, 3)), np.zeros(4),
                  backend=backend)


def _loop_checks(c):
    outer = [op for op in c.fn.body.ops if op.name == "loop.for"]
    return sum(inner.name == "error.check" for op in outer for inner in op.walk())


def _after_hoisting(fn, *args):
    jf = solvent.jit(fn, backend="interp")
    text = jf.explain(*args)
    stage = text.split("## after hoist_checks", 1)[1].split("## after", 1)[0]
    return parse_function(stage.strip())


def test_the_check_leaves_the_loop_and_an_empty_range_guards_it():
    A = np.ones((3, 5))
    fn = _after_hoisting(row_times, 1, A, np.zeros(5))
    verify(fn)
    loop = next(op for op in fn.body.ops if op.name == "loop.for")
    assert not any(op.name == "error.check" for op in loop.walk())
    assert any(op.name == "error.check" for op in fn.body.ops)
    fn = _after_hoisting(row_prefix, 1, 4, A, np.zeros(5))
    loop = next(op for op in fn.body.ops if op.name == "loop.for")
    row = fn.args[0]
    assert not any(op.name == "error.check" and row in op.operands for op in loop.walk())
    assert any(op.name == "error.check" for op in loop.walk())   # i < 5: not invariant
    assert "tensor.or" in print_function(fn)   # ok or lb >= ub: the loop may make no trip
    fn = _after_hoisting(nested, 1, A, np.zeros((2, 5)))
    assert [op.name for op in fn.body.ops].count("error.check") == 1   # out of both loops
    fn = _after_hoisting(after_a_failing_read, 1, np.ones(2), A, np.zeros(4))
    loop = next(op for op in fn.body.ops if op.name == "loop.for")
    assert sum(op.name == "error.check" for op in loop.walk()) == 2
    again = parse_function(print_function(fn))
    hoist_checks(again)   # a fixpoint: nothing more moves
    assert print_function(again) == print_function(fn)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_check_of_the_loop_counter_leaves_the_loop_and_fails_as_numpy(backend):
    u0, f = np.arange(6.0), np.arange(20.0)
    cases = [(0, 20, 0), (0, 21, 0), (0, 25, 0), (-20, 3, 0), (-21, 3, 0), (5, 2, 0),
             (0, 19, 1), (0, 20, 1), (-3, 4, -18), (0, 0, 50), (3, 19, -2)]
    for lb, steps, c in cases:
        same_as_numpy(forced, lb, steps, c, u0.copy(), f, backend=backend)
    same_as_numpy(forced, 0, 10, 0, np.asfortranarray(np.ones(4)), f[::2], backend=backend)
    for steps in (3, 4, 5):   # g (length 4) fails at t = 3, f (length 5) at t = 5
        same_as_numpy(forced_and_indexed, steps, np.zeros(3), np.ones(5), np.ones(4),
                      backend=backend)


def test_the_counter_check_leaves_only_when_nothing_else_can_fail():
    fn = _after_hoisting(forced, 0, 25, 0, np.zeros(6), np.zeros(20))
    verify(fn)
    loop = next(op for op in fn.body.ops if op.name == "loop.for")
    assert not any(op.name == "error.check" for op in loop.walk()), print_function(fn)
    assert [op.name for op in fn.body.ops].count("error.check") == 1
    fn = _after_hoisting(forced_and_indexed, 5, np.zeros(3), np.ones(5), np.ones(4))
    loop = next(op for op in fn.body.ops if op.name == "loop.for")
    sizes = [op.attrs["message"][-6:] for op in loop.walk() if op.name == "error.check"]
    assert "size 5" in sizes and "size 4" in sizes, sizes   # f's and g's checks stay
