"""The launch's cache of ready versions (simt/launch.py ``Launch._ready``): a configuration
of plain ints gives one Launch, a later launch with arguments of the same types goes
straight to the compiled program, and that path still follows globals the kernel reads,
new argument types, and failures (the caller's arrays unchanged)."""
import numpy as np
import pytest
from numba import cuda

import solvent

SCALE = 2.0


def scaled_gather(idx, x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[idx[i]] * SCALE


def _ref(idx, x):
    return x[idx] * SCALE


def test_one_launch_per_int_configuration_and_bad_ones_still_refused():
    k = solvent.kernel(scaled_gather)
    assert k[2, 8] is k[2, 8]
    assert k[(2, 1), (8, 1)] is not k[2, 8]
    for bad in ((2.0, 8), (True, 8), (2, 0)):
        with pytest.raises((TypeError, ValueError), match="kernel launch"):
            k[bad]


@pytest.mark.parametrize("n", [1, 13, 40])
def test_repeated_launches_follow_types_globals_and_failures(n, monkeypatch):
    k = solvent.kernel(scaled_gather)
    rng = np.random.default_rng(n)
    idx, x = rng.integers(0, n, n), rng.random(n)
    launch = k[(n + 7) // 8, 8]
    for _ in range(3):   # the second and third launches take the ready version
        out = np.zeros(n)
        launch(idx, x, out)
        np.testing.assert_array_equal(out, _ref(idx, x))
    # other argument types: a version of their own, through the same launch
    x32, out32 = x.astype(np.float32), np.zeros(n, np.float32)
    launch(idx.astype(np.int8), x32, out32)
    np.testing.assert_array_equal(out32, (x32[idx] * np.float32(SCALE)).astype(np.float32))
    # a global the kernel reads changes: the ready version's guard sends it to recompile
    monkeypatch.setitem(globals(), "SCALE", -3.0)
    out = np.zeros(n)
    launch(idx, x, out)
    np.testing.assert_array_equal(out, x[idx] * -3.0)
    # a failing launch on the ready path raises and leaves the caller's array alone
    bad = idx.copy()
    bad[n - 1] = n + 5
    out = np.full(n, 4.0)
    with pytest.raises(IndexError, match=f"index {n + 5} is out of bounds"):
        launch(bad, x, out)
    np.testing.assert_array_equal(out, np.full(n, 4.0))
    launch(idx, x, out)
    np.testing.assert_array_equal(out, x[idx] * -3.0)
