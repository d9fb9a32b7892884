"""Raising scalar loops into tensor ops.

- translation validation: the interpreter runs the IR before raise_loops and after the
  raising passes on random inputs (NaN, inf, -0.0 included) at edge sizes (0, 1,
  non-square); a deliberately wrong batching rule is caught by the same check;
- the data-parallel kernels keep no scalar loop (only their time loop) and match NumPy on
  every backend that accepts them;
- loops with genuine dependences stay loops, match NumPy, and explain says why.
"""
import copy
import sys
from pathlib import Path

import numpy as np
import pytest

import solvent
from solvent.analysis.explain import explain_loops
from solvent.backends.interp import run
from solvent.errors import UnsupportedError
from solvent.frontend.translator import translate
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.verifier import verify
from solvent.passes import pipeline
from solvent.passes.raising import batching, delinearize, indexing

from loop_kernels import CARRIED, RAISED, RUNTIME_SHAPE

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_patterns import _inputs  # noqa: E402  (the pattern tests' random inputs)

SIZES = [(3, 4), (1, 1), (0, 2)]
RAISING = ("raise_loops", "canonicalize", "raise_contractions")


def _loops(fn):
    return sum(1 for op in fn.walk() if op.name in ("loop.for", "loop.while"))


def _before_after(pyfn, args):
    """(IR just before raise_loops, IR after the whole pipeline)."""
    fn = translate(pyfn, tuple(args), frozenset()).fn
    before = None
    for p in pipeline.build_pipeline():
        if p.name == "raise_loops" and before is None:
            before = parse_function(print_function(fn))
        fn = p.run(fn)
        verify(fn, tensor_only=p.tensor_only)
    return before, fn


def _close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
    return np.array_equal(a, b)


def _validate(pyfn, args, seeds=2):
    before, after = _before_after(pyfn, args)
    rng = np.random.default_rng(7)
    same = True
    for seed in range(seeds):
        inputs = _inputs(before, rng)
        if seed % 2:  # finite inputs too: one NaN in a sum makes every output NaN alike
            inputs = [np.nan_to_num(a, nan=0.5, posinf=2.0, neginf=-2.0)
                      if np.asarray(a).dtype.kind in "fc" else a for a in inputs]
        x = run(before, copy.deepcopy(inputs))
        y = run(after, copy.deepcopy(inputs))
        same &= len(x) == len(y) and all(_close(a, b) for a, b in zip(x, y))
    return same, before, after


@pytest.mark.parametrize("size", SIZES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", list(RAISED) + list(CARRIED))
def test_interpreter_agrees_before_and_after_raising(name, size):
    fn, make, *_ = {**RAISED, **CARRIED}[name]
    same, before, after = _validate(fn, make(*size))
    assert same, f"{name} at {size}: raising changed a result\n{print_function(after)}"


def test_a_wrong_batching_rule_is_caught(monkeypatch):
    """A rule that batches x - y as x + y: the same validation sees the difference."""
    def wrong(b, op, args):
        return batching.elementwise(b, type(op)("tensor.add", list(op.operands),
                                                [op.result.type], op.attrs, None, op.loc),
                                    args)
    monkeypatch.setitem(batching.RULES, "tensor.sub", wrong)
    fn, make, _ = RAISED["matvec"]

    def diff(x, y):
        for i in range(x.shape[0]):
            y[i] = x[i] - 2.0 * x[i]
    x = np.arange(5.0)
    same, _, after = _validate(diff, (x, np.zeros(5)))
    assert _loops(after) == 0 and not same


def test_a_wrong_window_is_caught(monkeypatch):
    """Window reads as static slices (conv taps x[i + k]) with the taps in reverse order:
    the same validation sees the difference."""
    plan = indexing._plan

    def reversed_taps(b, op, shape, spec, dyn, first_dyn, shift=None):
        if shift is not None:
            width = next(it[2] for it in spec if it[0] == "d" and dyn[it[1]][1])
            shift = width - 1 - shift
        return plan(b, op, shape, spec, dyn, first_dyn, shift)
    monkeypatch.setattr(indexing, "_plan", reversed_taps)
    fn, make, _ = RAISED["conv1d"]
    same, _, after = _validate(fn, make(5, 2))
    assert _loops(after) == 0 and "window slices" in explain_loops(after) and not same


def test_flat_offsets_become_two_subscripts_only_inside_a_row():
    from solvent import corpus
    k = corpus.get("three_mm_loops")  # a[i * nk + k] * b[k * nj + j], three times
    fn = solvent.jit(k.func).compile(k.make_args(6, np.random.default_rng(0))).fn
    names = [op.name for op in fn.walk()]
    assert "tensor.gather" not in names and names.count("tensor.dot_general") == 3
    assert "4 flat offsets into ravelled arrays became 2-D subscripts" in explain_loops(fn)
    _, after = _before_after(RAISED["flat_overlap"][0], RAISED["flat_overlap"][1](3, 4))
    assert "became 2-D subscripts" not in explain_loops(after)


def test_a_wrong_delinearization_is_caught(monkeypatch):
    """Splitting c*u + v as (u, c - 1 - v) (the columns reversed, inside the row as the
    bounds test wants): the validation sees the difference."""
    split = delinearize._split

    def mirrored(form, c):
        u, v = split(form, c)
        return u, type(v)(c - 1) - v
    monkeypatch.setattr(delinearize, "_split", mirrored)
    fn, make, _ = RAISED["flat_matvec"]
    same, _, after = _validate(fn, make(4, 3))
    assert "became 2-D subscripts" in explain_loops(after) and not same


@pytest.mark.parametrize("name", list(RAISED))
def test_data_parallel_kernels_keep_no_scalar_loop(name):
    fn, make, time_loops = RAISED[name]
    _, after = _before_after(fn, make(3, 4))
    assert _loops(after) == time_loops, print_function(after)
    for op in after.walk():
        if op.name == "loop.for":  # only the time loop: no loop inside it
            assert not any(o.name == "loop.for" for o in list(op.walk())[1:])


@pytest.mark.parametrize("name", ["matmul", "gemm", "matvec", "matvec_t", "syrk",
                                  "syrk_lower", "batched_matmul", "conv1d",
                                  "conv1d_channels"])
def test_multiply_accumulate_nests_become_dot_general(name):
    fn, make, _ = RAISED[name]
    _, after = _before_after(fn, make(3, 4))
    names = [op.name for op in after.walk()]
    assert "tensor.dot_general" in names and "tensor.reduce_sum" not in names


def test_stacked_windows_contract_in_their_own_layout():
    """conv1d over channels: the windows x[:, k:k + L] are stacked as (c, k, L), not each
    transposed to (L, c), and the product contracts (c, k) on both sides in order (a plain
    GEMM after a free reshape); interpreter results as before raising."""
    fn, make, _ = RAISED["conv1d_channels"]
    same, _, after = _validate(fn, make(5, 3))
    names = [op.name for op in after.walk()]
    assert same and "tensor.transpose" not in names, print_function(after)
    (dot,) = [op for op in after.walk() if op.name == "tensor.dot_general"]
    assert (dot.attrs["lhs_contract"], dot.attrs["rhs_contract"]) == ([1, 2], [0, 1])


def _numpy_vs_solvent(fn, args, backend):
    want = copy.deepcopy(list(args))
    ret_want = fn(*want)
    got = copy.deepcopy(list(args))
    try:
        ret_got = solvent.jit(fn, backend=backend)(*got)
    except UnsupportedError as e:
        if backend == "native":
            pytest.skip(f"native refuses: {e}")
        raise
    assert _close(np.asarray(ret_want, dtype=object) if ret_want is None else ret_want,
                  np.asarray(ret_got, dtype=object) if ret_got is None else ret_got) \
        or ret_want is ret_got is None
    for a, b in zip(want, got):
        if isinstance(a, np.ndarray):
            assert _close(a, b), f"{fn.__name__} on {backend}:\n{a}\n{b}"


# edge sizes on XLA (the interpreter sees them in the validation above), one size elsewhere
@pytest.mark.parametrize("backend,size", [("xla", (3, 4)), ("xla", (1, 1)), ("xla", (0, 2)),
                                          ("interp", (4, 2)), ("native", (3, 4))],
                         ids=lambda s: "x".join(map(str, s)) if isinstance(s, tuple) else s)
@pytest.mark.parametrize("name", list(RAISED))
def test_raised_kernels_match_numpy(name, size, backend):
    fn, make, _ = RAISED[name]
    _numpy_vs_solvent(fn, make(*size), backend)


@pytest.mark.parametrize("backend", ["xla", "interp"])
@pytest.mark.parametrize("name", list(CARRIED))
def test_dependent_loops_stay_loops_and_match_numpy(name, backend):
    fn, make, words = CARRIED[name]
    args = make(4, 5)
    _numpy_vs_solvent(fn, args, backend)
    _, after = _before_after(fn, args)
    text = explain_loops(after)
    assert _loops(after) >= 1 and "not raised" in text and words in text, text


def test_raising_can_be_turned_off():
    fn, make, _ = RAISED["matmul"]
    off = solvent.jit(fn, passes={"raise_loops": {"enabled": False}})
    args = make(3, 4)
    assert _loops(off.compile(args).fn) == 3
    on = solvent.jit(fn)
    assert _loops(on.compile(args).fn) == 0
    with pytest.raises(TypeError):
        pipeline.build_pipeline({"raise_loops": {"enabled": "no"}})


def test_index_checks_are_kept_when_a_loop_is_raised():
    """x[idx[i]] keeps its IndexError check (over the whole index range, hoisted): the
    first failing iteration is reported, as the loop would. On XLA: natively a loop
    gathering data stays a loop (raise_loops' data_gathers, off there)."""
    fn, make, _ = RAISED["gather_scale"]
    x, idx, y = make(4, 5)
    f = solvent.jit(fn, backend="xla")
    assert _loops(f.compile((x, idx, y)).fn) == 0
    bad = idx.copy()
    bad[1], bad[3] = 17, 9
    y0 = y.copy()
    with pytest.raises(IndexError, match="17"):
        f(x, bad, y)
    assert np.array_equal(y, y0)  # nothing written back


def test_explain_names_raised_loops_and_the_dependence():
    # XLA raises the sweeps too (natively they stay parallel loops)
    text = solvent.jit(RAISED["jacobi_1d"][0], backend="xla").explain(2, np.zeros(8),
                                                                       np.zeros(8))
    assert "## loops" in text and "raised (independent) into" in text
    assert "loop t: carried" in text and "not raised" in text
    text = explain_loops(CARRIED["prefix_sum"][0], np.zeros(6))
    assert "not raised" in text and "x[i-1]" in text and "distance 1" in text
    text = explain_loops(RAISED["matmul"][0], *RAISED["matmul"][1](3, 4))
    assert "raised (reduction)" in text and "dot_general" in text


def test_syrk_twin_is_a_masked_dot_general():
    """syrk_loops (beta-scaled lower triangle, then k outer products masked to j <= i): no
    scalar loop is left and the masked reduction is one dot_general."""
    from solvent import corpus
    k = corpus.get("syrk_loops")
    args = k.make_args(7, np.random.default_rng(1))
    fn = solvent.jit(k.func).compile(args).fn
    names = [op.name for op in fn.walk()]
    assert _loops(fn) == 0 and names.count("tensor.dot_general") == 1, print_function(fn)
    assert "tensor.reduce_sum" not in names


@pytest.mark.parametrize("backend", ["xla", "interp"])
def test_a_check_the_same_in_every_iteration_is_reported_once_raised(backend):
    """math.exp overflowing in one element of a raised nest raises OverflowError as Python
    does, and nothing is written back."""
    fn, make, _ = RAISED["softmax_math"]
    X, out = make(3, 4)
    f = solvent.jit(fn, backend=backend)
    assert _loops(f.compile((X, out)).fn) == 0
    assert "any-error select" in explain_loops(f.compile((X, out)).fn)
    X[1, 2] = 800.0
    with pytest.raises(OverflowError):
        fn(X, out.copy())
    out0 = out.copy()
    with pytest.raises(OverflowError, match="math range error"):
        f(X, out)
    assert np.array_equal(out, out0)


@pytest.mark.parametrize("backend", ["xla", "interp"])
@pytest.mark.parametrize("case", ["zero", "overflow", "both", "none"])
def test_a_hoisted_check_before_a_varying_one_keeps_pythons_order(case, backend):
    fn, make, _ = RAISED["exp_row_sums"]
    img, s, out = make(3, 4)
    if case in ("overflow", "both"):
        img[2, 1] = 900.0
    if case in ("zero", "both"):
        s = 0.0
    f = solvent.jit(fn, backend=backend)
    assert "any-error select" in explain_loops(f.compile((img, s, out)).fn)
    want = {"zero": ZeroDivisionError, "both": ZeroDivisionError,
            "overflow": OverflowError}.get(case)
    if want is None:
        _numpy_vs_solvent(fn, (img, s, out), backend)
        return
    with pytest.raises(want):
        fn(img, s, out.copy())
    with pytest.raises(want):
        f(img, s, out)
    assert not out.any()


@pytest.mark.parametrize("backend", ["native", "interp", None])
@pytest.mark.parametrize("size", [(3, 4), (0, 1)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", list(RUNTIME_SHAPE))
def test_slices_whose_length_follows_the_loop_are_not_raised(name, size, backend):
    """A[i, i:].sum() was batched as the whole row (a silent wrong answer: the sum of the
    whole matrix); a value of run-time shape in the body now keeps the loop, with the reason."""
    import differential
    fn, make = RUNTIME_SHAPE[name]
    differential._JITS.pop((fn, backend), None)
    differential.check(fn, *make(*size), backend=backend)
    text = explain_loops(fn, *make(*size))
    assert "not raised" in text and "run-time shape" in text, text


def row_sign_flip(a):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] == 0.0:
                a[i, j] = -a[i, j]
            elif 1.0 / a[i, 0] < 0.0:
                a[i, j] = 5.0


@pytest.mark.parametrize("backend", ["native", "xla", "interp"])
def test_a_carried_inner_loop_is_interchanged_exactly(backend):
    """The j loop is carried (column 0, written first, is read by the rest of the row); the
    rows are independent: the i loop moves inside the j loop as tensor ops, with no guard.
    -0.0 written over 0.0 in column 0 is read back through 1 / a[i, 0] in the same row."""
    a = np.array([[0.0, 1.0, 2.0], [0.0, 3.0, 0.5], [2.0, 4.0, 1.0], [-0.0, 0.0, 7.0]])
    _, after = _before_after(row_sign_flip, [a])
    text = explain_loops(after)
    assert "loop i: raised (independent) into" in text and ", loop," in text, text
    assert "versioned" not in text
    want, got = a.copy(), a.copy()
    row_sign_flip(want)
    solvent.jit(row_sign_flip, backend=backend)(got)
    np.testing.assert_array_equal(want, got)
    assert np.array_equal(np.signbit(want), np.signbit(got))
    assert want[0, 1] == 5.0 and want[3, 2] == 7.0  # -0.0 at a[0, 0] decided row 0


def test_an_inner_loop_without_its_interchange_is_caught(monkeypatch):
    """Batching the inner loop's body as if it ran once (the loop's trip count ignored):
    the translation validation above sees the difference."""
    def once(b, op, args):
        block = op.regions[0].block
        b.env[block.args[0]] = (args[0][0], False)
        for a, (init, vary) in zip(block.args[1:], args[3:]):
            b.env[a] = (init, vary)
        b.run(block)
        return [b.lookup(v) for v in block.terminator.operands]
    monkeypatch.setattr(batching.Batch, "inner_loop", once)
    fn, make, _ = RAISED["per_element_time_loop"]
    same, _, after = _validate(fn, make(3, 4))
    assert "loop i: raised" in explain_loops(after) and not same


def row_running_max(X, best):
    for r in range(X.shape[0]):
        cur = X[r, 0]
        for j in range(1, X.shape[1]):
            cur = max(X[r, j], cur + X[r, j])
        best[r] = cur


@pytest.mark.parametrize("strided", [True, False])
def test_strided_interchange_option(strided):
    """A recurrence along each row: interchanged, each step reads a column. XLA takes that
    (no scalar iterations); the native backend's options keep the row loop (its reads in
    order), and explain says why. Both match NumPy."""
    X, best = np.random.default_rng(3).standard_normal((5, 7)), np.zeros(5)
    fn = translate(row_running_max, (X, best), frozenset()).fn
    for p in pipeline.build_pipeline({"raise_loops": {"strided_interchange": strided}}):
        fn = p.run(fn)
        verify(fn, tensor_only=p.tensor_only)
    text = explain_loops(fn)
    if strided:
        assert "loop r: raised" in text and ", loop," in text, text
        assert fn.raised_with == {"strided_interchange"}   # runtime.jit reads it
    else:
        assert "would read columns" in text and "loop r: raised" not in text, text
        assert fn.raised_with == set()
    from solvent.backends.native import NativeBackend
    assert NativeBackend.pass_defaults["raise_loops"]["strided_interchange"] is False
    for backend in ("native", "xla"):
        _numpy_vs_solvent(row_running_max, (X, best), backend)


def test_data_gathers_false_keeps_loops_that_gather_data():
    """``data_gathers=False`` (the native backend's default) leaves a loop whose batched
    form gathers from an array all iterations share (knapsack's ``best[i, c - wt]``) as a
    loop, with the option named in the reason; as shipped elsewhere it raises. Both agree
    with NumPy."""
    from solvent.backends.native import NativeBackend
    from solvent.corpus.knapsack_items import kernel, make_args
    args = make_args(5, np.random.default_rng(1))
    want = kernel(*args)
    for opt, raised in ((True, True), (False, False)):
        f = solvent.jit(kernel, backend="interp",
                        passes={"raise_loops": {"data_gathers": opt},   # as on native:
                                "version_checks": {"enabled": True}})   # a check-free copy
        c = f.compile(args)
        assert any("loop c: raised" in r for r in c.fn.raised) is raised
        assert raised or any("data_gathers=False" in why for why in c.fn.not_raised.values())
        assert f(*args) == want
    assert NativeBackend.pass_defaults["raise_loops"]["data_gathers"] is False


def column_stats(X, mu, sd):
    """Column loops the way a C port writes them: mean, sum of squares, standardized
    minimum and product of each column (axis_stats_loops' forms)."""
    m, n = X.shape
    out = np.empty((4, n))
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += X[i, j]
        v = 0.0
        for i in range(m):
            d = X[i, j] - s / m
            v += d * d
        lo = (X[0, j] - mu[j]) / sd[j]
        for i in range(1, m):
            z = (X[i, j] - mu[j]) / sd[j]
            if z < lo:
                lo = z
        p = 1.0
        for i in range(m):
            p *= 1.0 + 0.001 * X[i, j]
        out[0, j], out[1, j], out[2, j], out[3, j] = s / m, v, lo, p
    return out


@pytest.mark.parametrize("backend", ["native", "xla"])
def test_column_loops_read_the_array_in_its_own_layout(backend):
    """Raised column loops reduce over axis 0 of X itself: no transposed copy of X (the
    reduce-of-transpose patterns move the elementwise work, broadcast operands and mul(a, a)
    included, back to X's layout before contractions are formed)."""
    r = np.random.default_rng(5)
    X, mu, sd = r.random((7, 5)), r.random(5), r.random(5) + 0.5
    _, after = _before_after(column_stats, (X, mu, sd))
    names = [op.name for op in after.walk()]
    assert _loops(after) == 0 and "tensor.transpose" not in names, print_function(after)
    assert "tensor.dot_general" not in names, print_function(after)
    import differential
    differential.check(column_stats, X, mu, sd, backend=backend)
    differential.check(column_stats, np.asfortranarray(r.random((6, 1))), mu[:1], sd[:1],
                       backend=backend)


def _scaled_shift(alpha, n, x):
    # a scalar and a count before the array; a read ahead of the write, C-style bounds
    for i in range(n - 1):
        x[i] = x[i + 1] * alpha + x[i]


@pytest.mark.filterwarnings("ignore:overflow encountered")   # int8 wraps, as NumPy's
@pytest.mark.parametrize("backend", ["xla", "interp", "native"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.complex64, np.float32])
def test_reads_before_overwrite_as_a_stranger_calls_them(dtype, backend):
    """Raised on XLA, kept a loop natively (reads_before_overwrite=False): both as Python,
    for small integer and complex dtypes, strided and Fortran-ordered arrays, sizes 0-7."""
    from differential import copy_keep_layout
    from loop_kernels import anti_2d
    rng = np.random.default_rng(1)
    for n in (0, 1, 2, 7):
        base = (rng.integers(0, 5, 2 * n + 1) + (1j if dtype == np.complex64 else 0) *
                rng.integers(0, 5, 2 * n + 1)).astype(dtype)
        for x in (base[:n], base[::2][:n]):
            want, got = copy_keep_layout(x), copy_keep_layout(x)
            _scaled_shift(dtype(3), n, want)
            solvent.jit(_scaled_shift, backend=backend)(dtype(3), n, got)
            np.testing.assert_array_equal(got, want)
        A = np.asfortranarray(rng.integers(0, 5, (n + 1, n + 2)).astype(dtype))
        want, got = copy_keep_layout(A), copy_keep_layout(A)
        anti_2d(want)
        solvent.jit(anti_2d, backend=backend)(got)
        np.testing.assert_array_equal(got, want)
    if backend == "xla":   # (the run-time count n keeps _scaled_shift a loop anyway)
        from loop_kernels import shift_add
        fn = solvent.jit(shift_add, backend="xla").compile((base[::2][:7],)).fn
        assert any("overwrite what they read" in r for r in fn.raised), fn.raised
