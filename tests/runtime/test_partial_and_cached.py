"""functools in code written elsewhere: solvent.jit of a functools.partial, and partials and
@functools.cache / lru_cache helpers called inside a compiled function."""
import functools

import numpy as np
import pytest

import solvent


def affine(x, alpha=1.0, n=2):
    return x * alpha + n


@functools.lru_cache(maxsize=None)
def coef(n):
    return n * 2


@functools.cache
def offset(k):
    return k + 0.5


SCALED = functools.partial(affine, alpha=3.0)
HOLDS_ARRAY = functools.partial(affine, np.ones(3))


def uses_helpers(x):
    return SCALED(x, n=1) + coef(3) * offset(1)


def uses_partial_with_array(x):
    return HOLDS_ARRAY(alpha=2.0) + x


X = np.arange(4.0)


def test_jit_of_a_partial_calls_the_function_with_its_arguments_first():
    pj = solvent.jit(functools.partial(affine, n=5))
    np.testing.assert_array_equal(pj(X, alpha=2.0), affine(X, alpha=2.0, n=5))
    np.testing.assert_array_equal(pj(X), affine(X, n=5))
    assert "affine" in pj.explain(X)
    pos = solvent.jit(functools.partial(affine, X))
    np.testing.assert_array_equal(pos(0.5, 3), affine(X, 0.5, 3))


def test_partials_and_cached_helpers_inside_are_inlined():
    np.testing.assert_array_equal(solvent.jit(uses_helpers)(X), uses_helpers(X))


def test_a_partial_holding_an_array_inside_is_refused_with_the_line():
    with pytest.raises(solvent.UnsupportedError, match="test_partial_and_cached.py:\\d+.*partial"):
        solvent.jit(uses_partial_with_array)(X)
