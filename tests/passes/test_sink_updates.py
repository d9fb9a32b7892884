"""The sink_updates pass (gradient programs): accumulations into a cotangent zeroed over a
region and added back there go into the cotangent itself; the verifier runs after it, the
interpreter gives the same results, and it leaves alone the cases where the identity fails."""
from __future__ import annotations

import copy

import numpy as np

import solvent
from solvent.backends.interp import run
from solvent.ir.builder import Builder
from solvent.ir.core import Block, Function
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.types import TensorType
from solvent.ir.verifier import verify
from solvent.passes.sink_updates import SinkUpdates

WHOLE = [["s", 1, 4, 1], ["s", 0, 5, 1]]   # R: rows 1..3
ROW = [["i", 0], ["s", 0, 5, 1]]          # S: one row, at a run-time index


def _program(variant: str) -> Function:
    """x[R] = 0; x[i] += exp(x[i]) (twice for "twice"); then x[R] += x_old[R]."""
    blk = Block()
    x = blk.add_arg(TensorType((5, 5), "f64"), "x")
    i = blk.add_arg(TensorType((), "i64"), "i")
    b = Builder(blk)
    zero = b.one("tensor.broadcast_to", b.constant(0.0, "f64"), shape=[3, 5])
    z = b.create("tensor.update_slice", [x, zero], {"spec": WHOLE}).result
    y = z
    for _ in range(2 if variant == "twice" else 1):
        src = y if variant == "reads_z" else x   # d computed from the zeroed array: no
        d = b.one("tensor.exp", b.one("tensor.slice", src, i, spec=ROW))
        acc = b.one("tensor.add", b.one("tensor.slice", y, i, spec=ROW), d)
        y = b.create("tensor.update_slice", [y, acc, i], {"spec": ROW}).result
    back_spec = [["s", 0, 3, 1], ["s", 0, 5, 1]] if variant == "other_region" else WHOLE
    back = b.one("tensor.add", b.one("tensor.slice", y, spec=back_spec),
                 b.one("tensor.slice", x, spec=back_spec))
    w = b.create("tensor.update_slice", [y, back], {"spec": back_spec}).result
    outs = [w, z] if variant == "z_returned" else [w]
    b.create("func.return", outs)
    return Function("f", blk, ["x", "i"])


def _run(fn, x, i):
    return run(fn, [x.copy(), np.int64(i)])


def test_sinks_and_keeps_results():
    rng = np.random.default_rng(0)
    for variant in ("once", "twice"):
        fn = _program(variant)
        before = parse_function(print_function(fn))
        after = SinkUpdates().run(fn)
        verify(after, tensor_only=True)
        text = print_function(after)
        assert "tensor.broadcast_to" not in text   # the zeroing write is gone
        assert text.count("tensor.update_slice") == (2 if variant == "twice" else 1)
        for i in (1, 2, 3, 0, 4):   # rows inside and outside R
            x = rng.standard_normal((5, 5))
            a, b = _run(before, x, i), _run(after, x, i)
            np.testing.assert_allclose(b[0], a[0], rtol=1e-15, atol=0)


def test_does_not_apply_where_the_identity_fails():
    """The zeroed array read elsewhere (returned), an accumulation computed from it, and an
    add-back over another region: the pass changes nothing."""
    for variant in ("z_returned", "reads_z", "other_region"):
        fn = _program(variant)
        text = print_function(fn)
        after = SinkUpdates().run(fn)
        verify(after, tensor_only=True)
        assert print_function(after) == text, variant


def test_lu_gradient_clears_no_trailing_block():
    """In LU's gradient the reverse step no longer zeroes the cotangent's trailing block."""
    from solvent.corpus import lu_nopivot

    def loss(A, w):
        lu_nopivot.kernel(A)
        return np.sum(A * w)
    n = 7
    A = np.random.default_rng(1).random((n, n)) + n * np.eye(n)
    g = solvent.grad(loss, 0, backend="interp").compiled(A, np.ones((n, n)))
    rev = [op for op in g.fn.walk() if op.name == "loop.for"][-1]
    block = f"tensor<{n - 1}x{n - 1}xf64>"
    assert not any(op.name == "tensor.update_slice" and str(op.operands[1].type) == block
                   for op in rev.walk())
