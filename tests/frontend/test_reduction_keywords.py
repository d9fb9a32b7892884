"""``initial=`` and ``where=`` on reductions, positional axes on ufunc methods, and keyword
arguments solvent does not take. Before: the reductions took ``**kw`` and dropped
``initial``/``where`` (``x.max(initial=5.0)`` gave max(x), ``np.sum(x, where=m)`` the whole
sum: silent wrong answers), ``np.add.reduce(x, 1)`` reduced axis 0, and an unknown keyword
surfaced as Python's TypeError without the line. Differential against NumPy on every
backend; float64, float32, int8; empty and one-element axes; Fortran order."""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from solvent.errors import UnsupportedError

from differential import check

BACKENDS = ["native", "xla", "interp"]


def max_min_initial(x):
    return x.max(initial=5.0), np.min(x, initial=-3), np.max(x, axis=0, initial=0.5)


def sum_prod_initial(x):
    return np.sum(x, initial=10), x.prod(axis=-1, initial=2), np.sum(x, axis=0, initial=1.5)


def masked(x):
    m = x > 0.5
    return (np.sum(x, where=m), np.prod(x, axis=1, where=m, keepdims=True),
            np.max(x, axis=0, where=m, initial=-1.0), np.min(x, where=x < 0.9, initial=9),
            np.mean(x, where=m), np.mean(x, axis=1, where=m[0]))


def masked_bool(x):
    m = x > 0.5
    return np.any(x > 0.8, where=m), np.all(x > 0.2, axis=0, where=m)


def ufunc_methods(x):
    return (np.add.reduce(x, 1), np.maximum.reduce(x, axis=None), np.multiply.reduce(x, 0,
            initial=2), np.add.reduce(x, where=x > 0.5), np.add.accumulate(x, 1),
            np.maximum.accumulate(x, 1))


def empty_initial(x):
    return np.max(x, axis=0, initial=-2.0), np.min(x, initial=4.0), np.sum(x, initial=3.0)


def _x(kind, rng):
    x = rng.random((4, 5))
    if kind == "f32":
        return x.astype(np.float32)
    if kind == "i8":
        return (x * 10).astype(np.int8)
    if kind == "fortran":
        return np.asfortranarray(x)
    if kind == "one":
        return x[:1, :1].copy()
    return x


@pytest.mark.filterwarnings("ignore:Mean of empty slice")   # NumPy's, on an all-False mask
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["f64", "f32", "i8", "fortran", "one"])
@pytest.mark.parametrize("fn", [max_min_initial, sum_prod_initial, masked, masked_bool,
                                ufunc_methods])
def test_reduction_keywords_match_numpy(fn, kind, backend):
    x = _x(kind, np.random.default_rng(len(kind)))
    if fn is masked and kind == "i8":
        x = x.astype(np.float64) / 10    # the masks compare with 0.5
    check(fn, x, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_initial_makes_an_empty_max_valid(backend):
    check(empty_initial, np.zeros((0, 3)), backend=backend)
    check(empty_initial, np.zeros((0, 3), np.float32), backend=backend)


def masked_max_without_initial(x):
    return np.max(x, where=x > 0)


def std_where(x):
    return np.std(x, where=x > 0)


def clip_where(x):
    return np.clip(x, 0.1, 0.2, where=x > 0)


def _line_of(fn, text):
    import inspect
    src, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(src) if text in s)


def test_max_with_a_mask_and_no_initial_is_numpys_error():
    with pytest.raises(ValueError, match="does not have an identity") as e:
        np.max(np.ones(3), where=np.ones(3, bool))
    with pytest.raises(ValueError, match="does not have an identity") as e:
        solvent.jit(masked_max_without_initial)(np.ones(3))
    assert f":{_line_of(masked_max_without_initial, 'np.max')}:" in str(e.value)


@pytest.mark.parametrize("fn,word", [(std_where, "where"), (clip_where, "where")])
def test_a_keyword_solvent_does_not_take_is_refused_with_the_line(fn, word):
    with pytest.raises(UnsupportedError, match=word) as e:
        solvent.jit(fn)(np.ones(3))
    assert f":{_line_of(fn, word + '=')}:" in str(e.value)


def cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True), np.linalg.cholesky(a)


@pytest.mark.parametrize("backend", ["xla", "interp", "native"])
def test_cholesky_upper_is_the_transposed_factor(backend):
    r = np.random.default_rng(0).random((4, 4))
    a = r @ r.T + 4 * np.eye(4)
    check(cholesky_upper, a, backend=backend)
    check(cholesky_upper, a.astype(np.float32), backend=backend)


def initial_first(init, x):
    """A stranger's call: the initial value a run-time scalar argument, before the array."""
    return np.sum(x, initial=init), np.max(x, axis=0, initial=init), x.min(initial=init, axis=1)


def masked_and_positional(x):
    return np.sum(x, where=x.real > 0.5), np.prod(x, axis=0, initial=2), np.add.reduce(x, 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar_initial_first_and_other_dtypes(backend):
    x = np.random.default_rng(11).random((4, 6))
    check(initial_first, 0.7, x, backend=backend)
    check(initial_first, 3, (x * 9).astype(np.uint8), backend=backend)
    check(initial_first, 0.7, x[::2, ::-1], backend=backend)
    check(initial_first, np.float32(0.6), np.asfortranarray(x.astype(np.float32)),
          backend=backend)
    for y in ((x * 9).astype(np.uint8), x[:, :0], x[:1, :1]):
        check(masked_and_positional, y, backend=backend)
    if backend != "native":   # native refuses complex reductions (auto picks XLA)
        check(masked_and_positional, (x + 1j * x[::-1]).astype(np.complex64), backend=backend)
