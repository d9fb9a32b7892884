"""The specialization cache: typed keys, guards on what compile time read, LRU bound."""
import gc
import weakref

import numpy as np
import pytest

import solvent
from differential import check

SCALE = 2.0


def scaled(A):
    return A * SCALE


def select_by_flag(flag, A):
    if flag[0] == 1:            # (1,), (True,) and (1.0,) are equal in Python...
        return A + 1
    return A - 1


def typed_by_flag(flag, A):
    return A * flag[0]          # ... but give int64, bool or float64 results here


@pytest.mark.parametrize("flags", [[(1,), (True,), (1.0,)], [(0.0,), (-0.0,)], [(2,), (2.0,)]])
def test_equal_but_differently_typed_tuples_get_their_own_version(flags, backend):
    for flag in flags:
        check(typed_by_flag, flag, np.arange(4, dtype=np.int8), backend=backend)
        check(select_by_flag, flag, np.arange(4.0), backend=backend)


def test_negative_zero_in_a_tuple_is_its_own_version():
    f = solvent.jit(typed_by_flag)
    a = f((0.0,), np.ones(3))
    b = f((-0.0,), np.ones(3))
    assert len(f._cache) == 2
    assert not np.signbit(a).any() and np.signbit(b).all()


def test_nan_compile_time_value_compiles_once():
    f = solvent.jit(typed_by_flag)
    for _ in range(3):
        out = f((float("nan"),), np.ones(3))
        assert np.isnan(out).all()
    assert len(f._cache) == 1


def test_changed_global_is_not_served_stale_code():
    global SCALE
    f = solvent.jit(scaled)
    A = np.arange(3.0)
    try:
        assert np.array_equal(f(A), A * 2.0)
        SCALE = 3.0
        assert np.array_equal(f(A), A * 3.0)
        SCALE = 3.0  # the same value again: no new compilation
        f(A)
        assert len(f._cache) == 1
    finally:
        SCALE = 2.0


def _helper(x):
    return x + 1.0


def calls_helper(A):
    return _helper(A)


def test_redefined_helper_function_recompiles():
    global _helper
    f = solvent.jit(calls_helper)
    A = np.arange(3.0)
    saved = _helper
    try:
        assert np.array_equal(f(A), A + 1.0)

        def _helper(x):     # noqa: F811 - the user redefines the helper
            return x * 10.0
        assert np.array_equal(f(A), A * 10.0)
    finally:
        _helper = saved


def test_changed_closure_variable_recompiles():
    k = 2

    def f(A):
        return A + k
    jf = solvent.jit(f)
    A = np.arange(3)
    assert np.array_equal(jf(A), A + 2)
    k = 5  # noqa: F841 - read by f through its closure cell
    assert np.array_equal(jf(A), A + 5)


def uses_abs(A):
    return abs(A)


def test_a_global_that_shadows_a_builtin_later_recompiles():
    f = solvent.jit(uses_abs)
    A = np.array([-1.0, 2.0])
    assert np.array_equal(f(A), [1.0, 2.0])
    globals()["abs"] = np.negative
    try:
        assert np.array_equal(f(A), [1.0, -2.0])
    finally:
        del globals()["abs"]
    assert np.array_equal(f(A), [1.0, 2.0])


def test_versions_are_bounded_least_recently_used_first():
    f = solvent.jit(scaled, max_versions=3)
    for n in range(1, 7):
        f(np.ones(n))
    assert len(f._cache) == 3 and f._cache.evictions == 3
    f(np.ones(4))                 # still cached: a hit moves it to the back
    f(np.ones(7))                 # evicts n=5, the least recently used
    assert len(f._cache) == 3
    shapes = [k[0][1] for k in f._cache._d]
    assert shapes == [(6,), (4,), (7,)]


def test_evicted_version_releases_its_executable():
    f = solvent.jit(scaled, max_versions=1)
    f(np.ones(5))
    exe = weakref.ref(next(iter(f._cache.values())).executable)
    f(np.ones(6))
    gc.collect()
    assert exe() is None


@pytest.mark.parametrize("bad", [0, -1, 2.5, None])
def test_bad_bound_is_refused(bad):
    with pytest.raises(ValueError, match="max_versions"):
        solvent.jit(scaled, max_versions=bad)
