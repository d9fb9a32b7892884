"""The contraction patterns (passes/raising/contraction.py) under translation validation:
each fires on its sample and the interpreter gives the same results before and after, on
random inputs (NaN, inf, -0.0 included) at edge shapes; a deliberately wrong masked sum is
caught by the same check."""
import sys
from pathlib import Path

import numpy as np
import pytest

from solvent.ir.rewrite import Pattern
from solvent.passes.raising.contraction import CONTRACTIONS, _masked_sum_sample

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_patterns import SHAPES, validate  # noqa: E402

# sums of products change their order (dot_general): close, not bit-equal
REORDERS = {"sum-of-products", "sum-of-sums"}


def _agree(name, x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if name in REORDERS:
        return np.allclose(x, y, rtol=1e-12, atol=1e-12, equal_nan=True)
    # bit-exact, the sign of zero included
    return np.array_equal(x, y, equal_nan=True) and np.array_equal(np.signbit(x), np.signbit(y))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("pattern", CONTRACTIONS, ids=lambda p: p.name)
def test_contraction_pattern_fires_and_keeps_results(pattern, shape):
    assert pattern.doc and pattern.sample is not None
    fired, results = validate(pattern, shape)
    assert fired >= 1, f"{pattern.name} did not fire on its sample"
    for before, after in results:
        assert len(before) == len(after)
        for x, y in zip(before, after):
            assert _agree(pattern.name, x, y), f"{pattern.name} at {shape}:\n{x}\n{y}"


def _masked_sum_keeping_negative_zero(op, rw):
    """WRONG: select(m, sum x, -0.0) — masked-off rows keep the select's -0.0, but the sum of
    zeros is +0.0."""
    sel = op.operands[0].owner
    if sel.name != "tensor.select":
        return False
    m, x, z = sel.operands
    total = rw.one("tensor.reduce_sum", x, axes=op.attrs["axes"], keepdims=False)
    m = rw.one("tensor.reshape", m, shape=list(total.type.shape))
    rw.replace_op(op, [rw.one("tensor.select", m, total, rw.constant_like(total, -0.0))])
    return True


def test_a_wrong_masked_sum_is_caught():
    wrong = Pattern("masked-sum-negative-zero", "tensor.reduce_sum",
                    _masked_sum_keeping_negative_zero, "WRONG", _masked_sum_sample)
    fired, results = validate(wrong, (4, 2))
    assert fired >= 1
    assert any(not _agree("masked-sum", x, y) for before, after in results
               for x, y in zip(before, after))
