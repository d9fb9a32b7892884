"""``Plan(fn, recompute=k)`` (gradient programs): an elementwise value of at most ``k`` cheap
ops read by several consumers is computed again inside each instead of written out; the
interpreter is the oracle. A value with an op outside the cheap set (a division) or a tree
over the limit is still written out once. Multi-output loops (multi_output.py) are turned
off here: they compute such a value once, inside one loop with all its consumers, whatever
its ops (the last test)."""
import numpy as np
import pytest

import solvent
from solvent.backends.interp import run
from solvent.backends.native.backend import NativeBackend


def two_sums(x, y):
    a = (x * 0.5 + y) * x - 0.25   # 4 cheap ops, read by three consumers
    return np.sum(a * y), np.sum(a * x), np.maximum(a, 0.0)


def two_sums_div(x, y):
    a = (x * 0.5 + y) / (x * x + 1.0)
    return np.sum(a * y), np.sum(a * x), np.maximum(a, 0.0)


def _shared_value_fused(ir, exe) -> bool:
    """Whether the value that three ops read is computed inside them (not written out)."""
    root = next(op for op in ir.walk() if op.results and len(op.results[0].live_uses()) == 3)
    return root in exe.plan.fused


@pytest.mark.parametrize("fn,limit,kept", [
    (two_sums, 16, False), (two_sums, 3, True), (two_sums, 0, True),
    (two_sums_div, 16, True),
], ids=["recomputed", "over_limit", "off", "division"])
def test_recompute_cheap_values(fn, limit, kept):
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((6, 7)), rng.standard_normal((6, 7))
    ir = solvent.jit(fn, backend="interp").compile((x, y)).fn
    exe = NativeBackend(multi_output=False).compile(ir, recompute=limit)
    got, want = exe(x, y), run(ir, [x, y])
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14)
    assert _shared_value_fused(ir, exe) == (not kept)


@pytest.mark.parametrize("fn", [two_sums, two_sums_div], ids=["cheap", "division"])
def test_multi_output_loop_computes_shared_value_once(fn):
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((6, 7)), rng.standard_normal((6, 7))
    ir = solvent.jit(fn, backend="interp").compile((x, y)).fn
    exe = NativeBackend().compile(ir, recompute=0)
    got, want = exe(x, y), run(ir, [x, y])
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14)
    assert _shared_value_fused(ir, exe)
    assert len({id(g) for g in exe.plan.groups.values()}) == 1


def row_norm(x, g):
    """A layer norm's ``d = x - mean`` (one op) read by the row sums of ``d * d`` (a batched
    row dot reading ``d`` twice) and by the affine map: computed in both, never written."""
    mean = x.mean(axis=-1, keepdims=True)
    d = x - mean
    v = np.einsum("bij,bij->bi", d, d)
    return g * d / np.sqrt(v[..., None] + 1e-5)


def test_one_op_value_read_by_two_consumers_is_recomputed():
    rng = np.random.default_rng(4)
    x, g = rng.standard_normal((2, 3, 5)), rng.standard_normal(5)
    ir = solvent.jit(row_norm, backend="interp").compile((x, g)).fn
    exe = NativeBackend().compile(ir)
    np.testing.assert_allclose(exe(x, g)[0], run(ir, [x, g])[0], rtol=1e-13, atol=1e-13)
    sub = next(op for op in ir.walk() if op.name == "tensor.sub" and op.results[0].type.rank == 3)
    assert sub in exe.plan.fused
    assert any(op.name == "tensor.dot_general" and op.operands[0] is sub.results[0]
               for op in ir.walk())
