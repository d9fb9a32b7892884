"""Lists assigned by index (frontend/list_items.py): ``counts = [0] * nbins`` and
``counts[k] += 1``, accumulator lists, lists made before a loop, a while loop or nested loops
that assign into them; against Python+NumPy on the same source, on every backend. Were
refused ("assignment into a value that is not an array variable"), and ``[0.0] * n`` with
``n`` an integer argument gave ``[0.0]`` (elementwise ``*``), ``[0] * 3`` a tuple, and
``[a, b] == [c, d]`` an array: silent wrong answers, fixed with it."""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from differential import assert_same_result
from solvent.errors import UnsupportedError

BACKENDS = ["native", "xla", "interp"]


def int_histogram(vals, nb):
    h = [0] * nb
    for v in vals:
        h[v % nb] += 1
    return h


def parity_sums(x):
    s = [0.0, 0.0]
    for i in range(len(x)):
        s[i % 2] += x[i]
    s[0] = s[0] * 2
    return s, np.array(s), len(s), sum(s)


def nested_counts(x):
    c = [0] * 4
    for i in range(2):
        for j in range(len(x)):
            if x[j] > i:
                c[j % 4] += 1
    return c


def while_counts(x):
    c = [0, 0]
    i = 0
    while i < len(x):
        c[int(x[i]) % 2] += 1
        i += 1
    return c


def zeros_list(n):
    z = [0.0] * n
    return np.array(z), len(z)


def list_equality(x):
    a = [x[0], x[1]]
    return a == [x[0], x[1]], a != [x[1], x[0]], [x[0]] == [x[0], x[0]]


def repeat_then_concat(x):
    t = [x[0]] * 2 + [x[1]]
    return np.array(t), len([1, 2] * 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_lists_assigned_by_index(backend):
    rng = np.random.default_rng(8)
    cases = [(int_histogram, (rng.integers(0, 50, 20), 7)),
             (int_histogram, (np.array([3, 7, 1], np.int8), 1)),
             (parity_sums, (rng.standard_normal(7),)),
             (parity_sums, (rng.standard_normal(6)[::-1],)),
             (nested_counts, (np.asfortranarray(rng.random((2, 3)) * 3)[:, 0],)),
             (while_counts, (np.arange(7.0),)),
             (zeros_list, (0,)), (zeros_list, (5,)),
             (list_equality, (np.array([1.0, 2.0]),)), (list_equality, (np.array([2, 2]),)),
             (repeat_then_concat, (np.array([4, 5], np.uint8),))]
    for fn, args in cases:
        # (items Python holds as np.float64 come back as Python floats: equal values)
        assert_same_result(solvent.jit(fn, backend=backend)(*args), fn(*args),
                           scalar_types=False)


def float_into_int_list(x):
    h = [0] * 3
    h[0] = x[0]
    return h


def appended_and_assigned(x):
    h = [0.0] * 2
    h[0] = x[0]
    h.append(1.0)
    return h


def list_plus(x):
    h = [0.0] * 2
    h[1] = x[0]
    return h + [1.0]


def run_time_repeat(x):
    return np.array([0.0] * int(x[0]))


@pytest.mark.parametrize("fn,what", [
    (float_into_int_list, "storing a float64 value into a list of int64"),
    (appended_and_assigned, "appending to a list whose items are also assigned"),
    (list_plus, "operator Add on a list"),
    (run_time_repeat, "list repetition count must be known at compile time")])
def test_refusals_name_the_line(fn, what):
    with pytest.raises(UnsupportedError, match=r"test_list_items.py:\d+") as e:
        solvent.jit(fn)(np.array([2.5, 1.0]))
    assert what in str(e.value)
