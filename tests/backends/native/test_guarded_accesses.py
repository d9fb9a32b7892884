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
