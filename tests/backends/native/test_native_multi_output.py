"""Multi-output loops (backends/native/multi_output.py): elementwise ops and whole-array
reductions over one shape that share values run as one loop writing (or folding) several
results. NumPy on the same source is the oracle, over empty, one-element, float32,
Fortran-ordered and strided inputs; the kernels that must not become one loop (a value read
at another index, a reduction read inside the loop, an in-place write between the ops) are
checked for values, and the ones that must are checked for a group in the native plan."""
import math

import numpy as np
import pytest

import solvent
from solvent.backends.native.engine import vector_math


def shared_two_outputs(a, b):
    t = a * a + b
    return np.sqrt(np.abs(t)), t - 1.0


def sums_and_output(x, y):
    t = np.sin(x) * y
    return t * 2.0, np.sum(t), np.max(t), np.min(t * x)


def mask_reductions(x):
    m = x > 0.25
    return np.any(m), np.all(m), np.where(m, x, -x)


def int_min_max(k):
    t = k * 3 - 7
    return np.min(t), np.max(t), t + 1


def reduction_then_scale(x):
    t = x * x + 1.0
    s = np.sum(t)
    return t / s, s


def shifted_reader(x):
    t = x * 2.0 + 1.0
    return t[::-1] + t, np.sum(t)


def write_between(x, y):
    t = x * 2.0
    u = t + y
    x[0] = 5.0
    return u * t, np.sum(t), x


def time_loop(x, y):
    s = 0.0
    for _ in range(3):
        d = x + y
        s += np.sum(d * d)
        x[:] = d * 0.5
    return s


def siblings(a, x, y):
    """A gradient's shape: one cotangent ``a`` read by sums and products, none reading
    another (axpby's vjp)."""
    return np.sum(a * x), a * 2.0, np.sum(a * y), a - y


def sibling_then_write(a, b):
    s = np.sum(a * b)
    a *= 2.0     # writes the buffer the sum reads: the sum's loop must come first
    return s, a + b, a


def axis_sums(x, v):
    """Row and column sums of one computed matrix (a cotangent's matvecs): one pass."""
    m = x * 2.0 - 1.0
    return m, (m * 3.0 + v).sum(axis=1), m.sum(axis=0), m.max(axis=1, keepdims=True), m.sum()


def empty_axis_sums(x):
    m = x * 2.0
    return m.sum(axis=0), m.sum(axis=1), m.sum(axis=1, keepdims=True), m.sum()


def axis_sums_3d(x):
    m = x * x
    return m.sum(axis=(1, 2)), m.sum(axis=(0, 2)), m.min(axis=0, keepdims=True), m + 1.0


def sqrt_log_loop(x, y):
    n = x.shape[0]
    out = np.empty(n)
    for i in range(n):
        t = x[i] * y[i] - 0.5
        out[i] = math.sqrt(t) + math.log(t + 2.0)
    return out


def _layouts(shape, dtype, rng, low=-1.0):
    """The same values C-ordered, Fortran-ordered and as a strided view."""
    base = (rng.random(shape) * (1 - low) + low).astype(dtype)
    wide = np.zeros(shape[:-1] + (2 * shape[-1],), dtype) if shape else base
    if shape:
        wide[..., ::2] = base
    return {"c": base, "f": np.asfortranarray(base), "strided": wide[..., ::2]}


def _outcome(fn, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        out = fn(*args)
    except (ValueError, IndexError, ZeroDivisionError) as e:
        return type(e), args
    return out, args


def _same(want, got, rtol):
    if isinstance(want, type):
        assert got is want
        return
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        w, g = np.asarray(w), np.asarray(g)
        assert w.shape == g.shape and w.dtype == g.dtype, (w.dtype, g.dtype, w.shape, g.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def _check(fn, args, rtol, passes=None):
    want, want_args = _outcome(fn, args)
    jitted = solvent.jit(fn, backend="native", passes=passes)
    got, got_args = _outcome(jitted, args)
    _same(want, got, rtol)
    if not isinstance(want, type):
        for w, g in zip(want_args, got_args):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    return jitted


SHAPES = [(0,), (1,), (7,), (1, 1), (4, 5), (3, 0)]
CASES = [
    (shared_two_outputs, 2, True), (sums_and_output, 2, True), (mask_reductions, 1, True),
    (reduction_then_scale, 1, False), (shifted_reader, 1, False),
]


@pytest.mark.parametrize("fn,nargs,grouped", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)) or "scalar")
@pytest.mark.parametrize("dtype", ["f8", "f4"])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_multi_output_matches_numpy(fn, nargs, grouped, shape, dtype, layout):
    rng = np.random.default_rng(hash((fn.__name__, shape, dtype, layout)) % 2**32)
    args = [_layouts(shape, dtype, rng)[layout] for _ in range(nargs)]
    jitted = _check(fn, args, 1e-5 if dtype == "f4" else 1e-12)
    if 0 in shape or fn is shifted_reader and len(shape) > 1:
        return   # an empty reduction raises (max, min); no group to look for
    plan = jitted.compile(args).executable.plan
    if grouped and shape not in ((1,), (1, 1)):
        assert plan.groups, "expected one loop for the shared value's readers"


@pytest.mark.parametrize("shape", [(0,), (1,), (9,), (2, 3)], ids=str)
@pytest.mark.parametrize("dtype", ["i8", "i4", "u1"])
def test_integer_min_max_and_output(shape, dtype):
    rng = np.random.default_rng(11)
    k = rng.integers(0, 50, size=shape).astype(dtype)
    _check(int_min_max, [k], 0)


def test_value_read_at_another_index_is_written_out():
    """``t[::-1]`` reads ``t`` where the loop has not computed it yet: ``t`` is written out
    first (its sum may share its loop), and the reversal reads that."""
    x = np.arange(6.0)
    jitted = _check(shifted_reader, [x], 1e-12)
    exe = jitted.compile([x]).executable
    t = next(op for op in jitted.compile([x]).fn.body.ops if op.name == "tensor.add" and
             op.operands[0].owner is not None and
             getattr(op.operands[0].owner, "name", "") == "tensor.mul")
    assert t not in exe.plan.fused


@pytest.mark.parametrize("shape", [(1,), (6,), (2, 3)], ids=str)
def test_in_place_write_between_members(shape):
    """``x[0] = 5`` between ``t = 2x`` and ``u * t``: ``t`` must hold the old ``x``."""
    rng = np.random.default_rng(4)
    _check(write_between, [rng.random(shape), rng.random(shape)], 1e-12)


@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_group_in_a_time_loop_with_in_place_update(layout):
    rng = np.random.default_rng(8)
    x, y = (_layouts((5, 4), "f8", rng)[layout] for _ in range(2))
    jitted = _check(time_loop, [x, y], 1e-12)
    plan = jitted.compile([x, y]).executable.plan
    assert plan.groups


@pytest.mark.parametrize("n", [0, 1, 2, 17])
def test_checked_loop_twin_values(n):
    rng = np.random.default_rng(n)
    x, y = rng.random(n) + 1.0, rng.random(n) + 1.0
    _check(sqrt_log_loop, [x, y], 1e-12)


@pytest.mark.parametrize("bad", [0, 3, 16])
def test_checked_loop_twin_raises_python_error(bad):
    """A negative square root at element ``bad`` (and later ones): Python's ValueError, as
    the loop raises at its first failing iteration."""
    x, y = np.full(17, 2.0), np.full(17, 2.0)
    x[bad:] = -1.0
    with pytest.raises(ValueError, match="math domain error"):
        sqrt_log_loop(x.copy(), y)
    with pytest.raises(ValueError, match="math domain error"):
        solvent.jit(sqrt_log_loop, backend="native")(x, y)


def test_check_and_result_share_one_vectorized_loop(capfd):
    """The error check's first failing index (a min over the elements) and the result are
    one loop, and LLVM still vectorizes it (libmvec's log): the fold's result is hidden
    from the code after the loop, which otherwise read the running value outside it and
    kept the loop scalar (with a 'loop not vectorized' remark on the terminal). Without
    speculate_checks, which otherwise splits the checks into a pass of their own."""
    if vector_math() is None:
        pytest.skip("no libmvec on this host")
    x, y = np.full(1000, 2.0), np.full(1000, 1.5)
    jitted = _check(sqrt_log_loop, [x, y], 1e-12, {"speculate_checks": {"enabled": False}})
    c = jitted.compile([x, y])
    groups = {id(g): g for g in c.executable.plan.groups.values()}
    assert len(groups) == 1
    (g,) = groups.values()
    assert any(s.name == "tensor.reduce_min" for s in g.sinks)
    assert c.executable.comp.vector_calls
    assert "not vectorized" not in capfd.readouterr().err


@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (4, 5)], ids=str)
@pytest.mark.parametrize("layout", ["c", "strided"])
def test_siblings_share_one_loop(shape, layout):
    """Ops that read one buffer at their own index but not each other (siblings) run as one
    loop: ``a`` is read once for two sums and two products."""
    rng = np.random.default_rng(5)
    args = [_layouts(shape, "f8", rng)[layout] for _ in range(3)]
    jitted = _check(siblings, args, 1e-12)
    groups = {id(g): g for g in jitted.compile(args).executable.plan.groups.values()}
    if 0 not in shape and shape != (1,):
        assert len(groups) == 1 and len(next(iter(groups.values())).sinks) == 4


@pytest.mark.parametrize("shape", [(1,), (6,), (2, 3)], ids=str)
def test_sibling_writing_a_read_buffer_stays_out(shape):
    """``a *= 2`` writes the buffer the sum reads: not a sibling of the sum's loop."""
    rng = np.random.default_rng(6)
    _check(sibling_then_write, [rng.random(shape), rng.random(shape)], 1e-12)


@pytest.mark.parametrize("shape", [(1, 1), (4, 5), (0, 3), (3, 0)], ids=str)
@pytest.mark.parametrize("layout", ["c", "f"])
def test_axis_reductions_share_one_loop(shape, layout):
    """Reductions over some axes (trailing ones folded in a register per row, others in the
    result buffer) join the loop of the value they reduce."""
    rng = np.random.default_rng(7)
    x = _layouts(shape, "f8", rng)[layout]
    v = rng.random(shape[1])
    if 0 in shape:   # max over an empty axis raises
        _check(empty_axis_sums, [x], 1e-12)
        return
    jitted = _check(axis_sums, [x, v], 1e-12)
    groups = {id(g): g for g in jitted.compile([x, v]).executable.plan.groups.values()}
    if shape != (1, 1):
        (g,) = groups.values()
        assert sum(s.name.startswith("tensor.reduce_") for s in g.sinks) == 4


def step_on_a_row_sum(x, v):
    """softmax_loops' shape: elementwise work on a finished row sum (``+ 1.0``, of another
    shape than the loop's, or ``+ v[0]``, a scalar from outside) stands between reductions
    of one computed value."""
    t = x * 2.0 - 1.0
    e = np.exp(t)
    s = e.sum(axis=1) + 1.0
    w = t.min(axis=1) + v[0]
    m = np.abs(t).max(axis=1)
    return e / s[:, None], m, w


@pytest.mark.parametrize("shape", [(1, 1), (3, 4), (5, 1)], ids=str)
@pytest.mark.parametrize("layout", ["c", "f"])
def test_step_on_a_finished_result_keeps_the_loop_open(shape, layout):
    """The ``+ 1.0`` on the row sum runs after the loop, which stays open for the max and
    the exp: ``t`` is computed inside it and never written out (it was, with the loop
    closed at the ``+ 1.0``: one more pass over memory, softmax_loops 15.6 vs 12.0 ms)."""
    rng = np.random.default_rng(12)
    x = _layouts(shape, "f8", rng)[layout]
    v = rng.random(shape[0])
    jitted = _check(step_on_a_row_sum, [x, v], 1e-12)
    groups = {id(g): g for g in jitted.compile([x, v]).executable.plan.groups.values()}
    if shape != (1, 1):
        big = [g for g in groups.values() if g.shape == shape]
        assert len(big) == 1
        names = [s.name for s in big[0].sinks]
        assert "tensor.sub" not in names and "tensor.exp" in names
        assert sorted(n for n in names if n.startswith("tensor.reduce_")) == [
            "tensor.reduce_max", "tensor.reduce_min", "tensor.reduce_sum"]


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 4)], ids=str)
def test_axis_reductions_3d(shape):
    rng = np.random.default_rng(9)
    _check(axis_sums_3d, [rng.random(shape)], 1e-12)


def test_turned_off_gives_the_same_values():
    from solvent.backends.native.backend import NativeBackend
    from solvent.backends.interp import run
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((6, 7)), rng.standard_normal((6, 7))
    ir = solvent.jit(sums_and_output, backend="interp").compile((x, y)).fn
    on, off = NativeBackend().compile(ir), NativeBackend(multi_output=False).compile(ir)
    assert on.plan.groups and not off.plan.groups
    for a, b, c in zip(on(x, y), off(x, y), run(ir, [x, y])):
        np.testing.assert_allclose(a, c, rtol=1e-12)
        np.testing.assert_allclose(b, c, rtol=1e-12)


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (6, 5)], ids=str)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_error_code_of_two_loops_keeps_the_larger_open(shape, layout):
    """row_col_norms_loops: the error code combines the row norms' domain check (a loop over
    the rows) and the column norms' (over the columns, after a loop over the matrix): the
    scalar waits for the matrix loop, which stays open, so the column sums and the total
    sum of squares are one pass over ``A`` (were two, the code closing both loops)."""
    from solvent.corpus.row_col_norms_loops import kernel
    rng = np.random.default_rng(13)
    A = _layouts(shape, "f8", rng)[layout] + 0.01
    jitted = _check(kernel, [A], 1e-12)
    groups = {id(g): g for g in jitted.compile([A]).executable.plan.groups.values()}
    if shape != (1, 1):
        big = [g for g in groups.values() if g.shape == shape]
        assert len(big) == 1 and [s.name for s in big[0].sinks] == ["tensor.reduce_sum"] * 2


def deferred_reshape_then_reuse(x):
    v = x * 2.0
    return np.broadcast_to(v.reshape(-1, 1), (x.shape[0], 3)) + \
        np.broadcast_to((-v).reshape(-1, 1), (x.shape[0], 3))


def row_spread(Z):
    m = Z.max(axis=1)
    return np.sum(m - Z.min(axis=1) + Z.sum(axis=1)), m - m + Z.sum(axis=1)


@pytest.mark.parametrize("fn,shape", [(deferred_reshape_then_reuse, (2,)),
                                      (deferred_reshape_then_reuse, (9,)),
                                      (row_spread, (2, 3)), (row_spread, (5, 1))])
def test_a_member_reusing_a_buffer_a_deferred_reshape_reads(fn, shape):
    """``v = 2x; a = v.reshape(n, 1); w = -v`` with ``w`` written into ``v``'s buffer (dead
    after w in program order): the reshape, deferred after the group's loop, read ``w``
    (every element -6 instead of 0; a row max's gradient -2 where 0). The member writing into
    a buffer a deferred op reads now closes the group first."""
    rng = np.random.default_rng(3)
    _check(fn, [rng.random(shape)], 1e-12)


_STEPS = ["{a} * 2.0", "-{a}", "{a} + {b}", "np.abs({a}) - {b}", "{a} * {b}", "np.sqrt({a} * {a})"]
_READS = ["{a}.reshape(-1, 1)", "{a}[:, None]", "({a} * 0.5).reshape(-1, 1)",
          "{a}[::-1].reshape(-1, 1)", "np.sum({a}) + {a}.reshape(-1, 1)"]


def _generated(seed):
    """Elementwise values over x, some of them read on the way through a reshape to a column
    (a view read later, broadcast), as a stranger's vector code reads them; the columns are
    broadcast and summed at the end."""
    r = np.random.default_rng(seed)
    lines, names, cols = ["def f(x):", "    n = x.shape[0]", "    v0 = x * 1.5"], ["v0"], []
    for k in range(1, 9):
        a, b = (names[i] for i in r.integers(0, len(names), 2))
        if r.random() < 0.4:
            lines.append(f"    c{k} = " + _READS[r.integers(len(_READS))].format(a=a))
            cols.append(f"np.broadcast_to(c{k}, (n, 3))")
        else:
            lines.append(f"    v{k} = " + _STEPS[r.integers(len(_STEPS))].format(a=a, b=b))
            names.append(f"v{k}")
    lines.append(f"    return {' + '.join(cols) or 'x'}, np.sum({names[-1]})")
    from tests.differential import function_from_source
    return function_from_source("\n".join(lines) + "\n", "f", f"multi-output-{seed}", {"np": np})


# seeds 16 and 33 (and 4 of the first 40) gave wrong columns before a member writing into a
# buffer a deferred reshape reads closed the group
@pytest.mark.parametrize("seed", list(range(8)) + [16, 33])
def test_generated_chains_read_through_reshapes_match_numpy(seed):
    x = np.random.default_rng(seed).random(7) - 0.5
    _check(_generated(seed), [x], 1e-12)
