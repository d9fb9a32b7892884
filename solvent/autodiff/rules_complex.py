"""VJP rules that take complex values: the Fourier transforms (``solvent.ops.fft``) and
``real``, ``imag``, ``conj``.

Convention: the cotangent of a complex value ``z`` is ``dL/dRe z + i dL/dIm z`` for the real
loss ``L``. Under it, a map that is linear over the complex numbers, ``y = A x``, has
``ct_x = A^H ct_y``; ``real(z)`` gives ``ct_z = ct`` (as a complex value), ``imag(z)``
``ct_z = i ct``, ``conj(z)`` ``ct_z = conj(ct)``, ``angle(z)`` ``ct_z = ct i z / |z|^2`` (the angle
of a real value is piecewise constant); a real input of a complex map takes the real
part of its cotangent.

Fourier transforms (NumPy's norm="backward", ``F`` the ``n``-point DFT, ``F^H = n ifft``):
``fft``: ``ct_x = n ifft(ct)``; ``ifft``: ``ct_x = fft(ct) / n``; ``rfft`` (the first
``n//2+1`` outputs of ``F x``): ``ct_x = Re(n ifft(ct padded to n))``; ``irfft`` (``y`` real of
length ``n`` from the half spectrum, imaginary parts of the DC and Nyquist terms ignored):
``ct_z = w rfft(ct) / n`` with ``w_k = 1`` at DC and Nyquist, 2 elsewhere. An input longer
than ``n`` was cropped (its tail gets zero), a shorter one zero-padded (the cotangent is
cropped back).

Which ops may carry complex cotangents is ``COMPLEX_RULES``: their rules follow the
convention (the elementwise rules of ``mul``, ``div``, ``abs`` and ``convert`` conjugate
where it matters); any other op reached by an active complex value raises
``DifferentiationError`` naming it.
"""
from __future__ import annotations

from ..ir.registry import register_vjp
from ..ir.types import TensorType
from . import emit as E

# linear with real coefficients (their rules are the adjoint for complex values too), or
# written for complex values
COMPLEX_RULES = frozenset(
    f"tensor.{n}" for n in (
        "add", "sub", "neg", "mul", "div", "abs", "convert", "select", "reshape", "transpose",
        "slice", "update_slice", "broadcast_to", "reduce_sum", "concatenate", "reverse",
        "real", "imag", "conj", "angle", "fft", "dot_general", "complex"))

_COMPLEX = {"f32": "c64", "f64": "c128", "c64": "c64", "c128": "c128"}


def _to_length(b, v, axis: int, length: int):
    """``v`` cropped or zero-padded along ``axis`` to ``length``."""
    have = v.type.shape[axis]
    if have == length:
        return v
    if have > length:
        spec = [["s", 0, d, 1] for d in v.type.shape]
        spec[axis] = ["s", 0, length, 1]
        return b.create("tensor.slice", [v], {"spec": spec}).result
    shape = list(v.type.shape)
    shape[axis] = length - have
    return b.one("tensor.concatenate", v, E.zeros(b, TensorType(tuple(shape), v.type.dtype)),
                 axis=axis)


def _scale(b, v, factor):
    return b.one("tensor.mul", v, b.constant(factor, v.type.dtype))


def _fft(b, op, xs, ys, cts):
    x, ct = xs[0], cts[0]
    kind, n, axis = op.attrs["kind"], op.attrs["n"], op.attrs["axis"]
    length = x.type.shape[axis]
    if kind == "fft":
        g = _scale(b, b.one("tensor.fft", ct, kind="ifft", n=n, axis=axis), n)
    elif kind == "ifft":
        g = _scale(b, b.one("tensor.fft", ct, kind="fft", n=n, axis=axis), 1.0 / n)
    elif kind == "rfft":  # ifft pads the half spectrum to n with zeros
        g = _scale(b, b.one("tensor.fft", ct, kind="ifft", n=n, axis=axis), n)
    else:  # irfft
        half = b.one("tensor.fft", ct, kind="rfft", n=n, axis=axis)
        m = half.type.shape[axis]
        k = b.one("tensor.iota", shape=[m], dim=0, dtype="i64")
        edge = b.one("tensor.eq", k, b.constant(0, "i64"))
        if n % 2 == 0:
            edge = b.one("tensor.or", edge, b.one("tensor.eq", k, b.constant(n // 2, "i64")))
        dt = half.type.dtype
        w = b.one("tensor.select", edge, b.constant(1.0 / n, dt), b.constant(2.0 / n, dt))
        shape = [1] * half.type.rank
        shape[axis] = m
        w = b.one("tensor.broadcast_to", b.one("tensor.reshape", w, shape=shape),
                  shape=list(half.type.shape))
        g = b.one("tensor.mul", half, w)
    g = _to_length(b, g, axis, length)
    if g.type.dtype != x.type.dtype:  # a real input: the real part
        g = b.one("tensor.convert", g, dtype=x.type.dtype)
    return [g]


def _real(b, op, xs, ys, cts):
    x = xs[0]
    return [cts[0] if x.type.dtype == cts[0].type.dtype
            else b.one("tensor.convert", cts[0], dtype=x.type.dtype)]


def _imag(b, op, xs, ys, cts):
    if xs[0].type.dtype[0] != "c":
        return [None]  # imag of a real value is 0
    c = b.one("tensor.convert", cts[0], dtype=xs[0].type.dtype)
    return [b.one("tensor.mul", c, b.constant(1j, c.type.dtype))]


def _conj(b, op, xs, ys, cts):
    return [b.one("tensor.conj", cts[0])]


def _angle(b, op, xs, ys, cts):
    z = xs[0]
    if z.type.dtype[0] != "c":
        return [None]
    r2 = b.one("tensor.real", b.one("tensor.mul", z, b.one("tensor.conj", z)))
    c = b.one("tensor.convert", b.one("tensor.div", cts[0], r2), dtype=z.type.dtype)
    return [b.one("tensor.mul", c, b.one("tensor.mul", z, b.constant(1j, z.type.dtype)))]


def _complex(b, op, xs, ys, cts):
    """z = re + i im: ct_re = Re ct, ct_im = Im ct (each summed back to its part's shape)."""
    ct = cts[0]
    return [E.unbroadcast(b, b.one(f"tensor.{part}", ct), x.type.shape)
            for part, x in zip(("real", "imag"), xs)]


def conj_if_complex(b, v):
    """``conj(v)`` for a complex ``v``, ``v`` itself otherwise."""
    return b.one("tensor.conj", v) if v.type.dtype[0] == "c" else v


for _name, _rule in (("fft", _fft), ("real", _real), ("imag", _imag), ("conj", _conj),
                     ("angle", _angle), ("complex", _complex)):
    register_vjp(f"tensor.{_name}", _rule)
