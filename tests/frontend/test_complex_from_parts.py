"""complex(re, im), ``z.real = v``, ``z.imag[k] = v`` and ``z.imag *= s`` build complex
numbers from their parts exactly (``tensor.complex``), as Python and NumPy do: an infinite or
NaN part and a -0.0 stay where they are written. Before, ``complex(1.0, inf)`` was computed
as ``1.0 + inf*1j`` = ``nan+infj`` (a silent wrong answer) and ``z.real = v`` was refused."""
from __future__ import annotations

import numpy as np
import pytest

import solvent

BACKENDS = ("native", "xla", "interp")
INF, NAN = np.inf, np.nan


def from_parts(x, y):
    out = np.empty(x.shape, np.complex128)
    for i in range(x.shape[0]):
        out[i] = complex(x[i], y[i])
    return out


def from_complex_parts(a, b):
    out = np.zeros(a.shape, np.complex128)
    for i in range(a.shape[0]):
        out[i] = complex(a[i], b[i])       # CPython: (a.real - b.imag) + (a.imag + b.real)j
    return out


def set_real(z, v):
    z.real = v
    return z


def scale_parts(z, s):
    z.imag *= s
    z.real += 1


def part_slices(z, v):
    w = z.copy()
    w.imag[1:] = v[1:]
    w.real[0] = 5.0
    return w


def conj_scaled(s, z):                # a scalar before the array, a C-style loop
    n = z.shape[0]
    for i in range(n):
        z[i] = complex(z[i].real * s, -z[i].imag)
    return z


def set_imag_of_real(x, v):
    x.imag = v
    return x


Z = np.array([1 + 2j, 3 - 1j, complex(NAN, 1), complex(0, -0.0)])
V = np.array([INF, -0.0, 2.0, -INF])
ZF = np.asfortranarray(np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64))

CASES = [
    (from_parts, lambda: (np.array([1.0, INF, 2.0, NAN, 0.0]),
                          np.array([INF, 1.0, -INF, 0.0, -0.0]))),
    (from_parts, lambda: (np.zeros(0), np.zeros(0))),
    (from_complex_parts, lambda: (np.array([1 + 1j, 2 + 0j]), np.array([1j, complex(INF, 0)]))),
    (set_real, lambda: (Z.copy(), V.copy())),
    (set_real, lambda: (Z.copy(), 2.5)),
    (set_real, lambda: (np.array([1, 2], np.int8), np.array([3, 4]))),   # .real of a real array
    (scale_parts, lambda: (ZF.copy(order="K"), 2.0)),
    (scale_parts, lambda: (Z.copy()[::2], 3.0)),
    (part_slices, lambda: (Z.copy(), V.copy())),
    (conj_scaled, lambda: (2.0, Z.copy())),
    (conj_scaled, lambda: (2, np.array([1 + 1j], np.complex64))),
]
JITS = {(fn, b): solvent.jit(fn, backend=b) for fn, _ in CASES for b in BACKENDS}


def _same(got, want):
    """Equal bit for bit where it matters: NaN equals NaN, and the sign of a zero part."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(CASES)), ids=lambda k: f"{CASES[k][0].__name__}-{k}")
def test_parts_go_in_exactly(case, backend):
    fn, make = CASES[case]
    want_args, got_args = make(), make()
    with np.errstate(all="ignore"):
        want = fn(*want_args)
    got = JITS[fn, backend](*got_args)
    if want is not None:
        _same(got, want)
    for g, w in zip(got_args, want_args):        # written back into the caller's arrays
        if isinstance(w, np.ndarray):
            _same(g, w)


def test_complex_of_inf_is_not_nan():
    x, y = np.array([1.0]), np.array([INF])
    assert 1.0 + INF * 1j != complex(1.0, INF)          # why the exact op is needed
    assert JITS[from_parts, "native"](x, y)[0] == complex(1.0, INF)


@pytest.mark.parametrize("backend", BACKENDS)
def test_imag_of_a_real_array_cannot_be_set(backend):
    with pytest.raises(TypeError, match="does not have imaginary part to set.*"):
        solvent.jit(set_imag_of_real, backend=backend)(np.ones(2), 1.0)
    with pytest.raises(TypeError, match="does not have imaginary part to set"):
        set_imag_of_real(np.ones(2), 1.0)
