"""The cost model of the automatic backend choice (backends/choice.py), on real IR."""
import numpy as np

import solvent
from solvent.backends.choice import DOT_SHARE, SMALL_WORK, choose, dot_work, loop_work


def _ir(fn, *args):
    return solvent.jit(fn).compile(args).fn


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


def test_scalar_sweep_counts_as_scalar_loops_and_goes_native_when_native_accepts():
    fn = _ir(sweep, np.ones((6, 6)))
    w = loop_work(fn)
    assert w.scalar_loops and w.element_accesses >= 5 and w.loops == 2
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "scalar work" in why


def test_vectorized_time_loop_and_loop_free_code_go_to_xla():
    for fn in (_ir(vector_steps, 3, np.ones(16), np.ones(16)), _ir(no_loops, np.ones((200, 200)))):
        assert not loop_work(fn).scalar_loops
        name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
        assert name == "xla" and "tensor program" in why


def test_only_accepting_backend_is_chosen_with_the_refusal_quoted():
    fn = _ir(no_loops, np.ones((200, 200)))
    name, why = choose(fn, {"native": "ok"}, {"xla": "run-time shape at f.py:3"})
    assert name == "native" and "xla refuses it: run-time shape at f.py:3" in why


def test_product_dominated_code_goes_native_where_blas_runs_it():
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


def test_tiny_products_go_native_and_complex_products_never_take_the_blas_rule():
    fn = _ir(scaled_product, 2.0, np.ones((4, 4)), np.ones((4, 4)))
    d = dot_work(fn)
    assert d.madds + d.elements <= SMALL_WORK and d.dominated
    z = np.ones((128, 128), complex)
    d = dot_work(_ir(scaled_product, 2.0, z, z))
    assert d.other_products == 1 and d.products == 0 and not d.dominated


def test_transposed_operands_are_not_counted_as_work():
    fn = _ir(transposed_matvec, np.ones((128, 128)), np.ones(128))
    d = dot_work(fn)
    assert d.madds == 128 * 128 and d.elements < 128 * 128


def transposed_matvec(A, x):
    return A.T @ x


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
        assert not single_pass(fn)[0]
        assert choose(fn, {"xla": "ok", "native": "ok"}, {})[0] == "xla"
    # the diagonal's tanh is work of another kind: small beside the add, not on a 4 x 4 matrix
    assert not single_pass(_ir(plus_trace, np.ones((4, 4))))[0]


def test_large_float32_products_stay_on_xla_and_tiny_ones_go_native():
    a = np.ones((128, 128), np.float32)
    d = dot_work(_ir(scaled_product, 2.0, a, a))
    assert d.other_products == 1 and not d.dominated
    assert choose(_ir(scaled_product, 2.0, a, a), {"xla": "ok", "native": "ok"}, {})[0] == "xla"
    small = np.ones((8, 8), np.float32)
    assert dot_work(_ir(scaled_product, 2.0, small, small)).dominated
