"""The halo-shift pass (passes/halo_shifts.py) is validated like every pattern: on the IR of
stencil kernels it fires, leaves no slice-shaped update, and the interpreter gives the same
results before and after on random inputs, edge shapes included; a deliberately wrong
variant (shifts off by one) is caught by the same check; kernels it must not touch are left
alone."""
import copy

import numpy as np
import pytest

import solvent
from solvent.backends.interp import run
from solvent.frontend.translator import translate
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.rewrite import Pattern, apply_patterns
from solvent.ir.verifier import verify
from solvent.passes import halo_shifts
from solvent.passes.pipeline import build_pipeline, run_pipeline


def jacobi_step(A, B):
    B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1]
                           + A[:-2, 1:-1])
    A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1]
                           + B[:-2, 1:-1])


def lopsided_1d(x, y, c):
    y[2:-1] = c * x[3:] - np.sqrt(np.abs(x[:-3])) + x[2:-1] * y[1:-2]


def heat_3d_step(A, B):
    B[1:-1, 1:-1, 1:-1] = (0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1]
                                    + A[:-2, 1:-1, 1:-1]) + A[1:-1, 1:-1, 2:]
                           - A[1:-1, 1:-1, :-2])


def time_loop(n, A, B):
    for t in range(n):
        B[1:-1] = 0.5 * (A[:-2] + A[2:])
        A[1:-1] = 0.5 * (B[:-2] + B[2:])


def red_black(A):
    # strided updates read by strided slices of the same step: every step-th index masked
    A[1:-1:2, 1:-1] = 0.25 * (A[:-2:2, 1:-1] + A[2::2, 1:-1] + A[1:-1:2, :-2] + A[1:-1:2, 2:])
    A[2:-1:2, 1:-1] = 0.25 * (A[1:-2:2, 1:-1] + A[3::2, 1:-1] + A[2:-1:2, :-2] + A[2:-1:2, 2:])


def strided_mixed(x, y):
    y[1::3] = x[::3] * 2.0 - y[2::3]


CASES = [
    (jacobi_step, lambda rng, n: (rng.random((n, n + 2)), rng.random((n, n + 2)))),
    (red_black, lambda rng, n: (rng.random((2 * n + 3, n + 2)),)),
    (strided_mixed, lambda rng, n: (rng.random(3 * n + 3), rng.random(3 * n + 3))),
    (lopsided_1d, lambda rng, n: (rng.random(n + 3), rng.random(n + 3), 1.5)),
    (heat_3d_step, lambda rng, n: (rng.random((n, n + 1, 3)), rng.random((n, n + 1, 3)))),
    (time_loop, lambda rng, n: (3, rng.random(n + 2), rng.random(n + 2))),
]


def _ir(fn, args, enabled):
    tr = translate(fn, args, set())  # scalars are run-time values
    return run_pipeline(tr.fn, passes=build_pipeline({"halo_shifts": {"enabled": enabled}})), tr


def _interp(ir, tr, args):
    return run(ir, [copy.deepcopy(args[i]) for i in tr.arg_map])


def _names(ir):
    return [op.name for op in ir.walk()]


@pytest.mark.parametrize("n", [2, 3, 6])
@pytest.mark.parametrize("kernel,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_shifts_replace_slice_updates_and_keep_results(kernel, make, n):
    rng = np.random.default_rng(n)
    args = make(rng, n)
    plain, tr = _ir(kernel, args, False)
    shifted, tr2 = _ir(kernel, args, True)
    verify(shifted, tensor_only=True)
    assert "tensor.update_slice" in _names(plain)
    assert "tensor.update_slice" not in _names(shifted), print_function(shifted)
    assert "tensor.pad" in _names(shifted) and "tensor.select" in _names(shifted)
    for seed in range(3):
        args = make(np.random.default_rng(100 + seed), n)
        want = _interp(plain, tr, args)
        got = _interp(shifted, tr2, args)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    # and the kernel itself, with NumPy as the oracle, on the interpreter
    a1, a2 = copy.deepcopy(args), copy.deepcopy(args)
    kernel(*a1)
    solvent.jit(kernel, backend="interp")(*a2)
    for x, y in zip(a1, a2):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=1e-12)


def test_a_wrong_shift_is_caught():
    """The same rewrite with every shift off by one gives different results: the check
    above would fail on such a bug."""
    real = halo_shifts._shifted

    def off_by_one(rw, x, offsets):
        return real(rw, x, [o + 1 for o in offsets])
    args = CASES[0][1](np.random.default_rng(0), 5)
    plain, tr = _ir(jacobi_step, args, False)
    halo_shifts._shifted = off_by_one
    try:
        wrong, tr2 = _ir(jacobi_step, args, True)
    finally:
        halo_shifts._shifted = real
    want, got = _interp(plain, tr, args), _interp(wrong, tr2, args)
    assert any(not np.array_equal(np.asarray(w), np.asarray(g)) for w, g in zip(want, got))


def row_broadcast(A, r):
    A[1:, :] = A[:-1, :] * r[None, :]       # a (1, m) operand: not elementwise on the region


def moving_window(A, i):
    A[i:i + 2] = A[i + 1:i + 3] * 2.0       # run-time position


def whole_array(A, B):
    A[:] = B * 2.0


def other_step(A):
    A[1::2] = A[:4] * 2.0                   # a step-1 read into a step-2 update


def row_fill(A, c):
    A[1:3] = c                              # a step-1 fill: the partitioner splits it well


def strided_fill(A, c):
    A[1::3, ::2] = 0.0
    A[::2] = c


def test_a_strided_fill_becomes_a_masked_select():
    # the partitioner gathered the whole array for a strided update of a split axis (3
    # collective-permutes and 2 all-gathers on 8 devices for this one; none rewritten)
    args = (np.random.default_rng(0).random((8, 5)), 2.5)
    plain, tr = _ir(strided_fill, args, False)
    shifted, tr2 = _ir(strided_fill, args, True)
    verify(shifted, tensor_only=True)
    assert "tensor.update_slice" not in _names(shifted), print_function(shifted)
    for w, g in zip(_interp(plain, tr, args), _interp(shifted, tr2, args)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("kernel,args", [
    (row_broadcast, (np.ones((4, 3)), np.arange(3.0))),
    (moving_window, (np.arange(6.0), 1)),
    (whole_array, (np.ones(4), np.arange(4.0))),
    (other_step, (np.arange(8.0),)),
    (row_fill, (np.ones((4, 3)), 2.0)),
])
def test_other_updates_are_left_alone(kernel, args):
    plain, _ = _ir(kernel, args, False)
    shifted, _ = _ir(kernel, args, True)
    assert print_function(plain) == print_function(shifted)


def test_off_by_default():
    args = CASES[0][1](np.random.default_rng(0), 4)
    assert "tensor.pad" not in _names(_ir(jacobi_step, args, False)[0])
    ir = solvent.jit(jacobi_step).compile(args).fn
    assert "tensor.pad" not in _names(ir)


def test_pass_options_are_checked_when_jit_is_called():
    with pytest.raises(ValueError, match="no pass named"):
        solvent.jit(jacobi_step, passes={"halo_shift": {"enabled": True}})
    with pytest.raises(TypeError, match="max_ops"):
        solvent.jit(jacobi_step, passes={"if_to_select": {"max_ops": "many"}})
    args = CASES[0][1](np.random.default_rng(0), 4)
    on = solvent.jit(jacobi_step, passes={"halo_shifts": {"enabled": True}})
    assert "tensor.pad" in _names(on.compile(args).fn)
    a1, a2 = copy.deepcopy(args), copy.deepcopy(args)
    jacobi_step(*a1)
    on(*a2)
    for x, y in zip(a1, a2):
        np.testing.assert_allclose(y, x, rtol=1e-12)


def test_the_ir_carries_shardings_and_the_pass_reads_them():
    """Function.shardings (set by jit from mesh= and in_specs=) prints, parses back, and
    turns the pass on where some argument is split; a fully replicated function is left
    alone."""
    args = CASES[0][1](np.random.default_rng(0), 4)
    tr = translate(jacobi_step, args, set())
    tr.fn.shardings = [[["x", 4], ["y", 2]], [["x", None], [["x", "y"], None]]]
    text = print_function(tr.fn)
    assert 'shardings [[["x", 4], ["y", 2]], [["x", none], [["x", "y"], none]]]' in text
    assert parse_function(text).shardings == tr.fn.shardings
    ir = run_pipeline(tr.fn)
    assert ir.shardings == tr.fn.shardings and "tensor.pad" in _names(ir)
    tr = translate(jacobi_step, args, set())
    tr.fn.shardings = [[["x", 4]], [None, None]]
    assert "tensor.pad" not in _names(run_pipeline(tr.fn))
