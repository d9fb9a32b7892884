"""A value a loop body yields into a carried slot is computed in the slot's own buffer when
the slot's old array is read no more (bufferize.py: no copy back per trip); one still read
after the value is computed keeps a buffer of its own. NumPy is the oracle."""
import numpy as np
import pytest

import solvent


def power(a, x, iters):
    for _ in range(iters):
        y = a @ x
        x = y / np.sqrt(np.sum(y * y))
    return x


def read_late(x, s, iters):   # the old x is read after the new one is computed
    for _ in range(iters):
        y = np.cumsum(x) * 0.25
        s = s + x
        x = y
    return x, s


@pytest.mark.parametrize("fn,into", [(power, True), (read_late, False)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_yield_into_slot_matches_numpy(fn, into):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(6)
    args = (rng.standard_normal((6, 6)), x, 4) if fn is power else (x, x[::-1].copy(), 4)
    jf = solvent.jit(fn, backend="native")
    for got, want in zip(np.atleast_2d(jf(*args)), np.atleast_2d(fn(*args))):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    plan = jf.compile(args).executable.plan
    assert bool(plan.into_slot) == into
    if into:   # the division writes the next x where the loop keeps it
        assert any(op.name == "tensor.div" for op in plan.into_slot)
