"""An accumulation into one slot of an array, ``x[S] = x[S] + d`` (a cotangent added into
the slots a slice read), is computed inside the in-place write (bufferize.py: the value
reads the updated array only through the window written): element k of the write reads
element k of the slot before writing it. NumPy is the oracle; writes whose value also reads
the written array at other slots (a shifted window) must keep a buffer of their own."""
import numpy as np
import pytest

import solvent


def acc_slot(x, d):
    for _ in range(3):
        x[1:-1] = x[1:-1] + np.sin(x[1:-1] * d[1:-1])


def acc_row(x, d):
    for i in range(x.shape[0]):
        x[i, 1:] = np.sin(x[i, 1:]) + d[i, 1:]


def acc_shifted(x, d):   # reads the slots left of the ones it writes
    for _ in range(3):
        x[1:-1] = x[:-2] + d[1:-1]


def acc_slot_and_shifted(x, d):
    for _ in range(3):
        x[1:-1] = x[1:-1] + x[2:] * d[1:-1]


def acc_broadcast(x, d):
    """The first written row, broadcast over the written rows: that row is copied out
    before the write (a broadcast operand is not computed inside its consumer), so the sum
    may still be computed inside the write."""
    for _ in range(2):
        x[1:3] = x[1:3] + x[1:2] * d[1:3]


def _add_fused_into_update(c) -> bool:
    plan = c.executable.plan
    return any(op.name == "tensor.add" and any(u.name == "tensor.update_slice" for u, _ in
                                               op.results[0].live_uses()) for op in plan.fused)


@pytest.mark.parametrize("fn,shape,fused", [
    (acc_slot, (9,), True), (acc_row, (4, 6), True),
    (acc_shifted, (9,), False), (acc_slot_and_shifted, (9,), False),
    (acc_broadcast, (4, 5), True),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_slot_accumulation_in_place_matches_numpy(fn, shape, fused):
    rng = np.random.default_rng(5)
    x, d = rng.standard_normal(shape), rng.standard_normal(shape)
    want = x.copy()
    fn(want, d)
    jf = solvent.jit(fn, backend="native")
    got = x.copy()
    jf(got, d)
    np.testing.assert_array_equal(got, want)
    assert _add_fused_into_update(jf.compile((x.copy(), d))) == fused
