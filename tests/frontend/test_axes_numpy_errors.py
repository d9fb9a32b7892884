"""Axes that do not fit the array raise NumPy's errors (s26 failure probe): ``a.transpose(1,
0)`` of a vector and ``np.swapaxes(a, 0, 3)`` of a matrix were compiled (the axes taken modulo
the rank) and returned an array where NumPy raises; ``squeeze`` of a longer axis gave the
reshape's message."""
import numpy as np
import pytest

import solvent


def transpose_of_vector(a):
    return a.transpose(1, 0)


def transpose_short(a):
    return np.transpose(a, (1,))


def transpose_repeated(a):
    return a.transpose(0, 0)


def transpose_axis_past_rank(a):
    return a.transpose(0, 2)


def swapaxes_past_rank(a):
    return np.swapaxes(a, 0, 3)


def swapaxes_first_past_rank(a):
    return a.swapaxes(-3, 0)


def squeeze_longer_axis(a):
    return a.squeeze(0)


def squeeze_axis_past_rank(a):
    return a.squeeze(5)


def transpose_negative(a):
    return np.transpose(a, (-1, -2)) + np.swapaxes(a, -1, 0)


@pytest.mark.parametrize("fn,x", [
    (transpose_of_vector, np.ones(3)), (transpose_short, np.ones((2, 3))),
    (transpose_repeated, np.ones((2, 3))), (transpose_axis_past_rank, np.ones((2, 3))),
    (swapaxes_past_rank, np.ones((2, 3))), (swapaxes_first_past_rank, np.ones((2, 3))),
    (squeeze_longer_axis, np.ones((2, 3))), (squeeze_axis_past_rank, np.ones((2, 3))),
])
def test_axes_that_do_not_fit_raise_numpys_error(fn, x):
    with pytest.raises(Exception) as want:
        fn(x)
    with pytest.raises(type(want.value)) as got:
        solvent.jit(fn, backend="interp")(x)
    assert type(got.value) is type(want.value)
    assert str(want.value) in str(got.value)
    assert "test_axes_numpy_errors.py:" in str(got.value)


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_axes_that_fit_still_work(backend):
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(solvent.jit(transpose_negative, backend=backend)(
        np.arange(9.0).reshape(3, 3)), transpose_negative(np.arange(9.0).reshape(3, 3)))
    np.testing.assert_array_equal(solvent.jit(squeeze_longer_axis, backend=backend)(x[None]), x)
