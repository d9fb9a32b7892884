"""A write into a temporary array (``a.reshape(-1)[2] = 9`` of a Fortran-ordered array, where
NumPy's reshape copies and the write reaches nothing) is refused naming what it is; it said
'assignment into a value that is not an array variable' (s26 failure probe). Where NumPy's
reshape is a view (C order) the write reaches the caller's array."""
import numpy as np
import pytest

import solvent


def write_through_reshape(a):
    a.reshape(-1)[2] = 9.0
    return a


def test_a_write_into_a_copy_is_refused_as_one():
    f = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(solvent.UnsupportedError, match="temporary array"):
        solvent.jit(write_through_reshape, backend="interp")(f)


def test_a_write_through_a_view_reaches_the_array():
    c = np.arange(6.0).reshape(2, 3)
    got = solvent.jit(write_through_reshape, backend="interp")(c)
    np.testing.assert_array_equal(c, write_through_reshape(np.arange(6.0).reshape(2, 3)))
    assert got is c
