"""A loop lowered with early returns returns at each check as value, not only at its yield
(backends/native/error_exit.exit_at_check): what follows the check knows it held.

histogram_loops' bin index ``math.floor(v)`` is checked for NaN, infinity and int64 range;
returning at the check, the conversion to int64 keeps no clamp (``select(in range,
fptosi(...), INT64_MIN)``). The errors stay the first failure in program order, with
Python's message and the line."""
import math

import numpy as np
import pytest

import solvent
from solvent.corpus import histogram_loops


@pytest.fixture(scope="module")
def hist():
    return solvent.jit(histogram_loops.kernel, backend="native")


def test_no_clamp_left_on_the_bin_index(hist):
    args = histogram_loops.make_args(3, np.random.default_rng(0))
    text = hist.compile(list(args)).executable.comp.optimized_ir
    body = text[text.find("define"):]
    assert "fptosi" in body
    assert not [ln for ln in body.splitlines()
                if "select" in ln and "-9223372036854775808" in ln]


@pytest.mark.parametrize("bad", [[(5, math.nan)], [(6, math.inf), (8, math.nan)],
                                 [(3, -math.inf)], [(0, 1e10), (2, math.nan)], []])
def test_errors_and_results_match_python(hist, bad):
    nbins, lo, hi, x = histogram_loops.make_args(3, np.random.default_rng(1))
    for i, v in bad:
        x[i] = v
    try:
        want = histogram_loops.kernel(nbins, lo, hi, x.copy())
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e)) as got:
            hist(nbins, lo, hi, x)
        assert str(got.value).endswith(": " + str(e)) or str(e) in str(got.value)
        assert "histogram_loops.py:19:" in str(got.value)
        return
    np.testing.assert_array_equal(hist(nbins, lo, hi, x), want)
