"""Views follow NumPy's copy-or-view rule on the caller's actual memory layout (issue 7
item 3): ravel/reshape/flatten/.T of C-ordered, Fortran-ordered, stepped, reversed and
column-sliced arguments, with writes through the result. The layout is part of the cache key."""
import numpy as np
import pytest

import solvent
from differential import check


def _layouts():
    base = np.arange(24.0).reshape(4, 6)
    return {
        "C": base[:2, :3].copy(),
        "F": np.asfortranarray(base[:2, :3]),
        "step": base[:2, ::2],                 # evenly strided: reshape(-1) is a view, ravel copies
        "reversed": base[:2, ::-2],
        "column": base[:, :1],
        "rows": base[1:3, :],                  # C-contiguous rows of a bigger array
        "F-step": np.asfortranarray(base)[::2, 1:4],
    }


LAYOUTS = _layouts()


def ravel_write(A):
    r = A.ravel()
    r[0] = 99.0
    return r


def reshape_write(A):
    r = A.reshape(-1)
    r[1] = 77.0
    return r.sum()


def transpose_ravel_write(A):
    r = A.T.ravel()
    r[0] = 5.0
    return r


def transpose_reshape_write(A):
    r = A.T.reshape(A.size)
    r[-1] = -1.0


def flatten_write(A):
    r = A.flatten()
    r[0] = 3.0
    return r


def reshape_2d_write(A):
    r = A.reshape(A.shape[1], A.shape[0])
    r[0, -1] = 11.0
    return r


def returns_ravel(A):
    return A.ravel(), A.reshape(-1), A.T


KERNELS = [ravel_write, reshape_write, transpose_ravel_write, transpose_reshape_write,
           flatten_write, reshape_2d_write, returns_ravel]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("fn", KERNELS, ids=lambda f: f.__name__)
def test_view_or_copy_follows_the_layout(fn, layout, backend):
    check(fn, LAYOUTS[layout], backend=backend)


def test_same_shape_other_layout_compiles_a_new_version():
    f = solvent.jit(ravel_write)
    C, F = LAYOUTS["C"].copy(), np.asfortranarray(LAYOUTS["C"])
    f(C)
    f(F)
    assert len(f._cache) == 2
    assert C[0, 0] == 99.0 and F[0, 0] == 0.0   # ravel of F is a copy, as in NumPy


def test_ravel_with_another_order_is_refused_with_the_line():
    def f(A):
        return A.ravel(order="F")
    with pytest.raises(solvent.UnsupportedError, match=r"test_layout.py:\d+:\d+: ravel\(order='F'\)"):
        solvent.jit(f)(np.ones((2, 2)))
