"""argmax/argmin's blocked first pass (``rules_reduce.ARG_BLOCK``): the extreme of each block,
the first block that beats the extreme so far, then a search of that block only. Lengths
around the block size, the extreme (or a NaN, a tie, a signed zero) in a later block,
strided and run-time lengths, float32/float64/int/uint, one element; NumPy is the oracle."""
import numpy as np
import pytest

from differential import check
from solvent.backends.native.rules_reduce import ARG_BLOCK


def arg_flat(x):
    return np.argmax(x), np.argmin(x)


def arg_axes(x):
    return np.argmax(x, axis=0), np.argmin(x, axis=1), np.argmax(x)


def arg_masked(x):
    y = x[x > 0.1]                     # a run-time length
    return np.argmax(y), np.argmin(y)


LENGTHS = [1, 2, ARG_BLOCK - 1, ARG_BLOCK, ARG_BLOCK + 1, 3 * ARG_BLOCK + 17]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "uint8"])
@pytest.mark.parametrize("n", LENGTHS)
def test_blocked_arg_extremes_match_numpy(dtype, n):
    r = np.random.default_rng(n)
    if dtype.startswith("float"):
        x = r.standard_normal(n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = r.integers(info.min, info.max, n, endpoint=True).astype(dtype)
    check(arg_flat, x, backend="native")
    if n > 2:
        check(arg_flat, x[::2], backend="native")            # strided
        check(arg_flat, x[::-1], backend="native")           # negative stride
        y = x.copy()
        y[-1] = y.max()                                      # a tie in the last block
        y[n // 3] = y.max()
        check(arg_flat, y, backend="native")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_nan_zero_and_infinities_across_blocks(dtype):
    n = 3 * ARG_BLOCK + 5
    r = np.random.default_rng(0)
    x = r.standard_normal(n).astype(dtype)
    x[2 * ARG_BLOCK + 3] = np.inf                            # the max in a later block ...
    x[ARG_BLOCK + 7] = np.nan                                # ... but a NaN before it wins
    x[3 * ARG_BLOCK + 1] = np.nan
    check(arg_flat, x, backend="native")
    z = np.zeros(n, dtype)
    z[ARG_BLOCK + 1] = -0.0                                  # -0.0 == 0.0: index 0 wins
    z[5] = -0.0
    check(arg_flat, z, backend="native")
    check(arg_flat, np.full(n, -np.inf, dtype), backend="native")
    check(arg_flat, np.full(n, np.inf, dtype), backend="native")
    check(arg_flat, np.full(n, np.nan, dtype), backend="native")


def test_axes_and_run_time_lengths_over_several_blocks():
    r = np.random.default_rng(3)
    m = r.standard_normal((2 * ARG_BLOCK + 3, 4))
    check(arg_axes, m, backend="native")
    check(arg_axes, np.asfortranarray(m), backend="native")
    check(arg_masked, r.random(5 * ARG_BLOCK), backend="native")
    check(arg_masked, np.array([0.5]), backend="native")


def test_empty_raises_as_numpy():
    import solvent
    with pytest.raises(ValueError):
        np.argmax(np.zeros(0))
    with pytest.raises(ValueError):
        solvent.jit(arg_flat, backend="native")(np.zeros(0))
