"""Element accesses Python makes only under a condition stay safe on the native backend
after if-conversion or the frontend made them unconditional: no IndexError for an index the
program never uses (found by solvent/simt's kernels, whose partial blocks guard every
access)."""
import numpy as np
import pytest

import solvent


def two_guarded_stores(x, out):
    # the second if's store sat on the first one's result: if-conversion took it for a store
    # both branches make, and left its index checked
    for b in range(3):
        for t in range(4):
            base = b * 8
            if base + 2 * t < x.size:
                out[base + 2 * t] = x[base + 2 * t]
            if base + 2 * t + 1 < x.size:
                out[base + 2 * t + 1] = x[base + 2 * t + 1]


def guarded_read_in_conditional_expression(x, out):
    for i in range(out.size):
        out[i] = x[i] if i < x.size else -1.0


@pytest.mark.parametrize("backend", ["native", "interp", "xla"])
@pytest.mark.parametrize("fn, n_out", [(two_guarded_stores, 20),
                                       (guarded_read_in_conditional_expression, 24)])
def test_guarded_access_past_the_end(fn, n_out, backend):
    x = np.arange(1.0, 21.0)
    want, got = np.zeros(n_out), np.zeros(n_out)
    fn(x, want)
    solvent.jit(fn, backend=backend)(x, got)
    np.testing.assert_array_equal(got, want)


def test_unguarded_read_still_raises():
    def f(x, out):
        for i in range(out.size):
            out[i] = x[i] if i < 30 else -1.0

    out = np.zeros(24)
    with pytest.raises(IndexError, match="index 20"):
        solvent.jit(f, backend="native")(np.arange(20.0), out)
    assert not out.any()


# conditional element stores that if-conversion made select(c, a, x[i]) and the native
# backend stores again only when c holds (rules_index._keeps_old_value)
def cap_at(x, idx, t):
    for k in range(idx.shape[0]):
        i = idx[k]
        if x[i] > t:
            x[i] = t


def keep_unless(x, c):
    for i in range(x.shape[0]):
        x[i] = x[i] if c[i] else -x[i]


def count_in_range(idx, counts):
    for k in range(idx.shape[0]):
        b = idx[k]
        if 0 <= b < counts.shape[0]:
            counts[b] += 1


def test_conditional_element_stores_match_numpy():
    from differential import check
    rng = np.random.default_rng(3)
    x = rng.standard_normal(40)
    for idx in (rng.integers(-40, 40, 60), np.zeros(0, dtype=np.int64), np.array([-1])):
        check(cap_at, x, idx, 0.5, backend="native")
    check(keep_unless, x, rng.random(40) < 0.5, backend="native")
    check(keep_unless, x.astype(np.float32)[:1], np.array([False]), backend="native")
    check(count_in_range, rng.integers(-5, 37, 500), np.zeros(32, dtype=np.int64),
          backend="native")
    check(count_in_range, rng.integers(-5, 9, 50).astype(np.int8), np.zeros(4, dtype=np.int32),
          backend="native")


def test_a_checked_index_of_a_conditional_store_is_checked_when_the_store_is_skipped():
    x = np.arange(5.0)
    with pytest.raises(IndexError):
        solvent.jit(cap_at, backend="native")(x, np.array([1, 7]), 10.0)
    np.testing.assert_array_equal(x, np.arange(5.0))
