"""A list or tuple item picked by a run-time index out of range raises Python's IndexError
('list index out of range', 'tuple index out of range') with the line, not the message of the
array solvent stacks the items into (s26 failure probe)."""
import numpy as np
import pytest

import solvent


def pick(a, k):
    items = [1, 2, 3]
    pair = (4.0, 5.0)
    a[0] = items[k] + pair[k - 1]
    return a


@pytest.mark.parametrize("backend", ["interp", "native", "xla"])
@pytest.mark.parametrize("k", [0, 2, -3, 3, -4])
def test_a_sequence_index_out_of_range_says_what_python_says(k, backend):
    a = np.zeros(3)
    try:
        want = pick(np.zeros(3), k)
    except IndexError as e:
        with pytest.raises(IndexError, match=r"test_sequence_index_errors.py:\d+:\d+: "
                           + str(e) + "$"):
            solvent.jit(pick, backend=backend)(a, k)
        np.testing.assert_array_equal(a, np.zeros(3))
        return
    np.testing.assert_array_equal(solvent.jit(pick, backend=backend)(a, k), want)
