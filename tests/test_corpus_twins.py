"""Loop twins (``solvent.corpus.<name>_loops``): each computes, under plain NumPy, what its
vectorized twin computes on the same arguments, and runs on the interpreter too (the XLA and
native backends run every corpus kernel in test_corpus.py and test_native_corpus.py)."""
import copy

import numpy as np
import pytest

from solvent.corpus import get, loop_twins, names

from differential import check

TWINS = [k.name for k in loop_twins()]

# a twin is expected for these vectorized kernels (the ones written with whole-array syntax
# that have a natural scalar-loop form)
EXPECTED = ["gemm", "two_mm", "three_mm", "mvt", "atax", "bicg", "gemver", "syrk", "trmm",
            "jacobi_1d", "jacobi_2d", "heat_3d", "heat_2d_slices", "fdtd_2d", "conv1d",
            "softmax", "layernorm", "blur_f32", "row_col_norms", "axis_stats", "arc_distance",
            "mlp_forward", "attention"]


def _outputs(ret, args):
    """Returns then array arguments after the call, as a list."""
    ret = [] if ret is None else list(ret) if isinstance(ret, tuple) else [ret]
    return ret + [a for a in args if isinstance(a, np.ndarray)]


def _assert_close(got, exp, what):
    got, exp = np.asarray(got), np.asarray(exp)
    assert got.dtype == exp.dtype and got.shape == exp.shape, \
        f"{what}: loop twin gives {got.dtype}{got.shape}, vectorized {exp.dtype}{exp.shape}"
    if exp.dtype.kind in "fc":
        rtol = 1e-4 if exp.dtype.itemsize <= (4 if exp.dtype.kind == "f" else 8) else 1e-9
        assert np.allclose(got, exp, rtol=rtol, atol=rtol * 1e-2), \
            f"{what}: values differ by {np.max(np.abs(got - exp))}"
    else:
        assert np.array_equal(got, exp), f"{what}: values differ"


def test_every_expected_twin_exists():
    assert set(EXPECTED) <= {get(t).twin_of for t in TWINS}
    assert len(TWINS) >= 20


@pytest.mark.parametrize("name", TWINS)
def test_twin_metadata(name):
    k = get(name)
    vec = get(k.twin_of)
    assert name == k.twin_of + "_loops" and vec.twin_of is None and vec.name in names()
    assert vec.category == k.category
    assert sorted(k.twin_args) == list(range(vec.func.__code__.co_argcount))
    assert k.func.__code__.co_argcount == len(k.twin_args)
    assert max(k.sizes) <= max(vec.sizes)   # NumPy runs the Python loops in every test


@pytest.mark.parametrize("size_index", [0, 1])
@pytest.mark.parametrize("name", TWINS)
def test_twin_computes_what_the_vectorized_kernel_computes(name, size_index):
    k = get(name)
    vec = get(k.twin_of)
    n = k.sizes[size_index]
    args = k.make_args(n, np.random.default_rng(size_index))
    vargs = vec.make_args(n, np.random.default_rng(size_index))
    mapped = k.vectorized_args(args)
    for a, b in zip(mapped, vargs):   # make_args: the vectorized ones, reordered
        assert type(a) is type(b) and np.array_equal(a, b)
    twin_args = copy.deepcopy(args)
    got = _outputs(k.func(*twin_args), k.vectorized_args(twin_args))
    exp = _outputs(vec.func(*vargs), vargs)
    assert len(got) == len(exp)
    for i, (g, e) in enumerate(zip(got, exp)):
        _assert_close(g, e, f"{name} output {i}")


@pytest.mark.parametrize("name", TWINS)
def test_twin_on_the_interpreter(name):
    k = get(name)
    check(k.func, *k.make_args(k.sizes[1], np.random.default_rng(7)), backend="interp")


def _float32(a):
    return a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a


def _fortran(a):
    return np.asfortranarray(a) if isinstance(a, np.ndarray) and a.ndim > 1 else a


def _strided(a):
    if not isinstance(a, np.ndarray):
        return a
    big = np.zeros(tuple(2 * s for s in a.shape), a.dtype)
    view = big[tuple(slice(None, None, 2) for _ in a.shape)]
    view[...] = a
    return view


# the way a stranger calls a ported loop: float32 data (accumulators start as Python floats
# and become float32, math.* computes in double), Fortran-ordered and strided arrays
VARIANTS = [("polar_helper_loops", _float32), ("softmax_loops", _float32),
            ("gemm_loops", _float32), ("jacobi_2d_loops", _float32),
            ("gemm_loops", _fortran), ("trmm_loops", _fortran), ("fdtd_2d_loops", _strided)]


@pytest.mark.parametrize("be", ["xla", "native"])
@pytest.mark.parametrize("name,variant", VARIANTS, ids=[f"{n}-{v.__name__[1:]}" for n, v in VARIANTS])
def test_twin_on_float32_and_non_contiguous_arguments(name, variant, be):
    k = get(name)
    args = tuple(variant(a) for a in k.make_args(k.sizes[0], np.random.default_rng(3)))
    check(k.func, *args, backend=be)


# the loop twins of products, matrix-vector kernels, rank-k updates, stencils, convolution-
# and softmax-like kernels: raising leaves no loop of scalar work (a stencil keeps its time
# loop, trmm its triangle's row loop, with whole-row tensor ops inside)
RAISED_WHOLE = {"gemm_loops": 0, "two_mm_loops": 0, "three_mm_loops": 0, "mvt_loops": 0,
                "atax_loops": 0, "bicg_loops": 0, "gemver_loops": 0, "syrk_loops": 0,
                "trmm_loops": 2, "jacobi_1d_loops": 1, "jacobi_2d_loops": 1,
                "heat_3d_loops": 1, "heat_2d_slices_loops": 1, "fdtd_2d_loops": 1,
                "conv1d_loops": 0, "softmax_loops": 0, "attention_loops": 0,
                "layernorm_loops": 0, "blur_f32_loops": 1}


@pytest.mark.parametrize("name", sorted(RAISED_WHOLE))
def test_data_parallel_twins_keep_no_scalar_loop(name):
    import solvent
    k = get(name)
    args = k.make_args(k.sizes[0], np.random.default_rng(0))
    fn = solvent.jit(k.func, backend="xla").compile(args).fn
    loops = [op for op in fn.walk() if op.name in ("loop.for", "loop.while")]
    assert len(loops) <= RAISED_WHOLE[name], [op.loc for op in loops]
    for loop in loops:   # what is left holds array work, not one element per trip
        body = loop.regions[0].block.ops
        assert any(r.type.rank > 0 for op in body if op.name != "loop.yield"
                   for r in op.results), f"{name}: a scalar loop at {loop.loc}"
