"""List comprehensions and generator expressions (frontend/comprehensions.py), and the
builtins that consume them (sum, max, min, any, all, tuple, list), against NumPy."""
import numpy as np
import pytest

import solvent
from differential import check


def weighted_sum(x):
    return sum(x[i] * (i + 1) for i in range(x.shape[0]))


def row_sums(A):
    return np.array([A[i].sum() for i in range(A.shape[0])])


def zip_max_min(x, w):
    return max(a * b for a, b in zip(x, w)), min(v for v in x)


def scaled_rows(A):
    return np.stack([r * k for k, r in enumerate(A, 1)])


def any_all(x):
    return any(v > 0.5 for v in x), all(v > -5 for v in x), any(()), all([])


def even_items(x):
    return tuple(x[i] for i in range(0, 4, 2) if i != 2), list(x[:2])


def returns_lists(x):
    return [v ** 2 for v in (1, 2, 3)], [x[k] * 2 for k in range(2)], tuple(x.shape), \
        [[k, k + 1] for k in range(2)]     # a list of lists stays one (it came back tuples)


def writes_through_rows(A):
    [r.fill(k) for k, r in enumerate(A)]       # rows are views, as NumPy iterates
    return A


def _args(n):
    rng = np.random.default_rng(n)
    return {
        weighted_sum: [(rng.standard_normal(n + 1)[::-1],), (np.arange(n + 1, dtype=np.int8),)],
        row_sums: [(np.asfortranarray(rng.standard_normal((n, 3)).astype(np.float32)),)],
        zip_max_min: [(rng.standard_normal(n + 1), rng.standard_normal(n + 2))],
        scaled_rows: [(rng.standard_normal((n, 2)),)],
        any_all: [(rng.standard_normal(n + 1),), (np.zeros(n + 1, np.int8),)],
        even_items: [(rng.standard_normal(5).astype(np.complex64),)],
        returns_lists: [(rng.standard_normal(n + 2),)],
        writes_through_rows: [(np.zeros((n, 3), np.int16),)],
    }


@pytest.mark.parametrize("backend", ["xla", "native", "interp", None])
@pytest.mark.parametrize("n", [1, 6])
@pytest.mark.parametrize("fn", list(_args(1)), ids=lambda f: f.__name__)
def test_comprehensions_match_numpy(fn, n, backend):
    for args in _args(n)[fn]:
        if backend == "native" and any(getattr(a, "dtype", None) == np.complex64 for a in args):
            continue   # the native backend refuses complex arrays (issue 8)
        check(fn, *args, backend=backend)


def sum_positive(x):
    return sum(x[i] for i in range(x.shape[0]) if x[i] > 0)


def tails(x, n):
    return sum(x[k] for k in range(n, 3))


def nested(A):
    return [a * b for a in A[0] for b in A[1]]


def too_many(x):
    return sum(x[i] * j for i in range(20) for j in range(20))


def neighbours(g):
    """Conway's neighbour count as people write it: nested clauses with a filter."""
    return sum(np.roll(np.roll(g, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1)
               if (i, j) != (0, 0))


def dependent_clauses(x):
    return [x[i] + x[j] for i in range(4) for j in range(i) if j != 1]


@pytest.mark.parametrize("backend", ["native", "xla", "interp"])
def test_several_for_clauses_nest_as_python_does(backend):
    rng = np.random.default_rng(0)
    check(nested, rng.random((2, 3)), backend=backend)
    check(neighbours, (rng.random((6, 7)) > 0.5).astype(np.int8), backend=backend)
    check(dependent_clauses, rng.random(4), backend=backend)


@pytest.mark.parametrize("fn,args,words", [
    (sum_positive, (np.ones(3),), "depends on run-time values"),
    (tails, (np.ones(3), 1.5), "run-time"),
    (too_many, (np.ones(20),), "more than 256 items"),
])
def test_refusals_name_the_line(fn, args, words):
    with pytest.raises((solvent.UnsupportedError, TypeError)) as e:
        solvent.jit(fn)(*args)
    assert words in str(e.value) and "test_comprehensions.py:" in str(e.value)
