"""Parallel loops on the native backend: differential tests vs NumPy with the thread pool
forced on at tiny sizes (threshold 0, 4 threads: more than this machine's cores), loops that
must not be marked, nested loops, empty ranges, trip counts below the thread count, run-time
index errors inside a parallel loop, and the mark's contract (verifier, text form, backends
that ignore it)."""
import numpy as np
import pytest

import solvent
from solvent.backends.native import threads
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.verifier import VerifyError, verify
from solvent.passes.mark_parallel import MarkParallel
from solvent.passes.pipeline import build_pipeline, run_pipeline

from differential import check, passes_for_check

# these tests study loops on the thread pool: raising (passes/raising) would turn most of
# them into tensor ops first, so it is off here
NO_RAISING = {"raise_loops": {"enabled": False}, "raise_contractions": {"enabled": False}}


def jit(fn, **kw):
    return solvent.jit(fn, passes=NO_RAISING, **kw)


@pytest.fixture(autouse=True)
def _loops_stay_loops():
    with passes_for_check(NO_RAISING):
        yield


@pytest.fixture
def pool():
    """Every parallel loop of two or more iterations runs on the pool, with 4 threads."""
    old = threads.configure(threads=4, threshold=0)
    yield
    threads.configure(**old)


# --- kernels (scalar arguments before arrays, as users write them) ---------------------------
def scale_rows(a, x, y):
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i]) * a + 1.0
    return y


def strided_write(x, y):
    for i in range(0, x.shape[0], 2):
        y[i] = x[i] * 3
    for i in range(x.shape[0] - 1, 0, -2):
        y[i] = -x[i]
    return y


def float_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s


def int_reductions(v):
    total = 0
    prod = 1
    hi = -1000
    lo = 1000
    for i in range(v.shape[0]):
        total += v[i]
        prod *= v[i] % 3 + 1
        hi = max(hi, v[i])
        lo = np.minimum(lo, v[i])
    return total, prod, hi, lo


def float_max(x):
    m = -np.inf
    for i in range(x.shape[0]):
        m = np.maximum(m, x[i])
    return m


def bool_reductions(x):
    every = True
    some = False
    for i in range(x.shape[0]):
        every = np.logical_and(every, x[i] > 0)
        some = some | (x[i] > 0.9)
    return every, some


def row_norms(A, out):
    for i in range(A.shape[0]):
        row = A[i, :] * 2.0          # a temporary array per iteration: private per thread
        out[i] = np.sqrt(np.sum(row * row))
    return out


def nested_fill(A, B, C):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            C[i, j] = A[i, j] * B[j, i] + i
    return C


def rows_with_inner_sum(A, out):
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j]
        out[i] = s
    return out


def prefix_sum(x):
    for i in range(1, x.shape[0]):
        x[i] += x[i - 1]
    return x


def recurrence(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s * 0.5 + x[i]
    return s


def gather(x, idx, y):
    for i in range(idx.shape[0]):
        y[i] = x[idx[i]] * 2.0
    return y


def loop_variable(x, y):
    i = -1
    for i in range(x.shape[0]):
        y[i] = x[i] + 1
    return i


def int8_scale(k, v, out):
    for i in range(v.shape[0]):
        out[i] = v[i] * k
    return out


RNG = np.random.default_rng(7)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 64])
def test_independent_elementwise(pool, n):
    check(scale_rows, 0.5, RNG.random(n), np.zeros(n), backend="native")


@pytest.mark.parametrize("n", [0, 1, 6, 31])
def test_strided_and_negative_steps(pool, n):
    check(strided_write, RNG.integers(-9, 9, n), np.zeros(n, np.int64), backend="native")


@pytest.mark.parametrize("n", [0, 1, 3, 1000])
def test_reductions(pool, n):
    check(float_sum, RNG.random(n), backend="native")
    check(int_reductions, RNG.integers(-50, 50, n), backend="native")
    check(float_max, RNG.standard_normal(n), backend="native")
    check(bool_reductions, RNG.random(n), backend="native")


def test_float_max_propagates_nan(pool):
    x = RNG.random(100)
    x[37] = np.nan
    check(float_max, x, backend="native")


def test_private_temporaries_fortran_and_strided(pool):
    A = np.asfortranarray(RNG.random((33, 7)))
    check(row_norms, A, np.zeros(33), backend="native")
    check(row_norms, RNG.random((66, 7))[::2], np.zeros(33), backend="native")


def two_temporaries(A, out):
    for i in range(A.shape[0]):
        a = A[i, :] * 2.0            # private per thread; the recurrences keep the loops
        b = A[i, ::-1] + 1.0
        for j in range(1, a.shape[0]):
            a[j] = a[j] + a[j - 1] * 0.5
            b[j] = b[j] - b[j - 1] * 0.25
        out[i] = a[-1] * b[-1]
    return out


@pytest.mark.parametrize("width", [7, 5000, 9000])
def test_private_temporaries_on_the_stack_and_beyond_its_budget(pool, width):
    # a chunk keeps small private arrays on its stack (context.PRIVATE_STACK_BYTES, 64 KiB in
    # all): 7 columns fit twice, 5000 (40 KB) once, 9000 (72 KB) not at all
    A = RNG.random((12, width))
    f = solvent.jit(two_temporaries, backend="native",
                    passes={"raise_loops": {"enabled": False}})   # the loop over i stays
    out = f(A, np.zeros(12))
    np.testing.assert_allclose(out, two_temporaries(A.copy(), np.zeros(12)), rtol=1e-12)
    ir = f.compile([A, np.zeros(12)]).executable.llvm_ir
    assert "par_chunk" in ir
    assert ir.count(f"alloca [{width} x double]") == {7: 2, 5000: 1, 9000: 0}[width]


def test_nested_parallel_loops_outermost_on_the_pool(pool):
    A, B = RNG.random((9, 4)), RNG.random((4, 9))
    check(nested_fill, A, B, np.zeros((9, 4)), backend="native")
    c = jit(nested_fill, backend="native").compile((A, B, np.zeros((9, 4))))
    assert [op.attrs.get("parallel") for op in c.fn.walk() if op.name == "loop.for"] == \
        [True, True]
    ir_text = c.executable.llvm_ir
    assert ir_text.count("call i64 @\"solvent_par_for\"") + \
        ir_text.count("call i64 @solvent_par_for") == 1
    check(rows_with_inner_sum, RNG.random((13, 5)), np.zeros(13), backend="native")


@pytest.mark.parametrize("fn", [prefix_sum, recurrence])
def test_carried_loops_are_not_marked(pool, fn):
    x = RNG.random(50)
    c = jit(fn, backend="native").compile((x,))
    assert not any(op.attrs.get("parallel") for op in c.fn.walk())
    check(fn, x, backend="native")


def test_trip_count_below_thread_count_and_last_value(pool):
    for n in (0, 1, 2, 3):
        check(loop_variable, RNG.random(n), np.zeros(n), backend="native")
    check(int8_scale, 3, np.arange(-20, 20, dtype=np.int8), np.zeros(40, np.int8),
          backend="native")


def test_same_bits_as_sequential(pool):
    x = RNG.random(4001)
    f = jit(scale_rows, backend="native")
    par = f(0.25, x, np.zeros_like(x))
    threads.configure(threads=1)
    seq = f(0.25, x, np.zeros_like(x))
    assert np.array_equal(par, seq)


def test_index_error_reports_the_first_failure_and_writes_nothing(pool):
    x = RNG.random(10)
    idx = np.arange(200) % 10
    idx[150], idx[60], idx[170] = 99, 12, -40     # iteration 60 fails first
    y = np.full(200, 7.0)
    f = jit(gather, backend="native")
    line = gather.__code__.co_firstlineno + 2    # y[i] = x[idx[i]] * 2.0
    for _ in range(5):                           # the same error every time
        with pytest.raises(IndexError, match=rf"py:{line}:\d+: index 12 is out of bounds for "
                                             "axis 0 with size 10"):
            f(x, idx, y)
        assert np.all(y == 7.0)
    check(gather, x, np.arange(200) % 10, y, backend="native")


def test_interp_and_xla_ignore_the_mark():
    x = RNG.random(40)
    for backend in ("interp", "xla"):
        check(float_sum, x, backend=backend)
        check(scale_rows, 2.0, x, np.zeros(40), backend=backend)


def _calls_pool(fn, *args) -> bool:
    c = jit(fn, backend="native").compile(args)
    return "call i64 @\"solvent_par_for\"" in c.executable.llvm_ir or \
        "call i64 @solvent_par_for" in c.executable.llvm_ir


def test_these_loops_run_on_the_pool():
    """Each kernel above is lowered to the parallel form (not a sequential fallback)."""
    x, A = RNG.random(6), RNG.random((6, 3))
    for fn, args in [(scale_rows, (0.5, x, np.zeros(6))), (float_sum, (x,)),
                     (int_reductions, (np.arange(6),)), (float_max, (x,)),
                     (bool_reductions, (x,)), (row_norms, (A, np.zeros(6))),
                     (rows_with_inner_sum, (A, np.zeros(6))),
                     (gather, (x, np.arange(3), np.zeros(3))), (loop_variable, (x, np.zeros(6))),
                     (strided_write, (np.arange(6), np.zeros(6, np.int64)))]:
        assert _calls_pool(fn, *args), fn.__name__
    assert not _calls_pool(prefix_sum, x)


# --- the mark's contract -----------------------------------------------------------------------
def _marked(fn, *args):
    return jit(fn).compile(args).fn


def test_combiners_and_text_round_trip():
    f = _marked(int_reductions, np.arange(5))
    (loop,) = [op for op in f.walk() if op.name == "loop.for"]
    assert loop.attrs["parallel"] is True
    assert set(loop.attrs["combiners"]) == {"tensor.add", "tensor.mul", "tensor.max",
                                            "tensor.min"}
    text = print_function(f)
    assert "parallel = true" in text
    assert print_function(parse_function(text)) == text


def test_check_flags_are_a_first_failure_reduction():
    f = _marked(gather, np.ones(4), np.arange(3), np.zeros(3))
    (loop,) = [op for op in f.walk() if op.name == "loop.for"]
    assert loop.attrs["combiners"] == ["shared", "first_error", "error_payload"]


def test_pass_option_turns_it_off():
    x = RNG.random(8)
    from solvent.frontend.translator import translate
    fn = translate(float_sum, (x,), frozenset()).fn
    off = run_pipeline(fn, passes=build_pipeline({"mark_parallel": {"enabled": False}, **NO_RAISING}))
    assert not any(op.attrs.get("parallel") for op in off.walk())
    on = MarkParallel().run(off)
    assert any(op.attrs.get("parallel") for op in on.walk())


def test_verifier_checks_the_attributes():
    f = _marked(float_sum, RNG.random(4))
    (loop,) = [op for op in f.walk() if op.name == "loop.for"]
    verify(f)
    for bad in ({"parallel": "yes"}, {"combiners": ["tensor.add"] * 9},
                {"combiners": ["shared"]}, {"combiners": ["tensor.sub"]},
                {"parallel": True, "combiners": None}):
        saved = dict(loop.attrs)
        loop.attrs.update(bad)
        if loop.attrs.get("combiners") is None:
            loop.attrs.pop("combiners")
        with pytest.raises(VerifyError):
            verify(f)
        loop.attrs = saved
    verify(f)


def test_explain_states_the_threshold_and_each_loop():
    A, B = RNG.random((3, 4)), RNG.random((4, 3))
    text = jit(nested_fill, backend="native").explain(A, B, np.zeros((3, 4)))
    assert "SOLVENT_PARALLEL_THRESHOLD" in text and "reassociated" in text
    assert "parallel loop on the thread pool" in text
    assert "nested in a loop that runs on the pool" in text


def test_two_python_threads_share_the_pool(pool):
    """A second caller while the pool is busy runs its loop on its own thread instead."""
    import threading
    f = jit(row_norms, backend="native")
    A = RNG.random((300, 50))
    expected = row_norms(A, np.zeros(300))
    f(A, np.zeros(300))                     # compiled before the threads start
    bad = []

    def work():
        for _ in range(20):
            got = f(A, np.zeros(300))
            if not np.allclose(got, expected, rtol=1e-12, atol=0):
                bad.append(got)
    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def gather_by_flatnonzero(x):
    idx = np.flatnonzero(x > 0)
    s = 0.0
    for k in range(idx.shape[0]):
        s += x[idx[k]] * k
    return s


def scatter_mask_values(x):
    y = x[x > 0]
    out = np.zeros(x.shape[0])
    for k in range(y.shape[0]):
        out[k] = y[k] * 2
    return out


@pytest.mark.parametrize("fn", [gather_by_flatnonzero, scatter_mask_values])
def test_a_loop_over_a_run_time_length_value_runs_sequentially_and_right(fn):
    """A loop marked parallel that reads an array of run-time length (a mask read, a
    flatnonzero) crashed the native backend (the chunk function got the caller's registers
    for the dims); it runs sequentially and matches NumPy."""
    x = np.random.default_rng(3).standard_normal(300)
    np.testing.assert_allclose(solvent.jit(fn, backend="native")(x), fn(x), rtol=1e-12)


def recurrence_then_parallel_update(x):
    n = x.shape[0]
    a = np.zeros(n)
    a[0] = x[0]
    for i in range(1, n):              # sequential: a carried dependence
        a[i] = a[i - 1] * 0.5 + x[i]
    old = a.copy()                     # the loop's result, read again after the next loop
    for i in range(n):                 # independent, not raised (a while inside): parallel
        v = a[i]
        k = 0
        while v > 0.1 and k < 5:
            v = v * 0.5
            k += 1
        a[i] = v + k
    return old, a


def test_a_parallel_loop_whose_carried_init_is_read_later_starts_from_a_copy():
    """The parallel lowering skipped the plan's init copy: its chunks wrote into the buffer
    of the first loop's result (which `old` still reads) and the second loop's result was
    never written: a.sum() came out 0.0 (a silent wrong answer, default settings)."""
    x = np.abs(np.random.default_rng(0).standard_normal(200_000)) * 3
    f = solvent.jit(recurrence_then_parallel_update, backend="native")
    assert "parallel loop on the thread pool" in f.explain(x)
    for got, exp in zip(f(x), recurrence_then_parallel_update(x)):
        np.testing.assert_allclose(got, exp, rtol=1e-12)


def scale_in_place(a, x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] * a


def gather_in_place(x, idx, y):
    for i in range(idx.shape[0]):
        y[i] = x[idx[i]] * 2.0


def test_a_parallel_loop_whose_checks_llvm_proves_cannot_fail(pool):
    """The entry tests the pool's result for a failed chunk; where every chunk's index
    checks were proven (the loop's own bounds), the executable knows the call cannot fail
    and writes into the caller's array without a backup copy. A chunk with a check that can
    fail (a gather) keeps the backup, and its failure still leaves the argument alone."""
    x, y = RNG.random(300), np.zeros(300)
    ex = jit(scale_in_place, backend="native").compile((0.5, x, y)).executable
    assert any(op.attrs.get("parallel") for op in
               jit(scale_in_place, backend="native").compile((0.5, x, y)).fn.walk())
    assert ex._can_fail is False
    check(scale_in_place, 0.5, x, y, backend="native")
    idx = np.arange(300) % 10
    g = jit(gather_in_place, backend="native")
    assert g.compile((x, idx, y)).executable._can_fail is True
    idx[77] = 300
    y = np.full(300, 3.0)
    with pytest.raises(IndexError, match="index 300 is out of bounds"):
        g(x, idx, y)
    assert np.all(y == 3.0)
    check(gather_in_place, x, np.arange(300) % 10, y, backend="native")


def sin_exp_rows(a, x, y):
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i]) * a + np.exp(x[i])
    return y


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [63, 64, 1000, 4001, 9999])
def test_same_bits_as_sequential_for_any_chunking(pool, dtype, n):
    # chunk boundaries are multiples of rules_parallel.VECTOR_ALIGN: every element is
    # computed by the vector or the scalar math function as in the one-thread run (they
    # may differ in the last bit), whatever the number of threads and chunks
    x = np.random.default_rng(n).random(n).astype(dtype)
    f = jit(sin_exp_rows, backend="native")
    threads.configure(threads=1)
    seq = f(dtype(0.5), x, np.zeros_like(x))
    for t in (2, 3, 4):
        threads.configure(threads=t, threshold=0)
        par = f(dtype(0.5), x, np.zeros_like(x))
        assert np.array_equal(par, seq), (t, np.flatnonzero(par != seq)[:5])



def test_the_entry_reads_the_threads_and_threshold_at_run_time(pool):
    """Below the threshold or on one thread the entry runs the chunk itself, in iteration
    order (rules_parallel._run_or_call_pool); it reads both settings on every run, so a
    change after compiling takes effect. Seen through the rounding of a float sum: 1e16 then
    1023 ones is 1e16 in iteration order (each one is lost), more in 64-element chunks."""
    x = np.ones(1024)
    x[0] = 1e8       # float_sum adds squares
    f = jit(float_sum, backend="native")
    assert f(x) > 1e16                 # the pool fixture: threshold 0, 4 threads
    threads.configure(threads=1)
    assert f(x) == float_sum(x) == 1e16
    threads.configure(threads=4, threshold=10**9)
    assert f(x) == 1e16
    threads.configure(threshold=0)
    assert f(x) > 1e16


def test_a_parallel_inner_loop_of_a_sequential_loop_cannot_fail(pool):
    """An inner parallel loop in an outer loop (forward_subst's row reduction) whose index
    checks LLVM proves: the pool's result reached the failure test through a ``freeze``
    (loop unswitching), which hid its range, and every call kept a backup of the written
    array."""
    from solvent.corpus.forward_subst import kernel as rows
    L, b = np.tril(RNG.random((40, 40))) + 40 * np.eye(40), RNG.random(40)
    c = jit(rows, backend="native").compile((L, b, np.zeros(40)))
    assert any(op.attrs.get("parallel") for op in c.fn.walk())
    assert c.executable._can_fail is False
    check(rows, L, b, np.zeros(40), backend="native")
