"""Sweeps inside a time loop on the native backend: the independent loop directly inside a
carried one stays a loop when its work is worth the thread pool (raise_loops
``sweep_min_work``, set by the native backend's pass defaults), marked parallel, and runs on
the pool with its inner loops raised; its chunks are vectorized like the sequential loop;
the pool hands each thread the same share of chunks in every step and reports the first
failure in iteration order whichever thread ran it. Differential against NumPy, with every
sweep kept (``sweep_min_work=0``) and the pool forced on at small sizes (threshold 0) with
2 to 4 threads (more than this machine's cores)."""
import math
import re

import numpy as np
import pytest

import solvent
from solvent.backends.native import threads

from differential import check, copy_keep_layout, passes_for_check

RNG = np.random.default_rng(7)
KEEP = {"raise_loops": {"sweep_min_work": 0}}   # every sweep stays a loop, however small


@pytest.fixture(autouse=True)
def _keep_sweeps():
    with passes_for_check(KEEP):
        yield


@pytest.fixture(params=[2, 3])   # chunks shared evenly and unevenly
def pool(request):
    old = threads.configure(threads=request.param, threshold=0)
    yield request.param
    threads.configure(**old)


# --- kernels written as they are ported from C: scalar arguments first --------------------
def heat_1d(steps, alpha, u, tmp):
    n = u.shape[0]
    for t in range(steps):
        for i in range(1, n - 1):
            tmp[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(1, n - 1):
            u[i] = tmp[i]
    return u


def jacobi_2d(T, A, B):
    n, m = A.shape
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                B[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                A[i, j] = B[i, j]


def rows_mixed(steps, w, A):
    # each row from itself only, reversed half of it included: rows are independent
    for t in range(steps):
        for i in range(A.shape[0]):
            A[i, :] = w * A[i, :] + (1.0 - w) * A[i, ::-1]
    return A


def relax_until(tol, u):
    n = u.shape[0]
    new = u.copy()
    it = 0
    change = tol + 1.0
    while change > tol and it < 50:
        for i in range(1, n - 1):
            new[i] = 0.5 * (u[i - 1] + u[i + 1])
        change = np.max(np.abs(new - u))
        u[:] = new
        it += 1
    return u, it


def shifted_sum(T, A, B):
    n = A.shape[0]
    for t in range(T):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
    return B


def wave_int(steps, a):
    # int arithmetic (wraps as NumPy's does), an odd length
    for t in range(steps):
        for i in range(1, a.shape[0] - 1):
            a[i] = a[i - 1] + a[i + 1] - a[i]
    return a


def gather_steps(T, idx, x, y):
    for t in range(T):
        for i in range(y.shape[0]):
            y[i] = y[i] * 0.5 + x[idx[i]]
    return y


def _native_fn(fn, *args, passes=KEEP):
    return solvent.jit(fn, backend="native", passes=passes).compile(args).fn


def _loops(fn) -> int:
    return sum(op.name == "loop.for" for op in fn.walk())


def _kept(fn, *args, passes=KEEP) -> list:
    """The explain lines of the loops kept as parallel sweeps."""
    return [line for line in _native_fn(fn, *args, passes=passes).not_raised.values()
            if "kept as a parallel loop" in line]


# --- results ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 65, 1000])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_heat_1d(pool, n, dtype):
    u = RNG.random(n).astype(dtype)
    check(heat_1d, 7, dtype(0.2), u, np.zeros_like(u), backend="native")


@pytest.mark.parametrize("shape", [(3, 3), (5, 4), (33, 70)])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_jacobi_2d_any_layout(pool, shape, layout):
    A, B = RNG.random(shape), RNG.random(shape)
    if layout == "F":
        A, B = np.asfortranarray(A), np.asfortranarray(B)
    elif layout == "strided":
        A, B = RNG.random((shape[0], 2 * shape[1]))[:, ::2], RNG.random(shape)
    check(jacobi_2d, 5, A, B, backend="native")


@pytest.mark.parametrize("shape", [(1, 5), (6, 7), (40, 9)])
def test_rows_from_themselves(pool, shape):
    check(rows_mixed, 4, 0.3, RNG.random(shape), backend="native")


@pytest.mark.parametrize("n", [3, 10, 300])
def test_sweep_in_a_while_loop(pool, n):
    check(relax_until, 1e-3, RNG.random(n), backend="native")


@pytest.mark.parametrize("dtype", [np.int64, np.int8])
def test_integer_sweep(pool, dtype):
    check(wave_int, 5, RNG.integers(-50, 50, 101).astype(dtype), backend="native")


def test_sizes_0_to_2_uint8_and_complex64(pool):
    for n in (0, 1, 2, 5):
        check(heat_1d, 3, 0.2, RNG.random(n), np.zeros(n), backend="native")
        z = (RNG.random(n) + 1j * RNG.random(n)).astype(np.complex64)
        check(heat_1d, 3, np.complex64(0.2 + 0.1j), z, np.zeros(n, np.complex64),
              backend="native")
        check(wave_int, 4, RNG.integers(0, 200, n).astype(np.uint8), backend="native")
    for shape in [(0, 3), (1, 1), (2, 2), (3, 1), (1, 4)]:
        check(jacobi_2d, 3, RNG.random(shape), RNG.random(shape), backend="native")
        check(rows_mixed, 2, 0.3, RNG.random(shape).astype(np.float32), backend="native")
    check(jacobi_2d, 3, (RNG.random((7, 6)) + 0.5j).astype(np.complex64),
          np.zeros((7, 6), np.complex64), backend="native")


def test_zero_and_one_steps(pool):
    for steps in (0, 1):
        check(heat_1d, steps, 0.1, RNG.random(50), np.zeros(50), backend="native")
        check(jacobi_2d, steps, RNG.random((6, 6)), RNG.random((6, 6)), backend="native")


# --- what the compiler made of them -------------------------------------------------------
def test_the_sweeps_stay_parallel_loops_on_native_only():
    args = (5, RNG.random((8, 8)), RNG.random((8, 8)))
    kept = _kept(jacobi_2d, *args)
    assert len(kept) == 2 and all("sweep_min_work 0" in k for k in kept)
    fn = _native_fn(jacobi_2d, *args)
    time_loop = [op for op in fn.body.ops if op.name == "loop.for"]
    assert len(time_loop) == 1
    sweeps = [op for op in time_loop[0].regions[0].block.ops if op.name == "loop.for"]
    assert len(sweeps) == 2 and all(op.attrs.get("parallel") for op in sweeps)
    # no loop is left inside a sweep: its row is raised into tensor ops
    assert not any(o.name == "loop.for" for s in sweeps for o in s.regions[0].block.walk())
    # XLA's default raises the whole sweep (no loop left but the time loop)
    xla = solvent.jit(jacobi_2d, backend="xla").compile(args).fn
    assert _loops(xla) == 1 and "sweep_min_work" in xla.raised_with


def test_by_default_only_sweeps_worth_the_pool_stay_loops():
    """The native default is the pool's threshold: an 8x8 sweep raises (it would run on one
    thread, and raised it fuses with its neighbours), a 300x300 one stays a loop; so does
    the automatic choice when it picks native."""
    small = (5, RNG.random((8, 8)), RNG.random((8, 8)))
    big = (5, RNG.random((300, 300)), RNG.random((300, 300)))
    assert _kept(jacobi_2d, *small, passes=None) == []
    assert _loops(_native_fn(jacobi_2d, *small, passes=None)) == 1
    kept = _kept(jacobi_2d, *big, passes=None)
    assert len(kept) == 2 and all(f"sweep_min_work {threads.DEFAULT_THRESHOLD}" in k
                                  for k in kept)
    auto = solvent.jit(jacobi_2d).compile(big)
    assert _loops(auto.fn) == (3 if auto.backend == "native" else 1), auto.reason


def kmm(A, B, C):
    # a matrix product with the reduction loop outermost: k is carried as written, and
    # raises (into one dot_general) once its sweeps over i and j have raised
    n, m = A.shape
    p = B.shape[1]
    for k in range(m):
        for i in range(n):
            for j in range(p):
                C[i, j] += A[i, k] * B[k, j]
    return C


def test_a_sweep_under_a_loop_that_raises_raises_with_it():
    args = (RNG.random((5, 4)), RNG.random((4, 3)), RNG.random((5, 3)))
    fn = _native_fn(kmm, *args)
    assert _loops(fn) == 0 and _kept(kmm, *args) == []
    assert [op.name for op in fn.walk()].count("tensor.dot_general") == 1
    check(kmm, *args, backend="native")


def row_sums(T, A, s):
    for t in range(T):
        for i in range(A.shape[0]):
            acc = 0.0
            for j in range(A.shape[1]):
                acc += A[i, j]
            s[i] = s[i] * 0.5 + acc
    return s


def matmul_steps(T, A, B, C):
    n, m = A.shape
    p = B.shape[1]
    for t in range(T):
        for i in range(n):
            for j in range(p):
                acc = 0.0
                for k in range(m):
                    acc += A[i, k] * B[k, j]
                C[i, j] = 0.5 * C[i, j] + acc
    return C


def top_level(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[i, j] = 2.0 * A[i, j]
    return B


def test_kept_with_a_row_reduction_not_with_a_contraction_nor_at_top_level(pool):
    A = RNG.random((6, 5))
    assert len(_kept(row_sums, 3, A, np.zeros(6))) == 1
    check(row_sums, 3, A, np.zeros(6), backend="native")
    # a sum of products: raised whole into one dot_general (BLAS), not one per row
    args = (3, RNG.random((6, 5)), RNG.random((5, 4)), RNG.random((6, 4)))
    assert _kept(matmul_steps, *args) == []
    assert [op.name for op in _native_fn(matmul_steps, *args).walk()].count(
        "tensor.dot_general") == 1
    check(matmul_steps, *args, backend="native")
    assert _kept(top_level, A, np.zeros_like(A)) == []


def exp_steps(T, A, B):
    n, m = A.shape
    for t in range(T):
        for i in range(n):
            for j in range(m):
                B[i, j] = math.exp(A[i, j]) * 0.5
        for i in range(n):
            for j in range(m):
                A[i, j] = B[i, j] + 1.0
    return A


def test_a_math_error_in_a_kept_sweep_is_the_first_one_in_order(pool):
    """math.exp overflowing raises OverflowError as Python does, from the first element
    in iteration order, and leaves the caller's arrays as they were."""
    A, B = np.zeros((40, 9)), np.zeros((40, 9))
    assert len(_kept(exp_steps, 3, A, B)) == 2
    check(exp_steps, 3, A, B, backend="native")
    A[33, 2], A[7, 5] = 700.0, 710.0      # exp(710) overflows at step 0; 700 at step 1
    A0, B0 = A.copy(), B.copy()
    f = solvent.jit(exp_steps, backend="native", passes=KEEP)
    line = exp_steps.__code__.co_firstlineno + 5
    for _ in range(10):
        with pytest.raises(OverflowError, match=rf"py:{line}:\d+: math range error"):
            f(3, A, B)
        assert np.array_equal(A, A0) and np.array_equal(B, B0)
    with pytest.raises(OverflowError):
        exp_steps(3, A.copy(), B.copy())


def exp_1d_steps(T, A, B):
    for t in range(T):
        for i in range(A.shape[0]):
            B[i] = math.exp(A[i]) * 0.5 + B[i] * 0.25
    return B


def test_a_sweep_of_scalar_work_with_checks_raises(pool):
    """A row of scalars whose math.exp may overflow: as a loop each check may leave it
    early and LLVM keeps it scalar (15 ms against 0.8 ms raised over 100k points, one
    thread); raised, the checks are flags over the whole row. It raises, errors included."""
    A, B = RNG.random(50), RNG.random(50)
    assert _kept(exp_1d_steps, 3, A, B) == []
    assert _loops(_native_fn(exp_1d_steps, 3, A, B)) == 1
    check(exp_1d_steps, 3, A, B, backend="native")
    A[30], A[10] = 709.0, 800.0
    B0 = B.copy()
    with pytest.raises(OverflowError, match="math range error"):
        solvent.jit(exp_1d_steps, backend="native", passes=KEEP)(3, A, B)
    assert np.array_equal(B, B0)


def test_sweep_chunks_are_vectorized():
    """The chunk function of a sweep holds vector arithmetic: it counts the loop variable
    over its range clamped to the loop's trip count, so LLVM proves the subscripts in
    bounds and vectorizes it as the sequential loop (before, the checks kept it scalar, or
    wrapped ``i - 1`` per lane: 2.5x slower on the pool)."""
    args = (3, RNG.random(500), np.zeros(500))
    check(shifted_sum, *args, backend="native")
    c = solvent.jit(shifted_sum, backend="native", passes=KEEP).compile(args)
    text = c.executable.comp.optimized_ir
    chunks = re.findall(r"define internal [^\n]*@\"?par_chunk_\d+\"?\(.*?\n}\n", text, re.S)
    assert len(chunks) == 2
    for body in chunks:
        assert re.search(r"<\d+ x double>", body), body[:2000]
        # A[i - 1] with i >= 1: no negative-index wrap left (a select per lane)
        assert not re.search(r"select[^\n]* i64 ", body), body[:3000]


# --- failures ---------------------------------------------------------------------------------
def test_the_first_failure_in_iteration_order_whichever_thread_met_it(pool):
    n = 4000
    x = RNG.random(10)
    idx = np.arange(n) % 10
    idx[3500], idx[900], idx[3999] = 77, 13, -40   # iteration 900 fails first
    y = np.full(n, 2.0)
    f = solvent.jit(gather_steps, backend="native", passes=KEEP)
    line = gather_steps.__code__.co_firstlineno + 3
    for _ in range(20):
        with pytest.raises(IndexError, match=rf"py:{line}:\d+: index 13 is out of bounds for "
                                             "axis 0 with size 10"):
            f(3, idx, x, y)
        assert np.all(y == 2.0)
    check(gather_steps, 3, np.arange(n) % 10, x, y, backend="native")


def test_same_bits_on_any_number_of_threads():
    u = RNG.random(10_001)
    f = solvent.jit(heat_1d, backend="native", passes=KEEP)
    old = threads.configure(threads=1)
    try:
        seq = f(20, 0.2, copy_keep_layout(u), np.zeros_like(u))
        for t in (2, 3, 4):
            threads.configure(threads=t, threshold=0)
            par = f(20, 0.2, copy_keep_layout(u), np.zeros_like(u))
            assert np.array_equal(par, seq), t
    finally:
        threads.configure(**old)
    assert math.isfinite(float(seq.sum()))
