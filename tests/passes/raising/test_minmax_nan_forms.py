"""Max/min loops written so that the new value is taken when the comparison is false.

``m = max(x[i], m)`` is ``m if m > x[i] else x[i]``: a NaN ``x[i]`` is taken, and the next
value replaces the NaN (``NaN > v`` is false), so the loop's answer is the max of what
follows the last NaN. No reordered max/min gives that; such a float loop is not a
reduction and stays a loop (``if x[i] > m: m = x[i]``, which never takes a NaN, still
raises).
"""
import math

import numpy as np
import pytest

from differential import check
from solvent.analysis.explain import explain_loops

NANS = np.array([1.0, np.nan, 3.0, 0.5])
BACKENDS = ("xla", "native", "interp")


def min_x_first(a):
    m = math.inf
    for i in range(a.shape[0]):
        m = min(a[i], m)
    return m


def max_x_first(a):
    m = -math.inf
    for i in range(a.shape[0]):
        m = max(a[i], m)
    return m


def max_else_form(a):
    m = a[0]
    for i in range(a.shape[0]):
        if m >= a[i]:
            pass
        else:
            m = a[i]
    return m


def max_new_first(a):
    m = -math.inf
    for i in range(a.shape[0]):
        m = max(m, a[i])
    return m


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [min_x_first, max_x_first, max_else_form])
def test_a_nan_taken_then_replaced_gives_pythons_answer(fn, backend):
    got = check(fn, NANS, backend=backend)   # Python: 0.5, 3.0, 3.0
    assert not np.isnan(got)


def test_only_the_form_that_never_takes_a_nan_is_a_reduction():
    why = explain_loops(min_x_first, NANS)
    assert "not raised" in why and "takes a NaN and then the next value" in why
    assert "raised (reduction)" in explain_loops(max_new_first, NANS)
    # integers have no NaN: this form stays a reduction
    assert "raised (reduction)" in explain_loops(min_x_first_int, np.array([4, 1, 3]))


def min_x_first_int(a):
    m = a[0]
    for i in range(a.shape[0]):
        m = min(a[i], m)
    return m
