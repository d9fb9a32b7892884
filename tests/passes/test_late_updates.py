"""LateUpdates: an update of an array read later in its block moves before its result's
first use; results unchanged (interpreter before and after)."""
import copy

import numpy as np

from solvent.backends.interp import run
from solvent.ir.builder import Builder
from solvent.ir.core import Block, Function
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.types import TensorType
from solvent.ir.verifier import verify
from solvent.passes.late_updates import LateUpdates


def test_update_moves_after_the_reads_of_its_array():
    blk = Block()
    x = blk.add_arg(TensorType((6,), "f64"), "x")
    b = Builder(blk)
    zero = b.one("tensor.broadcast_to", b.constant(0.0, "f64"), shape=[4])
    z = b.create("tensor.update_slice", [x, zero], {"spec": [["s", 1, 5, 1]]}).result
    lo = b.one("tensor.slice", x, spec=[["s", 0, 4, 1]])
    hi = b.one("tensor.slice", x, spec=[["s", 2, 6, 1]])
    s = b.one("tensor.add", lo, hi)
    b.create("func.return", [z, s])
    fn = Function("f", blk, ["x"])
    before = parse_function(print_function(fn))
    fn = LateUpdates().run(fn)
    verify(fn)
    names = [op.name for op in fn.body.ops]
    assert names.index("tensor.update_slice") == names.index("func.return") - 1
    a = np.random.default_rng(0).standard_normal(6)
    for p, q in zip(run(before, [copy.copy(a)]), run(fn, [copy.copy(a)])):
        assert np.array_equal(p, q)
