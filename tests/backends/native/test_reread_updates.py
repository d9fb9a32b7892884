"""Native code reads values back from the array they were written into (reread_updates.py):
the stencil computed straight into the array's slots, not into a buffer of its own and
copied; and no pass leaves dropped ops counted as users (the pattern relies on use lists)."""
import numpy as np
import pytest

import solvent
from solvent.corpus import blur_f32_loops, fdtd_2d_loops, jacobi_1d_loops


def _fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("mod", [jacobi_1d_loops, fdtd_2d_loops], ids=lambda m: m.__name__)
def test_an_updated_stencil_has_the_update_as_its_only_reader(mod):
    args = mod.make_args(mod.SIZES[0], np.random.default_rng(0))
    # the sweeps raised (natively they stay parallel loops over rows by default, and
    # jacobi_1d's rows are scalars: test_native_parallel_sweeps.py)
    f = solvent.jit(mod.kernel, backend="native",
                    passes={"raise_loops": {"sweep_min_work": -1}})
    fn = f.compile(_fresh(args)).fn
    updates = [op for op in fn.walk() if op.name == "tensor.update_slice"
               and op.operands[1].type.rank and op.operands[1].owner.name != "tensor.broadcast_to"]
    assert updates
    for op in updates:
        assert [u for u, _ in op.operands[1].live_uses()] == [op]
        # and the array it updates is read by nothing after it (reads beside the update
        # read the updated array): the update is made in place, no copy per time step
        x = op.operands[0]
        block = op.parent.ops
        assert all(block.index(u) <= block.index(op) for u, _ in x.live_uses()
                   if u.parent is op.parent)
    want = _fresh(args)
    got = _fresh(args)
    r_want, r_got = mod.kernel(*want), f(*got)
    for a, b in zip(want, got):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert r_want is None and r_got is None


def test_no_pass_leaves_a_dropped_op_among_a_values_users():
    args = blur_f32_loops.make_args(blur_f32_loops.SIZES[0], np.random.default_rng(0))
    fn = solvent.jit(blur_f32_loops.kernel, backend="native").compile(list(args)).fn
    inside = {id(op) for op in fn.walk()}
    for op in fn.walk():
        for v in op.operands:
            assert all(id(u) in inside for u, _ in v.live_uses())
