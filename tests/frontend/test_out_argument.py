"""``out=`` on NumPy functions (not only ufuncs): the result is written into the caller's array
and that array is returned, as NumPy does. Every function whose translation takes ``out``
shares one rule (Translator.write_out); before it the value was computed and ``out`` left
untouched, a silent wrong answer. Differential against NumPy at two sizes, in-place effects
included, with Fortran-ordered and float32 outputs.
"""
from __future__ import annotations

import numpy as np
import pytest

from differential import check, jitted


def sum_into(a, o):
    return np.sum(a, axis=0, out=o)     # the caller's o itself (check compares identity)


def clip_in_place(lo, hi, a):
    np.clip(a, lo, hi, out=a)
    return a


def dot_into(a, o):
    np.dot(a, a.T, out=o)


def mean_max_into(a, m, x):
    np.mean(a, axis=1, out=m)
    np.max(a, axis=1, out=x)
    return m.sum() + x.sum()


def cumsum_outer_into(a, c, p):
    np.cumsum(a, axis=0, out=c)
    np.outer(a[0], a[-1], out=p)


@pytest.mark.parametrize("n", [3, 17])
def test_out_is_written_and_returned(n, backend):
    rng = np.random.default_rng(n)
    a = np.asfortranarray(rng.standard_normal((n, n + 1)))
    check(sum_into, a, np.zeros(n + 1), backend=backend)
    check(sum_into, a, np.zeros(n + 1, np.float32), backend=backend)    # same_kind cast
    check(clip_in_place, -0.5, 0.5, a, backend=backend)
    check(dot_into, a, np.zeros((n, n)), backend=backend)   # NumPy wants a C-ordered out
    check(mean_max_into, a, np.zeros(n), np.zeros(n), backend=backend)
    check(cumsum_outer_into, a, np.zeros((n, n + 1)), np.zeros((n + 1, n + 1)),
          backend=backend)


def test_out_of_the_wrong_shape_raises_with_the_line(backend):
    with pytest.raises(ValueError, match="output array has shape") as e:
        jitted(sum_into, backend)(np.ones((3, 4)), np.zeros(3))
    assert "test_out_argument.py" in str(e.value)
