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
