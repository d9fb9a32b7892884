"""``math.floor`` in a raised loop (polar_helper_loops' angle wrap): its int round trip
becomes a select on the float (pattern int64-round-trip); the loops under solvent match the
same loops under Python, signs of zero included, on every backend."""
import math

import numpy as np
import pytest

import solvent


def wrap_angles(steps, omega, th, out):
    n, m = th.shape
    for i in range(n):
        for j in range(m):
            a = th[i, j]
            for s in range(steps):
                a = a + omega - 2.0 * math.pi * math.floor((a + math.pi) / (2.0 * math.pi))
            out[i, j] = a * math.floor(th[i, j])   # floor of -0.0 and -0.5 through an int


@pytest.mark.parametrize("be", ["native", "xla", "interp"])
@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (3, 5)], ids=lambda s: "x".join(map(str, s)))
def test_floor_round_trip_matches_python(be, shape):
    rng = np.random.default_rng(1)
    th = rng.standard_normal(shape) * 40.0
    th.reshape(-1)[:4] = [-0.0, 0.0, -0.5, 1e15][:th.size]
    want, got = np.full(shape, 7.0), np.full(shape, 7.0)
    wrap_angles(3, 0.3, th, want)
    solvent.jit(wrap_angles, backend=be)(3, 0.3, th, got)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_no_int_conversion_left():
    th = np.ones((3, 4))
    ir = solvent.jit(wrap_angles, backend="interp").compile((3, 0.3, th, th)).fn
    assert not any(op.name == "tensor.convert" and op.results[0].type.dtype == "i64"
                   for op in ir.walk())
