"""Element accesses Python makes only under a condition stay safe on the native backend
after if-conversion or the frontend made them unconditional: no IndexError for an index the
program never uses (found by solvent/simt's kernels, whose partial blocks guard every
access)."""
import re

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


# a guarded scalar read that if-conversion made select(c, x[i], y) is read in a branch where
# the select takes it (rules_index.guarded_read): same values, the read no longer clamped
# where the guard holds
def tile_load(A, out):
    # a kernel's guarded tile copy: rows and columns past A's edges read as 0
    for t in range(3):
        for ty in range(4):
            for tx in range(4):
                a = 0.0
                if 4 * t + ty < A.shape[0] and 4 * t + tx < A.shape[1]:
                    a = A[4 * t + ty, 4 * t + tx]
                out[t, ty, tx] = a


def read_in_the_else_branch(x, out):
    s = 0.0   # a recurrence: the loop stays a scalar loop (not raised)
    for i in range(out.size):
        s = 0.5 * s + (-1.0 if i >= x.size else x[i])
        out[i] = s


def negative_indices_under_the_guard(x, out):
    s = 0.0
    for i in range(-x.size, x.size + 3):
        v = 0.5
        if i < x.size:
            v = x[i]
        s = 0.5 * s + v
        out[i + x.size] = s


@pytest.mark.parametrize("fn, args", [
    (tile_load, lambda: (np.arange(1.0, 31.0).reshape(5, 6), np.zeros((3, 4, 4)))),
    (tile_load, lambda: (np.arange(1.0, 2.0).reshape(1, 1), np.zeros((3, 4, 4)))),
    (read_in_the_else_branch, lambda: (np.arange(1.0, 8.0), np.zeros(11))),
    (negative_indices_under_the_guard, lambda: (np.arange(1.0, 6.0), np.zeros(13)))])
def test_guarded_reads_are_read_in_a_branch(fn, args):
    want, got = args(), args()
    fn(*want)
    f = solvent.jit(fn, backend="native")
    f(*got)
    np.testing.assert_array_equal(got[-1], want[-1])
    exe = f.compile(list(got)).executable
    if fn is not tile_load:   # (raised: whole-array ops, no scalar read left)
        # the read's value where the select takes it
        assert re.search(r"= phi +double", exe.llvm_ir)
