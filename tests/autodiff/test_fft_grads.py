"""Gradients through the Fourier transforms and complex intermediates (``rules_complex``):
finite differences of the plain NumPy function and the dot-product test, for fft/ifft/
rfft/irfft with ``n`` equal to, shorter and longer than the input, along either axis."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
from op_samples import T, func  # noqa: E402
import solvent  # noqa: E402
from solvent.autodiff import vjp_function  # noqa: E402
from solvent.backends import get_backend  # noqa: E402


def power(x, w):
    return np.sum(np.abs(np.fft.fft(x)) ** 2 * w)


def filtered(x, h):
    """Convolution by a spectrum: rfft, a complex product, irfft."""
    return np.sum(np.fft.irfft(np.fft.rfft(x) * h, x.shape[0]) ** 2)


def cropped(x, w):
    return np.sum(np.real(np.fft.ifft(np.fft.fft(x, 6) * 1.5, 9)) * w) + \
        np.sum(np.imag(np.fft.fft(x, 12)) * np.sum(w))


def rows(x, w):
    z = np.fft.rfft(x, 5, axis=0)
    return np.sum(np.conj(z).real * w[:3, :]) + np.sum(np.fft.irfft(z, 7, axis=0) * w)


def parts(x, w):
    """complex(re, im) in a loop and a part written through ``z.imag``: tensor.complex's rule."""
    z = np.zeros(x.shape[0], np.complex128)
    for i in range(x.shape[0]):
        z[i] = complex(x[i], w[i] * x[i])
    z.imag = z.imag * 2.0 + w
    return np.sum(np.abs(z * z) * w)


CASES = [
    (parts, lambda r: (r.standard_normal(5), r.standard_normal(5)), (0, 1)),
    (power, lambda r: (r.standard_normal(8), r.standard_normal(8)), (0, 1)),
    (power, lambda r: (r.standard_normal(1), r.standard_normal(1)), (0,)),
    (filtered, lambda r: (r.standard_normal(9), r.standard_normal(5)), (0, 1)),
    (filtered, lambda r: (r.standard_normal(10), r.standard_normal(6)), (0, 1)),
    (cropped, lambda r: (r.standard_normal(8), r.standard_normal(9)), (0, 1)),
    (rows, lambda r: (r.standard_normal((6, 3)), r.standard_normal((7, 3))), (0, 1)),
]


@pytest.mark.parametrize("backend", ["xla", "interp"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_fft_gradients(case, backend):
    f, make, wrt = CASES[case]
    args = make(np.random.default_rng(case))
    gs = solvent.grad(f, wrt, backend=backend)(*args)
    for k, g in zip(wrt, gs):
        np.testing.assert_allclose(g, fd_grad(f, args, k), rtol=1e-6, atol=1e-8,
                                   err_msg=f"argument {k}")
    vs = [np.random.default_rng(7).standard_normal(np.shape(args[k])) for k in wrt]
    assert rel_close(directional(f, args, list(wrt), vs),
                     sum(float(np.sum(v * g)) for v, g in zip(vs, gs)), 1e-6, floor=1e-9)


def test_angle_real_imag_conj_rules():
    """angle(conj(x + i y)) and real/imag parts, as IR (the frontend has no numpy.angle)."""
    def body(b, x, y, w):
        z = b.one("tensor.add", b.one("tensor.convert", x, dtype="c128"),
                  b.one("tensor.mul", b.one("tensor.convert", y, dtype="c128"),
                        b.constant(1j, "c128")))
        z = b.one("tensor.mul", b.one("tensor.conj", z),
                  b.one("tensor.add", z, b.constant(0.5 - 0.25j, "c128")))
        z = b.one("tensor.add", b.one("tensor.conj", z), b.one("tensor.mul", z, z))
        a = b.one("tensor.angle", z)
        parts = b.one("tensor.add", b.one("tensor.real", z), b.one("tensor.imag", z))
        return b.one("tensor.reduce_sum", b.one("tensor.mul", b.one("tensor.add", a, parts), w),
                     axes=[0], keepdims=False)
    fn = func("angle", [T((5,), "f64")] * 3, body)
    run = get_backend("interp").compile
    g, _ = vjp_function(fn, [0, 1])
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(5) for _ in range(3)]
    out = run(g)(*args, 1.0)
    primal = run(fn)

    def loss(*a):
        return float(primal(*a)[0])
    for k in (0, 1):
        np.testing.assert_allclose(out[1 + k], fd_grad(loss, args, k), rtol=1e-6, atol=1e-8)
