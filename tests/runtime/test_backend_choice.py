"""The cost model of the automatic backend choice (backends/choice.py), on real IR."""
import math

import numpy as np
import pytest

import solvent
from solvent.backends.native import scalar_math
from solvent.backends.native.bufferize import Plan
from solvent.backends.native.engine import vector_math
from solvent.backends.choice import (DOT_SHARE, GEMM_MIN_MADDS, SMALL_WORK, STEP_WORK,
                                     VECTOR_MATH_MIN_ROW, XLA_FASTER, array_work, choose,
                                     dot_work, loop_work, step_work)


def _ir(fn, *args):
    """The program automatic choice decides on (raising with the shared options: a native
    pick would build it again without raising gathers of data, and with products over
    concatenations split: split_products_native)."""
    return solvent.jit(fn, passes={"raise_loops": {"data_gathers": True},
                                   "split_products_native": {"enabled": False}}
                       ).compile(args).fn


@pytest.fixture
def scalar_libm(monkeypatch):
    """The cost model as on a host without a vector math library (not x86-64 glibc, or
    SOLVENT_VECTOR_MATH=0): every C math call is one scalar call per element natively."""
    monkeypatch.setattr(scalar_math, "_SCALAR_LIBM", [scalar_math.LIBM_CALLS])


def sweep(A):
    n = A.shape[0]
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            A[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])


def vector_steps(T, A, B):
    for t in range(T):
        B[1:-1] = 0.5 * (A[:-2] + A[2:])
        A[1:-1] = 0.5 * (B[:-2] + B[2:])


def no_loops(A):
    return np.exp(A) @ A[:, :2]   # a product, but the elementwise exp is most of the work


def scaled_product(alpha, A, B):
    return alpha * (A @ B) + 1.0


def scaled_transposed_product(alpha, A, B):
    return alpha * (A.T @ B)


def test_scalar_sweep_counts_as_scalar_loops_and_goes_native_when_native_accepts():
    fn = _ir(sweep, np.ones((6, 6)))
    w = loop_work(fn)
    assert w.scalar_loops and w.element_accesses >= 5 and w.loops == 2
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "scalar work" in why


def test_small_time_steps_go_native_and_large_stencil_steps_go_to_xla():
    """A loop whose iterations produce few array elements pays more for XLA's While step
    than for the work (``STEP_WORK``); a large 2-D stencil step whose native temporaries
    exceed it is XLA's fused loop."""
    fn = _ir(vector_steps, 3, np.ones(16), np.ones(16))
    w, s = loop_work(fn), step_work(fn)
    assert not w.scalar_loops and s.elements == 8 * 14 + 2 * 16 and s.native_friendly
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "XLA While step" in why
    n = 1500   # the blur reads its own neighbours: a temporary and the update, 2 * 1498^2
    fn = _ir(self_blur_steps, 2, np.ones((n, n)))
    s = step_work(fn, Plan(fn).fused)
    assert s.elements > STEP_WORK and not s.native_friendly
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "xla" and "tensor program" in why


def test_only_what_the_native_backend_writes_counts_as_step_work():
    """A stencil step whose right-hand side the native backend computes inside the
    update's loop (bufferize.Plan.fused) writes only the updates: 2 * 1198^2 elements a
    step, not the 8 * 1198^2 its ops produce in all, so it goes native."""
    n = 1200
    fn = _ir(stencil_2d_steps, 2, np.ones((n, n)), np.ones((n, n)))
    assert step_work(fn).elements > STEP_WORK
    fused = Plan(fn).fused
    s = step_work(fn, fused)
    assert s.elements == 2 * n * n and s.native_friendly
    assert all(op.name in ("tensor.update_slice", "loop.yield", "loop.for")
               for loop in fn.walk() if loop.name == "loop.for"
               for op in loop.regions[0].block.ops
               if op not in fused and op.results and op.results[0].type.rank)
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "write at most" in why


def self_blur_steps(T, A):
    for t in range(T):
        A[1:-1, 1:-1] = 0.5 * A[1:-1, 1:-1] + 0.125 * (A[:-2, 1:-1] + A[2:, 1:-1]
                                                       + A[1:-1, :-2] + A[1:-1, 2:])


def test_large_1d_time_steps_go_native():
    """A step over 1-D arrays goes native however large (``StepWork.rank``): fused 1-D loops
    natively, where a 2-D step of the same element count goes to XLA."""
    n = 2_500_000   # 2 * n elements written a step (2 * 4 * n produced): over STEP_WORK
    fn = _ir(vector_steps, 2, np.ones(n), np.ones(n))
    s = step_work(fn, Plan(fn).fused)
    assert s.elements > STEP_WORK and s.rank == 1 and s.native_friendly
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "1-D arrays only" in why
    fn = _ir(stencil_2d_steps, 2, np.ones((1200, 1200)), np.ones((1200, 1200)))
    assert step_work(fn).rank == 2


def stencil_2d_steps(T, A, B):
    for t in range(T):
        B[1:-1, 1:-1] = 0.25 * (A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:])
        A[1:-1, 1:-1] = 0.25 * (B[:-2, 1:-1] + B[2:, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:])


def gathered_steps(T, x, idx):
    for t in range(T):
        x = 0.5 * (x + x[idx])
    return x


def test_a_loop_of_gathers_stays_with_xla():
    fn = _ir(gathered_steps, 3, np.ones(100), np.arange(100)[::-1].copy())
    s = step_work(fn)
    assert s.moves >= 100 and not s.native_friendly
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "xla"


def ell_power_iteration(vals, cols, x, iters):
    for it in range(iters):
        y = np.sum(vals * x[cols], axis=1)
        x = y / np.sqrt(np.sum(y * y))
    return x


def test_a_gather_read_only_by_a_product_is_work_not_data_movement():
    """x[cols] feeding a row-wise multiply-sum (a batched dot_general): XLA materializes it
    too, so it is not a move, and the power iteration goes native."""
    n = 5000   # more work than SMALL_WORK: the step rule decides, not dispatch
    fn = _ir(ell_power_iteration, np.ones((n, 8)), np.zeros((n, 8), np.int64), np.ones(n), 3)
    gathers = [op for op in fn.walk() if op.name == "tensor.gather"]
    assert gathers and all(u.name == "tensor.dot_general"
                           for g in gathers for u, _ in g.results[0].live_uses())
    s = step_work(fn, Plan(fn).fused)
    assert s.elements >= 8 * n and s.moves == 0 and s.native_friendly
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "write at most" in why


def plain_elementwise(alpha, x, y):
    # % is plain element work, not a libm call, and not cheap enough for the streaming rule
    # (** 2 was, before it became x * x)
    return np.maximum(alpha * x + y, 0.0) % 3.0


def exp_heavy(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def concatenations(x):
    return np.concatenate([x, x[::-1], x]) * 2.0


def test_loop_free_plain_element_work_goes_native_libm_and_data_movement_to_xla(scalar_libm):
    fn = _ir(plain_elementwise, 2.0, np.ones(1000), np.ones(1000))
    a = array_work(fn)
    assert a.libm == 0 and a.moves == 0 and a.plain >= 3000 and a.native_friendly
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "loop-free program of plain element work" in why
    fn = _ir(exp_heavy, np.ones(1000))
    a = array_work(fn)
    assert a.libm == 1000 and not a.native_friendly
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "xla"
    fn = _ir(concatenations, np.ones(1000))
    a = array_work(fn)
    assert a.moves >= 3000 and not a.native_friendly
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "xla"


def gaussian_loop(out, x, s):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = math.exp(-x[i, j] * x[i, j] / s) * x[i, j] + 1.0


def gaussian_vec(out, x, s):
    out[:] = np.exp(-x * x / s) * x + 1.0


def scaled_batched_product(a, b):
    return (a @ b) * 2.0 + 1.0


def complex_exp_table(x):
    n = x.shape[0]
    k = np.arange(n)
    return np.exp(-2j * np.pi * np.outer(k, k) / n) * x[0]


def test_complex_math_calls_count_as_scalar_libm_calls_with_vector_math_too():
    """The native backend computes complex exp with the C library's cexp per element (NumPy's
    bits), which no vector math library replaces: a program whose work it is goes to XLA
    (the corpus's dft: native 31.8-46.8 ms, XLA 21.4, quiet host)."""
    fn = _ir(complex_exp_table, np.ones(64))
    a = array_work(fn)
    assert a.libm == 64 * 64 and not a.native_friendly
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "xla"
    fn = _ir(lambda z: z * 2.0 + 1j, np.ones(4096) * 1j)   # complex, but no C library call
    assert array_work(fn).libm == 0


def test_a_checked_math_call_weighs_less_against_native(scalar_libm):
    """math.exp in a loop is checked per element for its range error (x > log(DBL_MAX)):
    XLA then runs the call and the check apart (``CHECKED_LIBM_COST``); np.exp is not."""
    x = np.ones((40, 50))
    fn = _ir(gaussian_loop, np.zeros_like(x), x, 2.0)
    a = array_work(fn)
    assert a.libm == a.checked == 2000 and a.native_friendly
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "2000 of them checked per element" in why
    a = array_work(_ir(gaussian_vec, np.zeros_like(x), x, 2.0))
    assert a.libm == 2000 and a.checked == 0 and not a.native_friendly


def test_a_batched_matrix_product_of_gemm_sized_batches_goes_native():
    """Natively each batch of a product batched on leading axes is one gemm call
    (GEMM_MIN_MADDS); below that size it is a loop nest and the program stays with XLA."""
    fn = _ir(scaled_batched_product, np.ones((8, 64, 8)), np.ones((8, 8, 64)))
    d = dot_work(fn)
    assert d.products == 1 and d.batched == 0 and not d.dominated
    assert 64 * 8 * 64 >= GEMM_MIN_MADDS and array_work(fn).native_friendly
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "plain element work" in why
    fn = _ir(scaled_batched_product, np.ones((4000, 4, 4)), np.ones((4000, 4, 4)))
    assert 4 * 4 * 4 < GEMM_MIN_MADDS and dot_work(fn).batched == 1
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "xla"


def attention_heads(Q, K, V):
    s = np.einsum('hid,hjd->hij', Q, K)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ V


def tanh_of_batched_product(A, B, c):
    return np.tanh(np.matmul(A, B) + c)


@pytest.mark.skipif(vector_math() is None, reason="no vector math library on this host")
def test_vector_math_on_short_rows_counts_as_scalar_calls():
    """A vector math call (tanh, exp...) whose result rows are shorter than
    VECTOR_MATH_MIN_ROW runs at scalar speed natively: a batch of 16 x 16 products under tanh
    (corpus batched_matmul) stays with XLA, attention heads with 64-long rows go native."""
    fn = _ir(tanh_of_batched_product, np.ones((64, 16, 32)), np.ones((64, 32, 16)), np.ones(16))
    a = array_work(fn)
    assert 16 < VECTOR_MATH_MIN_ROW and a.libm == 64 * 16 * 16 and not a.native_friendly
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "xla"
    q = np.ones((4, 64, 8))
    fn = _ir(attention_heads, q, q, q)
    a = array_work(fn)
    assert dot_work(fn).batched == 0 and a.libm == 0 and a.native_friendly
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "native"
    assert array_work(_ir(exp_heavy, np.ones((100, 16)))).libm == 1600
    assert array_work(_ir(exp_heavy, np.ones((16, 100)))).libm == 0


def row_norms(A):
    return np.sqrt((A * A).sum(axis=1))


def column_norms(A):
    return np.sqrt((A * A).sum(axis=0))


def test_only_strided_or_matrix_batches_count_as_native_loop_nests():
    """(A * A).sum(axis=1) becomes a dot_general batched on rows (a streaming loop natively);
    along axis 0 it stays a fused multiply and sum (raising/contraction.py: batches over
    columns would be strided natively), no product at all; a batched matrix product
    counts."""
    A = np.ones((30, 40))
    d = dot_work(_ir(row_norms, A))
    assert d.products == 1 and d.batched == 0
    d = dot_work(_ir(column_norms, A))
    assert d.products == 0 and d.batched == 0 and d.elements >= 30 * 40
    assert dot_work(_ir(scaled_batched_product, np.ones((8, 2, 8)),
                        np.ones((8, 8, 2)))).batched == 1


def odd_power(x):
    return x ** 1.5 + x ** 2


def test_only_a_non_trivial_power_counts_as_a_libm_call(scalar_libm):
    a = array_work(_ir(odd_power, np.ones(64)))
    assert a.libm == 64 and a.plain == 64 * 2


def log1p_heavy(x):
    return np.log1p(x) / np.cbrt(x + 1.0)


@pytest.mark.skipif(vector_math() is None, reason="no vector math library on this host")
def test_with_vector_math_exp_and_pow_are_plain_work_and_go_native():
    """glibc's libmvec vectorizes exp, pow, tanh... natively (engine.use_vector_math), so
    they weigh as plain element work; functions it lacks (log1p, cbrt) stay libm calls."""
    fn = _ir(exp_heavy, np.ones(1000))
    a = array_work(fn)
    assert a.libm == 0 and a.native_friendly
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "native"
    assert array_work(_ir(odd_power, np.ones(64))).libm == 0
    a = array_work(_ir(log1p_heavy, np.ones(64)))
    assert a.libm == 128 and not a.native_friendly


def test_only_accepting_backend_is_chosen_with_the_refusal_quoted():
    fn = _ir(no_loops, np.ones((200, 200)))
    name, why = choose(fn, {"native": "ok"}, {"xla": "run-time shape at f.py:3"})
    assert name == "native" and "xla refuses it: run-time shape at f.py:3" in why


def test_product_dominated_code_goes_native_where_blas_runs_it(scalar_libm):
    """n x n products do n multiply-adds per result element: at n = 256 they outweigh
    the scale and add around them (DOT_SHARE), so the BLAS call on the native side wins."""
    fn = _ir(scaled_product, 2.0, np.ones((256, 256)), np.ones((256, 256)))
    d = dot_work(fn)
    assert d.products == 1 and d.madds == 256 ** 3 and d.madds >= DOT_SHARE * d.elements
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "BLAS" in why
    # a product among much elementwise work stays with XLA, which fuses that work
    fn = _ir(no_loops, np.ones((200, 200)))
    assert not dot_work(fn).dominated
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "xla"


def test_tiny_products_go_native_and_integer_products_never_take_the_blas_rule():
    fn = _ir(scaled_product, 2.0, np.ones((4, 4)), np.ones((4, 4)))
    d = dot_work(fn)
    assert d.madds + d.elements <= SMALL_WORK and d.dominated
    k = np.ones((128, 128), np.int64)
    d = dot_work(_ir(scaled_product, 2, k, k))
    assert d.other_products == 1 and d.products == 0 and not d.dominated
    # complex products are zgemm/cgemm calls natively (rules_linalg._complex_dot)
    z = np.ones((256, 256), complex)
    d = dot_work(_ir(scaled_product, 2.0, z, z))
    assert d.products == 1 and d.other_products == 0 and d.dominated


def test_transposed_operands_are_not_counted_as_work():
    fn = _ir(transposed_matvec, np.ones((128, 128)), np.ones(128))
    d = dot_work(fn)
    assert d.madds == 128 * 128 and d.elements < 128 * 128


def transposed_matvec(A, x):
    return A.T @ x


def runtime_length_dot(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[:i] @ x[:i]   # a product over a length known only at run time
    return s


def test_dot_work_takes_products_of_run_time_length():
    fn = _ir(runtime_length_dot, np.ones(8))
    d = dot_work(fn)   # a ? length counts as 1: no crash on the unknown size
    assert d.products == 1 and d.madds == 1


def axpby(alpha, x, beta, y):
    return alpha * x + beta * y


def plus_trace(a):
    t = 0.0
    for i in range(a.shape[0]):
        t += np.tanh(a[i, i])
    return a + t


def exp_pass(x):
    return np.exp(x) * 2.0


def test_one_streaming_pass_goes_native_and_transcendental_or_complex_work_does_not():
    from solvent.backends.streaming import single_pass
    z = np.ones(4096)
    for fn in (_ir(axpby, 1.5, z, -0.5, z), _ir(plus_trace, np.ones((128, 128)))):
        assert single_pass(fn)[0]
        name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
        assert name == "native" and "streaming pass" in why
    for fn in (_ir(exp_pass, z), _ir(axpby, 1.5, z * 1j, -0.5, z), _ir(no_loops, np.ones((200, 200))),
               _ir(vector_steps, 3, z, z)):
        assert not single_pass(fn)[0]   # (other rules may still pick native: array_work)
        assert "streaming pass" not in choose(fn, {"xla": "ok", "native": "ok"}, {})[1]
    # the diagonal's tanh is work of another kind: small beside the add, not on a 4 x 4 matrix
    assert not single_pass(_ir(plus_trace, np.ones((4, 4))))[0]


def test_float32_products_go_native_at_every_size():
    """XLA's float32 dot is no longer faster than sgemm at any size (XLA_FASTER is empty)."""
    assert not XLA_FASTER
    for n in (8, 256, 512):
        a = np.ones((n, n), np.float32)
        d = dot_work(_ir(scaled_product, 2.0, a, a))
        assert d.products == 1 and d.other_products == 0 and d.dominated
        assert choose(_ir(scaled_product, 2.0, a, a), {"xla": "ok", "native": "ok"}, {})[0] == \
            "native"


def gram(X):
    Xc = X - X.mean(axis=0)
    return Xc.T @ Xc


def test_float32_gram_products_go_native_where_blas_syrk_halves_the_work():
    x = np.ones((2000, 500), np.float32)
    d = dot_work(_ir(gram, x))
    assert d.products == 1 and not d.other_products and d.dominated
    assert choose(_ir(gram, x), {"xla": "ok", "native": "ok"}, {})[0] == "native"


def test_float32_matrix_vector_products_go_native_at_any_size():
    # XLA's float32 matrix-vector products ran far below NumPy's sgemv (issue 9)
    a, x = np.ones((4096, 4096), np.float32), np.ones(4096, np.float32)
    for fn in (scaled_product, scaled_transposed_product):
        d = dot_work(_ir(fn, 2.0, a, x))
        assert d.products == 1 and not d.other_products and d.dominated
        assert choose(_ir(fn, 2.0, a, x), {"xla": "ok", "native": "ok"}, {})[0] == "native"


def product_then_affine(A, B):
    return (A @ B) * 2.0 + 1.0


def test_values_the_native_backend_fuses_do_not_count_against_a_product():
    """dot_work counts what the native backend writes: the scale computed inside the add's
    loop (bufferize.Plan.fused) is no pass of its own, so a 65-deep product with an affine
    map on its result is product-dominated there (32.5 multiply-adds per element counted op
    by op, 65 per element written)."""
    fn = _ir(product_then_affine, np.ones((128, 65)), np.ones((65, 128)))
    assert not dot_work(fn).dominated
    d = dot_work(fn, Plan(fn).fused)
    assert d.dominated and d.elements < 128 * 128 + 8   # the add's result and two scalars
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "native"


def test_stacked_windows_read_in_place_are_not_work_around_a_product():
    """A raised conv1d over channels: its windows stacked as (c, k, L), each read in place
    by the stacking natively, feed one product of 112 multiply-adds per result element; the
    stack is the GEMM's operand copy (XLA makes it too), not work against native."""
    from solvent.corpus import conv1d_loops
    fn = _ir(conv1d_loops.kernel, *conv1d_loops.make_args(600, np.random.default_rng(0)))
    d = dot_work(fn, Plan(fn).fused)
    assert d.dominated and d.elements < 8 * 32 * 594
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "native"


def padded(x):
    return np.pad(x, 3)


def test_fills_from_constants_are_not_work_around_a_move():
    """np.pad's zero rows (a broadcast and a conversion of the constant 0) are not element
    work: the concatenation alone is data movement and goes native."""
    fn = _ir(padded, np.ones(5000))
    a = array_work(fn)
    assert a.only_moves and a.plain == 0 and a.moves == 5006
    assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "native"
    np.testing.assert_array_equal(solvent.jit(padded)(np.arange(4.0)), np.pad(np.arange(4.0), 3))


def test_a_native_pick_compiles_the_program_native_compiles():
    """Under automatic choice a function sent to the native backend is built with its pass
    options: knapsack_items' loop is versioned (version_checks), and the copy without checks
    then raises with a gather of data, which native's raise options refuse: the rest of the
    pipeline runs again with them, and the program is the one backend='native' compiles
    (it ran 1.45x slower before)."""
    from solvent.corpus import knapsack_items as m
    from solvent.ir.printer import print_function
    args = m.make_args(m.SIZES[-1], np.random.default_rng(0))
    auto = solvent.jit(m.kernel).compile(args)
    native = solvent.jit(m.kernel, backend="native").compile(args)
    assert auto.backend == "native" and "native's pass options" in auto.reason
    assert print_function(auto.fn) == print_function(native.fn)
    text = solvent.jit(m.kernel).explain(*args)
    assert text.count("## after version_checks\n") == 1


def test_a_native_pick_whose_loops_have_no_checks_left_is_not_built_twice(monkeypatch):
    """When the native backend's own passes (version_checks, speculate_checks) find nothing
    to do, the program the shared options built is native's: the rest of the pipeline does
    not run again, and explain shows no stage for those passes. Called as a stranger would:
    the step count first, then a Fortran-ordered matrix; and with a sample, as the
    histogram's math.floor is, that its speculated checks must see (built again)."""
    from solvent.corpus import histogram_loops
    from solvent.ir.printer import print_function
    from solvent.runtime import jit as jit_module

    def sweeps(steps, A):
        n = A.shape[0]
        for t in range(steps):
            for i in range(1, n - 1):
                A[i, 1:-1] = 0.5 * A[i, 1:-1] + 0.25 * (A[i - 1, 1:-1] + A[i + 1, 1:-1])
        return A

    built = []
    tail = jit_module.JitFunction._tail

    def spy(self, *a):
        out = tail(self, *a)
        built.append(out is not None)
        return out
    monkeypatch.setattr(jit_module.JitFunction, "_tail", spy)
    A = np.asfortranarray(np.random.default_rng(0).random((6, 5)))
    auto = solvent.jit(sweeps).compile((3, A))
    native = solvent.jit(sweeps, backend="native").compile((3, A))
    assert auto.backend == "native" and built == [False]
    assert print_function(auto.fn) == print_function(native.fn)
    text = solvent.jit(sweeps).explain(3, A)
    assert "## after version_checks" not in text and "## after speculate_checks" not in text
    want = sweeps(3, A.copy())
    np.testing.assert_allclose(solvent.jit(sweeps)(3, A.copy()), want, rtol=1e-14)
    built.clear()
    args = histogram_loops.make_args(histogram_loops.SIZES[-1], np.random.default_rng(0))
    auto = solvent.jit(histogram_loops.kernel).compile(args)
    native = solvent.jit(histogram_loops.kernel, backend="native").compile(args)
    assert auto.backend == "native" and built == [True]
    assert print_function(auto.fn) == print_function(native.fn)
