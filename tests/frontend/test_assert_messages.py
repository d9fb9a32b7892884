"""``assert test, message`` with a message known only at run time: one integer or an f-string
with one integer field, as a ``raise``'s (s26 failure probe; it was refused as 'an assert
message computed at run time' while ``raise ValueError(f"... {i}")`` compiled). The first
failing iteration in program order is the one reported, also in a loop the native backend
runs on several threads."""
import numpy as np
import pytest

import solvent


def check_each(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i] + 1.0
        assert a[i] >= 0, f"negative at {i}"
    return b


def count_below(a, k):
    for i in range(a.shape[0]):
        a[i] = 1.0
        assert i < k, i
    return a


def never_in_loop(a, k):
    for i in range(k):
        a[i] = 2.0
        assert False, f"reached {i}"
    return a


@pytest.mark.parametrize("backend", ["interp", "native", "xla", None])
def test_assert_messages_with_a_run_time_integer(backend):
    n = 200_000
    x = np.arange(float(n))
    x[100_001] = -1.0
    x[150_000] = -2.0
    b = np.zeros(n)
    jf = solvent.jit(check_each, backend=backend)
    with pytest.raises(AssertionError, match=r"test_assert_messages.py:\d+:\d+: negative at 100001$"):
        jf(x, b)
    assert not b.any()                       # nothing written back
    np.testing.assert_array_equal(jf(np.arange(5.0), np.zeros(5)), np.arange(5.0) + 1)
    g = solvent.jit(count_below, backend=backend)
    a = np.zeros(5)
    with pytest.raises(AssertionError, match=r": 3$"):
        g(a, 3)
    assert not a.any()
    np.testing.assert_array_equal(g(np.zeros(5), 9), np.ones(5))
    h = solvent.jit(never_in_loop, backend=backend)
    np.testing.assert_array_equal(h(np.zeros(3), 0), np.zeros(3))
    with pytest.raises(AssertionError, match=r": reached 0$"):
        h(np.zeros(3), 2)
