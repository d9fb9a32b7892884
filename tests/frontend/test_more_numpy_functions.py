"""NumPy functions and builtins met in code written elsewhere: n-dimensional FFTs,
np.block, np.heaviside, np.ix_, np.place, histogram weights/density/edges and empty data, histogram2d, partition, interp's
left/right/period, and range/zip/enumerate/hasattr/can_cast outside a for header."""
from collections import namedtuple

import numpy as np
import pytest

import solvent

from differential import case, check, run_cases

rng = np.random.default_rng(21)
A = rng.random((3, 3))
M = rng.random((4, 6))
T = rng.random((2, 3, 4))
V = rng.random(40)
Pt = namedtuple("Pt", "x y")


def ffts(m, t):
    return (np.fft.fft2(m), np.fft.ifft2(m), np.fft.rfft2(m), np.fft.irfft2(np.fft.rfft2(m), s=m.shape),
            np.fft.fftn(m, axes=(0,)), np.fft.fftn(m, s=(4, 6)), np.fft.rfftn(t),
            np.fft.ifftn(t, axes=(2, 0)))


def blocks(a, v):
    return (np.block([[a, a], [a, a]]), np.block([v, v]), np.block([[v], [v]]),
            np.block([[a, np.zeros((3, 1))], [np.ones((1, 3)), 1.0]]))


def heavisides(x):
    return (np.heaviside(x - 0.5, 0.5), np.heaviside(x.astype(np.float32), 1.0),
            np.heaviside(np.array([np.nan, 0.0, -0.0]), 2.0), np.heaviside(0.0, 3.0))


def open_mesh(a):
    i, j = np.ix_([0, 2], [1, 2])
    return a[np.ix_([0, 2], [1, 2])], i + j


def place_cycled(a):
    b = a.copy()
    np.place(b, b > 0.5, [10.0, 20.0])
    return b


def histograms(x, w):
    return (np.histogram(x, bins=5, weights=w), np.histogram(x, bins=4, range=(0, 1), density=True),
            np.histogram(x, bins=np.array([0.0, 0.1, 0.5, 1.0])),
            np.histogram(x.astype(np.float32), 3, weights=w.astype(np.float32)))


def interps(x, xp, fp):
    return (np.interp(x, xp, fp, period=360), np.interp(x, xp, fp, left=-1, right=-2),
            np.interp(x, xp[::-1], fp, period=-360.0))


def builtins_static(a, p):
    return (tuple(range(3)), len(range(2, 10, 3)), list(range(a.ndim)),
            [a[i] * 2 for i in range(2)], tuple(zip((1, 2, 3), ("a", "b"))),
            [k * v for k, v in enumerate((a[0, 0], a[1, 1]), 1)],
            hasattr(np, "fft"), hasattr(a, "shape"), hasattr(p, "x"), hasattr(a, "nope"),
            np.can_cast(a.dtype, np.float32), np.can_cast(a, np.complex64),
            np.can_cast(np.int8, a.dtype))


def divmods(a, b):
    return np.divmod(a, b), np.divmod(a, 3), np.divmod(a.astype(np.float32), b)


def _branchy(v):
    if v > 0.5:
        return v * 2
    return np.sin(v)


def _times(a, b):
    return a * b + 1


VEC = np.vectorize(_branchy)
VEC32 = np.vectorize(_branchy, otypes=[np.float32])
VEC2 = np.vectorize(_times)


def vectorized(x):
    """np.vectorize: the Python function once per element (its if on a scalar), the dtype
    of the first result or of otypes, broadcasting, a scalar in gives a scalar out."""
    return VEC(x), VEC32(x), VEC2(x, 2), VEC2(x[:, None], x[None, :2]), VEC(0.7)


def along_axis(a, t):
    return (np.apply_along_axis(np.sum, 1, a), np.apply_along_axis(lambda r: r[::-1] * 2, 0, a),
            np.apply_along_axis(np.cumsum, -1, a), np.apply_along_axis(lambda r: np.outer(r, r), 1, t))


def histograms_2d(x, y, w):
    return (np.histogram2d(x, y, bins=4), np.histogram2d(x, y, bins=[3, 5], range=[[0, 1], [0.2, 0.8]]),
            np.histogram2d(x, y, bins=np.array([0, 0.1, 0.5, 1.0])),
            np.histogram2d(x, y, bins=3, weights=w, density=True),
            np.histogram2d(x[:0], y[:0], bins=2), np.histogram(x[:0]))


def partitions(x, a):
    # what NumPy promises: the kth element in place, the smaller ones before it (as a set)
    p, q = np.partition(x, 3), np.partition(a, 1, axis=0)
    return (p[3], np.sort(p[:3]), np.sort(x[np.argpartition(x, 3)[:3]]), q[1],
            a[np.arange(a.shape[0]), np.argpartition(a, 2)[:, 2]], np.partition(a, 4, axis=None)[4])


cases = [
    case(partitions, V[:11], M),
    case(partitions, (V[:11] * 10).astype(np.int8), np.asfortranarray(M)),
    case(vectorized, np.linspace(0, 1, 7)),
    case(along_axis, np.arange(6.0).reshape(2, 3), np.arange(24.0).reshape(2, 3, 4)),
    case(ffts, M, T),
    case(divmods, np.array([-7, 7, -8, 5]), np.array([2, -2, 3, -3])),
    case(blocks, A, V[:3]),
    case(heavisides, V[:6]),
    case(open_mesh, A),
    case(place_cycled, A),
    case(histograms, V, 2 * V),
    case(histograms_2d, np.append(V[:20], 1.0), np.append(V[20:], V.max()), V[:21]),
    case(histograms_2d, np.arange(12) % 5, np.arange(12) % 3, V[:12].astype(np.float32)),
    case(interps, np.array([-10.0, 5.0, 370.0, 180.0]), np.array([0.0, 90.0, 180.0, 270.0]),
         np.array([1.0, 2.0, 3.0, 4.0])),
    case(builtins_static, A, Pt(1.0, 2.0)),
]

test_more_functions = run_cases(cases)


def place_into_ints(a):
    np.place(a, a % 2 == 0, np.array([7.9]))
    return a


def test_place_refuses_an_unsafe_cast_as_numpy_does():
    a = np.arange(6)
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        solvent.jit(place_into_ints)(a)
    np.testing.assert_array_equal(a, np.arange(6))   # nothing written


def histogram_estimator(x):
    return np.histogram(x, bins="auto")


def test_histogram_bin_estimators_are_refused_with_the_line():
    with pytest.raises(NotImplementedError, match="test_more_numpy_functions.py:\\d+.*auto"):
        solvent.jit(histogram_estimator)(V)
