"""Barrier-free kernels flattened into loops over global thread indices (simt/flatten.py):
guards become loop bounds, the dimension of the last subscript goes innermost, and on XLA
the loops are raised whole into tensor programs (no scalar loop left)."""
import numpy as np
import pytest
from numba import cuda

import solvent
from solvent.corpus_simt import all_cases
from solvent.runtime.jit import JitFunction

CASES = {c.name: c for c in all_cases()}
LOOPS = ("loop.for", "loop.while")


def loops_left(launch, args) -> int:
    c = launch.jit(*args).compile(list(args))
    return sum(op.name in LOOPS for op in c.fn.walk())


def run_case(name, n, backend):
    case = CASES[name]
    rng = np.random.default_rng(n)
    args = case.make_args(n, rng)
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    case.numpy(*ref)
    grid, block = case.config(n)
    launch = solvent.kernel(case.kernel)[grid, block].on(backend)
    (case.launch or (lambda k, a: k(*a)))(launch, args)
    for i in case.outputs:
        np.testing.assert_allclose(args[i], ref[i], rtol=case.rtol, atol=1e-12)
    return launch, args


@pytest.mark.parametrize("name", ["saxpy", "add_2d", "jacobi_2d", "hotspot", "gelu_local",
                                  "backprop_layer"])
def test_independent_kernels_raise_whole_on_xla(name):
    launch, args = run_case(name, 7, "xla")
    assert launch.report(*args).flat is not None
    assert loops_left(launch, args) == 0


def test_stencil_becomes_slices_on_xla():
    launch, args = run_case("jacobi_2d", 11, "xla")
    fn = launch.jit(*args).compile(list(args)).fn
    names = {op.name for op in fn.walk()}
    assert "tensor.slice" in names and "tensor.gather" not in names and not names & set(LOOPS)


def test_a_recurrence_inside_each_thread_stays_a_loop_on_xla():
    # poly_eval's Horner loop carries acc from one coefficient to the next
    launch, args = run_case("poly_eval", 6, "xla")
    assert loops_left(launch, args) > 0


def test_kernel_launched_in_a_time_loop_is_one_loop_with_a_tensor_body_on_xla():
    case = CASES["pathfinder"]
    n = 9
    args = case.make_args(n, np.random.default_rng(1))
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    case.numpy(*ref)
    grid, block = case.config(n)
    host = JitFunction(case.jit_host(solvent.kernel(case.kernel)[grid, block]).pyfn,
                       backend="xla")
    host(*args)
    np.testing.assert_array_equal(args[3], ref[3])
    fn = host.compile(list(args)).fn
    loops = [op for op in fn.walk() if op.name in LOOPS]
    assert len(loops) == 1   # the time loop; each launch inside it is tensor ops
    assert not any(op.name in LOOPS for op in loops[0].regions[0].block.walk()
                   if op is not loops[0])


def test_guards_become_loop_bounds_and_the_last_subscript_goes_innermost():
    case = CASES["jacobi_2d"]
    args = case.make_args(40, np.random.default_rng(0))
    grid, block = case.config(40)
    src = solvent.kernel(case.kernel)[grid, block].report(*args).source
    outer = src.index("for __simt_gx in range(1, min(48, n - 1)):")
    inner = src.index("for __simt_gy in range(1, min(48, m - 1)):")
    assert outer < inner and " if " not in src.split("for __simt_gy", 1)[1]


def early_return(x, out, n):
    i = cuda.grid(1)
    if i >= n or i >= x.size:
        return
    out[i] = 2 * x[i]


@pytest.mark.parametrize("n", [0, 1, 5, 37, 100])
def test_return_guard_with_a_scalar_bound_matches_numpy(n):
    x = np.arange(37, dtype=np.int8)
    out = np.zeros(37, np.int8)
    k = solvent.kernel(early_return)[5, 8]
    k(x, out, n)
    ref = np.zeros(37, np.int8)
    m = min(n, 37)
    ref[:m] = 2 * x[:m]
    np.testing.assert_array_equal(out, ref)
    assert "range(min(40, n, x.size))" in k.report(x, out, n).source


def read_before_guard(x, out):
    i = cuda.grid(1)
    v = x[i]          # reads out of range for the last threads: an IndexError, as in CUDA's
    if i < out.size:  # simulator, so this guard must not become the loop's bound
        out[i] = v


def test_a_read_before_the_guard_keeps_its_index_error():
    x = np.arange(10.0)
    out = np.zeros(10)
    line = read_before_guard.__code__.co_firstlineno + 2
    with pytest.raises(IndexError, match=rf"test_flatten.py:{line}:\d+: index 10 is out of"):
        solvent.kernel(read_before_guard)[2, 8](x, out)
    np.testing.assert_array_equal(out, 0)


def scale_fortran(a, out, s):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] * s


def test_fortran_ordered_and_non_square_arguments():
    a = np.asfortranarray(np.random.default_rng(2).random((5, 3)))
    out = np.zeros((5, 3), np.float32)
    k = solvent.kernel(scale_fortran)[(2, 1), (4, 4)]
    k(a, out, 3.0)
    np.testing.assert_allclose(out, (a * 3.0).astype(np.float32), rtol=1e-6)
    assert k.report(a, out, 3.0).flat is not None


def uses_thread_index(x, out):
    tx = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + tx


def reassigns_a_parameter(x, out, s):
    i = cuda.grid(1)
    if i < x.size:
        s = s + x[i]
        out[i] = s


@pytest.mark.parametrize("kernel,extra", [(uses_thread_index, ()), (reassigns_a_parameter,
                                                                     (1.5,))])
def test_kernels_that_need_the_block_structure_are_not_flattened(kernel, extra):
    x = np.arange(13.0)
    out = np.zeros(13)
    k = solvent.kernel(kernel)[4, 4]
    k(x, out, *extra)
    low = k.report(x, out, *extra)
    assert low.flat is None
    ref = x + np.arange(13) % 4 if kernel is uses_thread_index else x + 1.5
    np.testing.assert_allclose(out, ref)
    assert "block loop" in k.explain(x, out, *extra)


def test_explain_says_the_grid_was_flattened():
    x = np.arange(13.0)
    out = np.zeros(13)
    text = solvent.kernel(early_return)[4, 4].explain(x, out, 13)
    assert "grid flattened" in text and "outermost loop: parallel" in text


def float_bound(x, out, limit):
    i = cuda.grid(1)
    if i < limit and i < x.size:
        out[i] = x[i]


@pytest.mark.parametrize("limit", [3.5, 0.0, 20.0])
def test_a_float_bound_stays_in_the_guard(limit):
    x = np.arange(1.0, 14.0)
    out = np.zeros(13)
    k = solvent.kernel(float_bound)[4, 4]
    k(x, out, limit)
    ref = np.where(np.arange(13) < limit, x, 0.0)
    np.testing.assert_array_equal(out, ref)
    assert "range(min(16, x.size))" in k.report(x, out, limit).source
