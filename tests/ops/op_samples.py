"""Sample functions for every op in the registry, with random-input generators.

Each ``Sample`` is a small IR ``Function`` that exercises one op (its id starts with the op
name) plus ``inputs(rng)``, which draws random NumPy arguments inside the op's domain.
``tests/ops/test_registry.py`` runs every sample through the interpreter and XLA (tensor
level) or through functionalization (array level) and compares.

Elementwise samples are generated from the tables in ``solvent.ops.elementwise`` for every
dtype kind a row accepts, with broadcasting shapes; the other samples are written out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from solvent.ir.builder import Builder
from solvent.ir.core import Block, Function, Region, Value
from solvent.ir.types import RefType, TensorType, np_dtype
from solvent.ops.elementwise import BINARY, UNARY

T = TensorType


def S(dtype: str) -> TensorType:
    return TensorType((), dtype)


@dataclass
class Sample:
    id: str
    fn: Function
    inputs: Callable[[np.random.Generator], list]
    level: str = "tensor"  # "array": interpreter + functionalization only; "check": holds
    # error.check, validated through checks_to_values; "dynamic": has a run-time dim (?),
    # which XLA refuses: interpreter vs NumPy, and the backends that take run-time shapes
    # Optional plain-NumPy/Python reference (args -> results), written independently of
    # the interpreter, for ops whose interpreter rule is more than one NumPy call.
    numpy: Callable | None = None

    @property
    def ops(self) -> set[str]:
        return {op.name for op in self.fn.walk()}


SAMPLES: list[Sample] = []


def func(name: str, arg_types: list, body: Callable) -> Function:
    """A function with ``arg_types`` whose body ``body(b, *args)`` returns its results."""
    blk = Block()
    names = [f"x{i}" for i in range(len(arg_types))]
    args = [blk.add_arg(t, n) for t, n in zip(arg_types, names)]
    b = Builder(blk)
    outs = body(b, *args)
    if isinstance(outs, Value):
        outs = [outs]
    b.create("func.return", list(outs))
    return Function(re.sub(r"\W", "_", name), blk, names)


def add(id: str, arg_types: list, body: Callable, inputs: Callable, level: str = "tensor",
        numpy: Callable | None = None):
    SAMPLES.append(Sample(id, func(id, arg_types, body), inputs, level, numpy))


def region(arg_types: list, body: Callable, b: Builder, term: str = "loop.yield") -> Region:
    """A region whose block takes ``arg_types``; ``body(b, *args)`` returns the yielded values."""
    blk = Block()
    args = [blk.add_arg(t) for t in arg_types]
    with b.at(blk):
        outs = body(b, *args)
        if isinstance(outs, Value):
            outs = [outs]
        b.create(term, list(outs))
    return Region(blk)


# --- random values --------------------------------------------------------------------------
def gen(rng, shape, dt, lo=-3.0, hi=3.0, ilo=None, ihi=None, mag=False, grid=False,
        specials=()):
    """Random values of IR dtype ``dt``.

    floats: uniform in [lo, hi) (``mag``: that is the magnitude, with a random sign;
    ``grid``: rounded to halves so that ties and equal values occur); complex: both parts so;
    ints: uniform in [ilo, ihi] clipped to the dtype (the whole range by default; ``ihi`` may
    be "bits-1"); bool: fair coin. ``specials`` are planted at random positions.
    """
    shape = tuple(shape)
    npdt = np_dtype(dt)
    if npdt.kind == "b":
        return np.asarray(rng.random(shape) < 0.5)
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        hi_ = info.bits - 1 if ihi == "bits-1" else ihi
        a = info.min if ilo is None else max(ilo, info.min)
        z = info.max if hi_ is None else min(hi_, info.max)
        return np.asarray(rng.integers(a, z, size=shape, endpoint=True, dtype=npdt))

    def real():
        x = rng.uniform(lo, hi, shape)
        if mag:
            x = x * rng.choice([-1.0, 1.0], shape)
        if grid:
            x = np.round(x * 2) / 2
        return x

    x = real() + 1j * real() if npdt.kind == "c" else real()
    x = np.asarray(x).astype(npdt)
    if specials and x.size >= 2:
        k = min(len(specials), x.size // 2)
        pos = rng.choice(x.size, k, replace=False)
        picks = rng.choice(len(specials), k, replace=False)
        flat = x.reshape(-1)
        for p, s in zip(pos, picks):
            flat[p] = specials[s]
    return x


def ints(rng, shape, dt, lo, hi):
    return np.asarray(rng.integers(lo, hi, size=shape, endpoint=True)).astype(np_dtype(dt))


def spd(rng, n, dt, batch=()):
    """A well-conditioned Hermitian positive definite matrix (stack)."""
    m = gen(rng, batch + (n, n), dt, -1.0, 1.0)
    a = m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)
    return a.astype(np_dtype(dt))


def well_conditioned(rng, n, dt, batch=()):
    m = gen(rng, batch + (n, n), dt, -0.3, 0.3)
    return (m + n * np.eye(n)).astype(np_dtype(dt))


# --- elementwise ----------------------------------------------------------------------------
KIND_DTYPES = {"b": ["i1"], "i": ["i32", "i64", "u8"], "f": ["f32", "f64"], "c": ["c64", "c128"]}
NAN, INF = float("nan"), float("inf")
HALVES = (0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, NAN, INF, -INF)
NONFINITE = (NAN, INF, -INF, 0.0)
CNONFINITE = (complex(NAN, 0), complex(0, INF), complex(1, NAN), complex(-INF, 1), 0j)

UNARY_DOMAIN = {
    "sqrt": dict(lo=0.1, hi=10), "log": dict(lo=0.1, hi=10), "log2": dict(lo=0.1, hi=10),
    "log10": dict(lo=0.1, hi=10), "log1p": dict(lo=-0.9, hi=10),
    "exp": dict(lo=-5, hi=5), "exp2": dict(lo=-5, hi=5), "expm1": dict(lo=-3, hi=3),
    "sin": dict(lo=-6, hi=6), "cos": dict(lo=-6, hi=6), "tan": dict(lo=-1.3, hi=1.3),
    "arcsin": dict(lo=-0.95, hi=0.95), "arccos": dict(lo=-0.95, hi=0.95),
    "arctanh": dict(lo=-0.95, hi=0.95), "arctan": dict(lo=-10, hi=10),
    "sinh": dict(lo=-4, hi=4), "cosh": dict(lo=-4, hi=4), "tanh": dict(lo=-4, hi=4),
    "arcsinh": dict(lo=-10, hi=10), "arccosh": dict(lo=1.05, hi=10),
    "floor": dict(lo=-5, hi=5, specials=HALVES), "ceil": dict(lo=-5, hi=5, specials=HALVES),
    "trunc": dict(lo=-5, hi=5, specials=HALVES), "rint": dict(lo=-5, hi=5, specials=HALVES),
    "sign": dict(specials=NONFINITE), "reciprocal": dict(lo=0.2, hi=5, mag=True),
    "isnan": dict(specials=NONFINITE), "isinf": dict(specials=NONFINITE),
    "isfinite": dict(specials=NONFINITE),
}
# Complex rows: the real-line domain above does not apply (no branch cut is hit by chance).
UNARY_CDOMAIN = {
    "isnan": dict(specials=CNONFINITE), "isinf": dict(specials=CNONFINITE),
    "isfinite": dict(specials=CNONFINITE),
    "exp": dict(lo=-2, hi=2), "exp2": dict(lo=-2, hi=2), "expm1": dict(lo=-2, hi=2),
    "sinh": dict(lo=-2, hi=2), "cosh": dict(lo=-2, hi=2), "tanh": dict(lo=-2, hi=2),
    "tan": dict(lo=-1.2, hi=1.2), "reciprocal": dict(lo=0.2, hi=3, mag=True),
    "sqrt": dict(lo=0.1, hi=3, mag=True), "log": dict(lo=0.1, hi=3, mag=True),
    "log2": dict(lo=0.1, hi=3, mag=True), "log10": dict(lo=0.1, hi=3, mag=True),
}
_CMP = dict(lo=-2, hi=2, grid=True, ilo=-3, ihi=3)
_DIVISOR = dict(lo=0.5, hi=3, mag=True, ilo=1, ihi=9)
BINARY_DOMAIN = {
    # name: (domain of a, domain of b)
    "div": (dict(), dict(lo=0.2, hi=5, mag=True)),
    "floordiv": (dict(lo=-10, hi=10, ilo=-1000, ihi=1000), _DIVISOR),
    "mod": (dict(lo=-10, hi=10, ilo=-1000, ihi=1000), _DIVISOR),
    "pow": (dict(lo=0.1, hi=4, ilo=-6, ihi=6), dict(lo=-3, hi=3, ilo=0, ihi=6)),
    "max": (dict(specials=NONFINITE), dict(specials=NONFINITE)),
    "min": (dict(specials=NONFINITE), dict(specials=NONFINITE)),
    "fmax": (dict(specials=NONFINITE), dict(specials=NONFINITE)),
    "fmin": (dict(specials=NONFINITE), dict(specials=NONFINITE)),
    "shl": (dict(), dict(ilo=0, ihi="bits-1")),
    "shr": (dict(), dict(ilo=0, ihi="bits-1")),
    "eq": (_CMP, _CMP), "ne": (_CMP, _CMP), "lt": (_CMP, _CMP), "le": (_CMP, _CMP),
    "gt": (_CMP, _CMP), "ge": (_CMP, _CMP),
}
BINARY_CDOMAIN = {
    "pow": (dict(lo=0.3, hi=2, mag=True), dict(lo=-1.5, hi=1.5)),
    "div": (dict(), dict(lo=0.2, hi=5, mag=True)),
}
UNARY_SHAPES = [(3, 4), (), (2, 3, 2)]
BINARY_SHAPES = [((3, 4), (3, 4)), ((4, 1), (3,)), ((), (2, 3)), ((2, 1, 3), (1, 4, 1)),
                 ((3,), ())]


def _shape_id(shape) -> str:
    return "x".join(map(str, shape)) or "scalar"


def _unary_samples():
    for name, (_, _, kinds, _) in UNARY.items():
        k = 0
        for kind in kinds:
            for dt in KIND_DTYPES[kind]:
                dom = (UNARY_CDOMAIN if kind == "c" else UNARY_DOMAIN).get(name, {})
                shape = (3, 4) if dom.get("specials") else UNARY_SHAPES[k % len(UNARY_SHAPES)]
                k += 1
                add(f"tensor.{name}-{dt}-{_shape_id(shape)}", [T(shape, dt)],
                    lambda b, x, name=name: b.one(f"tensor.{name}", x),
                    lambda rng, shape=shape, dt=dt, dom=dom: [gen(rng, shape, dt, **dom)])


def _binary_samples():
    for name, (_, _, kinds, _) in BINARY.items():
        k = 0
        for kind in kinds:
            for dt in KIND_DTYPES[kind]:
                da, db = (BINARY_CDOMAIN if kind == "c" else BINARY_DOMAIN).get(name, ({}, {}))
                if da.get("specials") and kind in "fc":
                    sa, sb = (3, 4), (3, 4)
                else:
                    sa, sb = BINARY_SHAPES[k % len(BINARY_SHAPES)]
                k += 1
                add(f"tensor.{name}-{dt}-{_shape_id(sa)}_{_shape_id(sb)}", [T(sa, dt), T(sb, dt)],
                    lambda b, x, y, name=name: b.one(f"tensor.{name}", x, y),
                    lambda rng, sa=sa, sb=sb, dt=dt, da=da, db=db: [gen(rng, sa, dt, **da),
                                                                    gen(rng, sb, dt, **db)])


def _select_samples():
    for dt, (sc, sa, sb) in (("f64", ((3, 4), (3, 4), (3, 4))), ("i32", ((4, 1), (3,), ())),
                             ("c64", ((), (2, 3), (2, 3))), ("i1", ((2, 1), (1, 3), (2, 3)))):
        add(f"tensor.select-{dt}", [T(sc, "i1"), T(sa, dt), T(sb, dt)],
            lambda b, c, x, y: b.one("tensor.select", c, x, y),
            lambda rng, sc=sc, sa=sa, sb=sb, dt=dt: [gen(rng, sc, "i1"), gen(rng, sa, dt),
                                                     gen(rng, sb, dt)])


CONVERSIONS = [
    # (from, to, domain of the input)
    ("f64", "i32", dict(lo=-100, hi=100)), ("f32", "i64", dict(lo=-100, hi=100)),
    ("f64", "u8", dict(lo=0, hi=255)), ("f64", "i1", dict(grid=True, specials=(NAN, -0.0))),
    ("f32", "f64", {}), ("f64", "f32", dict(lo=-1e3, hi=1e3)),
    ("i64", "f32", {}), ("i32", "f64", {}), ("u8", "i64", {}), ("i32", "i64", {}),
    ("i64", "i32", {}), ("i32", "u8", {}), ("i64", "i1", dict(ilo=-2, ihi=2)),
    ("i1", "i32", {}), ("i1", "f64", {}), ("i1", "c64", {}),
    ("c128", "f64", {}), ("c64", "c128", {}), ("c128", "c64", {}), ("f64", "c128", {}),
    ("i64", "c128", {}), ("c128", "i64", dict(lo=-50, hi=50)),
    ("c128", "i1", dict(grid=True, lo=-1, hi=1)), ("c64", "i1", dict(grid=True, lo=-1, hi=1)),
]


def _convert_samples():
    for src, dst, dom in CONVERSIONS:
        add(f"tensor.convert-{src}-to-{dst}", [T((3, 4), src)],
            lambda b, x, dst=dst: b.one("tensor.convert", x, dtype=dst),
            lambda rng, src=src, dom=dom: [gen(rng, (3, 4), src, **dom)],
            numpy=lambda x, dst=dst: [_astype(x, dst)])


def _complex_samples():
    """tensor.complex: infinite and NaN parts stay where they are (re + 1j*im would not)."""
    for dt, sa, sb in (("f64", (3, 4), (3, 4)), ("f32", (2, 3), ()), ("f64", (4, 1), (1, 3))):
        add(f"tensor.complex-{dt}-{_shape_id(sa)}_{_shape_id(sb)}", [T(sa, dt), T(sb, dt)],
            lambda b, x, y: b.one("tensor.complex", x, y),
            lambda rng, sa=sa, sb=sb, dt=dt: [gen(rng, sa, dt, specials=(INF, NAN, -0.0)),
                                              gen(rng, sb, dt, specials=(-INF, NAN, -0.0))],
            numpy=lambda x, y: [_from_parts(x, y)])


def _from_parts(re, im):
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


def _astype(x, dst):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return x.astype(np_dtype(dst))


# --- structural -----------------------------------------------------------------------------
def _constant_samples():
    values = [(True, "i1"), (-7, "i32"), (2**40 + 3, "i64"), (200, "u8"), (0.1, "f32"),
              (-2.5e-300, "f64"), (NAN, "f64"), (-INF, "f32"), (complex(1.5, -2), "c64"),
              (complex(0.1, INF), "c128")]
    for value, dt in values:
        add(f"tensor.constant-{dt}-{value}", [],
            lambda b, value=value, dt=dt: b.constant(value, dt), lambda rng: [])
    # A constant combined with an argument (constants are concrete values under jax.jit).
    add("tensor.constant-mixed", [T((3,), "f64")],
        lambda b, x: b.one("tensor.mul", x, b.constant(0.5, "f64")),
        lambda rng: [gen(rng, (3,), "f64")])


def _creation_samples():
    for shape, dim, dt in (((3, 4), 1, "i64"), ((3, 4), 0, "f32"), ((5,), 0, "i32"),
                           ((2, 3, 4), 2, "f64"), ((0, 3), 1, "i64")):
        add(f"tensor.iota-{_shape_id(shape)}-dim{dim}-{dt}", [],
            lambda b, shape=shape, dim=dim, dt=dt: b.one("tensor.iota", shape=list(shape),
                                                         dim=dim, dtype=dt),
            lambda rng: [])
    for num, endpoint, dt in ((5, True, "f64"), (6, False, "f64"), (7, True, "f32"),
                              (1, True, "f64"), (1, False, "f32"), (0, True, "f64"),
                              (4, True, "i64"), (5, False, "i32")):
        lo_hi = dict(ilo=-10, ihi=10, lo=-10, hi=10)
        add(f"tensor.linspace-{num}-{'endpoint' if endpoint else 'open'}-{dt}", [S(dt), S(dt)],
            lambda b, x, y, num=num, endpoint=endpoint, dt=dt: b.one(
                "tensor.linspace", x, y, num=num, endpoint=endpoint, dtype=dt),
            lambda rng, dt=dt, d=lo_hi: [gen(rng, (), dt, **d), gen(rng, (), dt, **d)])


def _shape_samples():
    for src, dst, dt in (((3, 1), (2, 3, 4), "f64"), ((), (2, 2), "i32"), ((4,), (3, 4), "i1"),
                         ((2, 1), (2, 5), "c64")):
        add(f"tensor.broadcast_to-{_shape_id(src)}-to-{_shape_id(dst)}-{dt}", [T(src, dt)],
            lambda b, x, dst=dst: b.one("tensor.broadcast_to", x, shape=list(dst)),
            lambda rng, src=src, dt=dt: [gen(rng, src, dt)])
    for src, dst in (((2, 3, 4), (6, 4)), ((2, 3, 4), (24,)), ((2, 3, 4), (4, 1, 6)),
                     ((1,), ()), ((), (1, 1))):
        add(f"tensor.reshape-{_shape_id(src)}-to-{_shape_id(dst)}", [T(src, "f64")],
            lambda b, x, dst=dst: b.one("tensor.reshape", x, shape=list(dst)),
            lambda rng, src=src: [gen(rng, src, "f64")])
    for shape, perm, dt in (((2, 3, 4), (2, 0, 1), "f64"), ((3, 5), (1, 0), "i64"),
                            ((2, 3, 4, 5), (1, 3, 0, 2), "f32")):
        add(f"tensor.transpose-{''.join(map(str, perm))}-{dt}", [T(shape, dt)],
            lambda b, x, perm=perm: b.one("tensor.transpose", x, perm=list(perm)),
            lambda rng, shape=shape, dt=dt: [gen(rng, shape, dt)])
    for shapes, axis, dt in ((((2, 3), (2, 1), (2, 4)), 1, "f64"), (((3,),), 0, "i32"),
                             (((1, 2, 2), (3, 2, 2)), 0, "i1")):
        add(f"tensor.concatenate-{len(shapes)}-axis{axis}-{dt}", [T(s, dt) for s in shapes],
            lambda b, *xs, axis=axis: b.one("tensor.concatenate", *xs, axis=axis),
            lambda rng, shapes=shapes, dt=dt: [gen(rng, s, dt) for s in shapes])
    for shape, low, high, dt in (((3, 4), [1, 0], [2, 1], "f64"), ((5,), [0], [3], "i32"),
                                 ((2, 0), [1, 1], [0, 2], "c128"), ((), [], [], "f32")):
        add(f"tensor.pad-{dt}-{'x'.join(map(str, shape)) or 'scalar'}", [T(shape, dt)],
            lambda b, x, low=low, high=high: b.one("tensor.pad", x, low=low, high=high),
            lambda rng, shape=shape, dt=dt: [gen(rng, shape, dt)])
    for axes in ([0, 2], [1], []):
        add(f"tensor.reverse-{'_'.join(map(str, axes)) or 'none'}", [T((2, 3, 4), "f64")],
            lambda b, x, axes=axes: b.one("tensor.reverse", x, axes=list(axes)),
            lambda rng: [gen(rng, (2, 3, 4), "f64")])
    for shape, axis, reps, dt in (((2, 3), 1, 3, "f64"), ((4,), 0, 2, "i64"),
                                  ((2, 3), 0, 0, "f32"), ((2, 2, 2), 2, 1, "i1")):
        add(f"tensor.repeat-axis{axis}-x{reps}-{dt}", [T(shape, dt)],
            lambda b, x, axis=axis, reps=reps: b.one("tensor.repeat", x, axis=axis,
                                                     repeats=reps),
            lambda rng, shape=shape, dt=dt: [gen(rng, shape, dt)])
    for shape, part, k, dt in (((4, 5), "upper", 0, "f64"), ((4, 5), "lower", -1, "f64"),
                               ((4, 5), "upper", 2, "i32"), ((2, 3, 3), "lower", 1, "f32"),
                               ((3, 3), "lower", 0, "i1")):
        add(f"tensor.triangle-{part}-k{k}-{dt}-{_shape_id(shape)}", [T(shape, dt)],
            lambda b, x, part=part, k=k: b.one("tensor.triangle", x, part=part, k=k),
            lambda rng, shape=shape, dt=dt: [gen(rng, shape, dt)])


# Index specs: (id, input shape, spec, generators of the dynamic index operands)
def _idx(lo, hi, dt="i64"):
    """A dynamic index operand: an integer scalar in [lo, hi]."""
    return (lo, hi, dt)


SLICES = [
    ("static-negstep", (5, 6, 7), [["s", 4, -1, -1], ["c", 2], ["s", 1, 7, 3]], [],
     lambda x: x[::-1, 2, 1::3]),
    ("static-negstep2", (5, 6, 7), [["s", 4, 0, -2], ["s", 5, 1, -3], ["s", 0, 7, 1]], [],
     lambda x: x[4:0:-2, 5:1:-3, :]),
    ("static-scalar", (5, 6, 7), [["c", 1], ["c", 5], ["c", 6]], [], lambda x: x[1, 5, 6]),
    ("static-empty", (5, 6, 7), [["s", 3, 3, 1], ["s", 0, 6, 2], ["c", 0]], [],
     lambda x: x[3:3, ::2, 0]),
    ("newaxis", (5, 6), [["n"], ["s", 0, 5, 2], ["n"], ["c", 3], ["n"]], [],
     lambda x: x[None, 0:5:2, None, 3, None]),
    ("dyn-index-newaxis", (5, 6, 7), [["i", 0], ["n"], ["s", 5, -1, -2], ["d", 1, 3]],
     [_idx(-5, 4), _idx(0, 4)], lambda x, i, d: x[i, None, ::-2, d:d + 3]),
    ("dyn-all", (5, 6, 7), [["d", 0, 2], ["i", 1], ["i", 2]],
     [_idx(0, 3, "i32"), _idx(-6, 5, "i32"), _idx(0, 6, "i32")],
     lambda x, d, i, j: x[d:d + 2, i, j]),
    ("dyn-stepped", (5, 6, 7), [["i", 0], ["s", 0, 6, 2], ["d", 1, 4]],
     [_idx(0, 4), _idx(0, 3)], lambda x, i, d: x[i, 0:6:2, d:d + 4]),
    ("dyn-negstep", (6, 7), [["s", 5, 0, -2], ["d", 0, 7]], [_idx(0, 0)],
     lambda x, d: x[5:0:-2, d:d + 7]),
    ("dyn-scalar", (8,), [["i", 0]], [_idx(-8, 7)], lambda x, i: x[i]),
]
# (id, shape, spec, dynamic operands, the NumPy index as a function of them)
UPDATES = [
    ("static-stepped", (5, 6, 7), [["s", 4, -1, -2], ["c", 1], ["s", 0, 7, 3]], [],
     lambda: np.s_[4::-2, 1, 0:7:3]),
    ("static-full", (3, 4), [["s", 0, 3, 1], ["s", 0, 4, 1]], [], lambda: np.s_[:, :]),
    ("dyn-unit", (5, 6, 7), [["i", 0], ["d", 1, 2], ["s", 0, 7, 1]], [_idx(-5, 4), _idx(0, 4)],
     lambda i, d: np.s_[i, d:d + 2, :]),
    ("dyn-stepped", (5, 6, 7), [["i", 0], ["s", 0, 6, 2], ["d", 1, 4]],
     [_idx(-5, 4), _idx(0, 3)], lambda i, d: np.s_[i, 0:6:2, d:d + 4]),
    ("const-dyn-apart", (5, 6, 7), [["c", 1], ["s", 5, -1, -2], ["d", 0, 2]], [_idx(0, 5)],
     lambda d: np.s_[1, ::-2, d:d + 2]),
    ("stepped-dyn-const", (5, 6, 7), [["s", 0, 5, 2], ["d", 0, 4], ["c", 4]], [_idx(0, 2)],
     lambda d: np.s_[0:5:2, d:d + 4, 4]),
    ("dyn-negstep", (6, 7), [["s", 5, 0, -2], ["i", 0]], [_idx(-7, 6, "i32")],
     lambda i: np.s_[5:0:-2, i]),
    ("scalar", (4, 5), [["i", 0], ["i", 1]], [_idx(-4, 3), _idx(0, 4)], lambda i, j: np.s_[i, j]),
]


def _set(x, v, index, how="set"):
    y = x.copy()
    if how == "set":
        y[index] = v
    else:
        np.add.at(y, index, v)
    return [y]


def _slice_samples():
    for name, shape, spec, dyn, ref in SLICES:
        for dt in ("f64", "i32") if name.startswith("dyn-index") else ("f64",):
            dyn_types = [S(dt_) for _, _, dt_ in dyn]
            add(f"tensor.slice-{name}-{dt}", [T(shape, dt)] + dyn_types,
                lambda b, x, *d, spec=spec: b.one("tensor.slice", x, *d, spec=spec),
                lambda rng, shape=shape, dt=dt, dyn=dyn: [gen(rng, shape, dt)]
                + [ints(rng, (), d, lo, hi) for lo, hi, d in dyn],
                numpy=lambda x, *d, ref=ref: [np.copy(ref(x, *d))])
    from solvent.ops.indexspec import result_shape
    for name, shape, spec, dyn, index in UPDATES:
        vshape = result_shape(shape, spec, len(dyn))
        for dt in ("f64", "i1") if name == "dyn-stepped" else ("f64",):
            dyn_types = [S(dt_) for _, _, dt_ in dyn]
            add(f"tensor.update_slice-{name}-{dt}", [T(shape, dt), T(vshape, dt)] + dyn_types,
                lambda b, x, v, *d, spec=spec: b.one("tensor.update_slice", x, v, *d, spec=spec),
                lambda rng, shape=shape, vshape=vshape, dt=dt, dyn=dyn: [
                    gen(rng, shape, dt), gen(rng, vshape, dt)]
                + [ints(rng, (), d, lo, hi) for lo, hi, d in dyn],
                numpy=lambda x, v, *d, index=index: _set(x, v, index(*d)))


GATHERS = [
    # (id, x shape, axes, index shapes, front, index dtype, NumPy reference)
    ("adjacent", (4, 5, 6), [1, 2], [(2, 3), (3,)], False, "i64", lambda x, i, j: x[:, i, j]),
    ("adjacent-front", (4, 5, 6), [1, 2], [(2, 3), (3,)], True, "i64",
     lambda x, i, j: np.moveaxis(x[:, i, j], [1, 2], [0, 1])),
    ("apart", (4, 5, 6), [0, 2], [(2, 3), (2, 1)], False, "i64", lambda x, i, j: x[i, :, j]),
    ("apart-front", (4, 5, 6), [0, 2], [(3,), (3,)], True, "i32", lambda x, i, j: x[i, :, j]),
    ("first", (4, 5, 6), [0], [(7,)], False, "i32", lambda x, i: x[i]),
    ("middle-front", (4, 5, 6), [1], [(2, 2)], True, "i32",
     lambda x, i: np.moveaxis(x[:, i], [1, 2], [0, 1])),
    ("scalar-index", (4, 5, 6), [1], [()], False, "i64", lambda x, i: x[:, i]),
    ("all-axes", (4, 5), [0, 1], [(3,), (3,)], False, "i64", lambda x, i, j: x[i, j]),
]


def _gather_samples():
    for name, shape, axes, ishapes, front, idt, ref in GATHERS:
        add(f"tensor.gather-{name}", [T(shape, "f64")] + [T(s, idt) for s in ishapes],
            lambda b, x, *idx, axes=axes, front=front: b.one("tensor.gather", x, *idx,
                                                             axes=list(axes), front=front),
            lambda rng, shape=shape, axes=axes, ishapes=ishapes, idt=idt: [gen(rng, shape, "f64")]
            + [ints(rng, s, idt, -shape[a], shape[a] - 1) for a, s in zip(axes, ishapes)],
            numpy=lambda x, *idx, ref=ref: [ref(x, *idx)])


def _unique_index(rng, shape, dims, dt):
    """Index arrays (one per dim in ``dims``) of ``shape`` naming distinct positions, some of
    them negative (wrapped once)."""
    n = int(np.prod(shape, dtype=np.int64))
    flat = rng.choice(int(np.prod(dims)), n, replace=False)
    out = []
    for i, d in zip(np.unravel_index(flat, dims), dims):
        neg = rng.random(n) < 0.3
        out.append(np.where(neg, i - d, i).reshape(shape).astype(np_dtype(dt)))
    return out


def _scatter_samples():
    from solvent.ops.structural import gather_shape
    for name, shape, axes, ishape, dt, index in (
            ("middle", (4, 5, 6), [1], (3,), "f64", lambda i: np.s_[:, i]),
            ("apart", (4, 5, 6), [0, 2], (2, 3), "f64", lambda i, j: np.s_[i, :, j]),
            ("adjacent", (4, 5, 6), [1, 2], (4,), "i64", lambda i, j: np.s_[:, i, j]),
            ("first", (6, 3), [0], (2, 2), "i32", lambda i: np.s_[i])):
        vshape = gather_shape(shape, axes, [ishape] * len(axes), False)
        add(f"tensor.scatter-{name}-{dt}", [T(shape, dt), T(vshape, dt)]
            + [T(ishape, "i64")] * len(axes),
            lambda b, x, v, *idx, axes=axes: b.one("tensor.scatter", x, v, *idx, axes=list(axes)),
            lambda rng, shape=shape, vshape=vshape, axes=axes, ishape=ishape, dt=dt: [
                gen(rng, shape, dt), gen(rng, vshape, dt)]
            + _unique_index(rng, ishape, [shape[a] for a in axes], "i64"),
            numpy=lambda x, v, *idx, index=index: _set(x, v, index(*idx)))
    # scatter_add: duplicate indices accumulate.
    for name, shape, axes, ishapes, dt, index in (
            ("adjacent", (4, 5, 6), [1, 2], [(2, 4), (4,)], "f64", lambda i, j: np.s_[:, i, j]),
            ("dups", (5,), [0], [(12,)], "i64", lambda i: np.s_[i]),
            ("apart", (3, 4, 5), [0, 2], [(6,), (6,)], "i32", lambda i, j: np.s_[i, :, j]),
            ("f32", (6, 2), [0], [(3, 3)], "f32", lambda i: np.s_[i])):
        vshape = gather_shape(shape, axes, ishapes, False)
        add(f"tensor.scatter_add-{name}-{dt}", [T(shape, dt), T(vshape, dt)]
            + [T(s, "i64") for s in ishapes],
            lambda b, x, v, *idx, axes=axes: b.one("tensor.scatter_add", x, v, *idx,
                                                   axes=list(axes)),
            lambda rng, shape=shape, vshape=vshape, axes=axes, ishapes=ishapes, dt=dt: [
                gen(rng, shape, dt, lo=0.5, hi=2, ilo=-100, ihi=100),
                gen(rng, vshape, dt, lo=0.5, hi=2, ilo=-100, ihi=100)]
            + [ints(rng, s, "i64", -shape[a], min(shape[a] - 1, 1))
               for a, s in zip(axes, ishapes)],
            numpy=lambda x, v, *idx, index=index: _set(x, v, index(*idx), "add"))


# --- reductions -----------------------------------------------------------------------------
def _reduction_samples():
    cases = [([0, 2], False), ([0, 2], True), ([1], False), ([], False), ([0, 1, 2], True),
             ([2, 0], False)]
    for kind, dtypes in (("sum", ("f64", "f32", "i32", "i64", "c128")),
                         ("prod", ("f64", "f32", "i64", "u8")),
                         ("max", ("f64", "f32", "i32", "u8", "c128")),
                         ("min", ("f64", "f32", "i64", "c64")),
                         ("any", ("i1",)), ("all", ("i1",))):
        for k, dt in enumerate(dtypes):
            for axes, keep in (cases[k % len(cases)], cases[(k + 3) % len(cases)]):
                dom = dict(lo=0.5, hi=1.5) if kind in ("sum", "prod") else {}
                if kind in ("max", "min") and dt == "f64":
                    dom = dict(specials=(NAN,))
                if kind in ("max", "min") and dt[0] == "c":   # lexicographic, ties, NaN
                    dom = dict(grid=True, specials=CNONFINITE)
                if kind == "prod" and dt[0] in "iu":
                    dom = dict(ilo=-3, ihi=3)
                if kind in ("any", "all"):
                    dom = {}
                add(f"tensor.reduce_{kind}-{dt}-axes{'_'.join(map(str, axes)) or 'none'}"
                    f"-{'keep' if keep else 'drop'}", [T((3, 4, 5), dt)],
                    lambda b, x, kind=kind, axes=axes, keep=keep: b.one(
                        f"tensor.reduce_{kind}", x, axes=list(axes), keepdims=keep),
                    lambda rng, dt=dt, dom=dom: [gen(rng, (3, 4, 5), dt, **dom)])
    # Larger float operands. The first five take the XLA lowering's row fold (a leading
    # reduced axis combined elementwise before the last axis is reduced); the rest are large
    # enough for XLA:CPU to hand them to YNNPACK, whose max/min skip NaN unless guarded.
    for kind, dt, shape, axes, keep, dom in (
            ("sum", "f64", (64, 100), [0, 1], False, dict(lo=-1.0, hi=1.0)),
            ("sum", "f32", (16, 20, 40), [0, 2], True, dict(lo=0.5, hi=1.5)),
            ("max", "f64", (100, 64), [0, 1], False, {}),
            ("max", "f32", (30, 30, 50), [0, 1, 2], True, dict(specials=(NAN,))),
            ("min", "f64", (40, 130, 9), [0, 2], False, dict(specials=(NAN,))),
            ("max", "f64", (1031, 8), [0, 1], False, dict(specials=(NAN,))),
            ("min", "f32", (300, 300), [0], False, dict(specials=(NAN,))),
            ("max", "f64", (200, 200), [1], True, dict(specials=(NAN,))),
            ("sum", "f64", (1031, 8), [0], False, dict(lo=-1.0, hi=1.0))):
        add(f"tensor.reduce_{kind}-{dt}-large-{'x'.join(map(str, shape))}-axes"
            f"{'_'.join(map(str, axes))}", [T(shape, dt)],
            lambda b, x, kind=kind, axes=axes, keep=keep: b.one(
                f"tensor.reduce_{kind}", x, axes=list(axes), keepdims=keep),
            lambda rng, dt=dt, shape=shape, dom=dom: [gen(rng, shape, dt, **dom)])
    # all/any on mostly-True / mostly-False data, so both outcomes occur.
    for kind in ("any", "all"):
        add(f"tensor.reduce_{kind}-i1-sparse", [T((4, 6), "f64")],
            lambda b, x, kind=kind: b.one(f"tensor.reduce_{kind}", b.one(
                "tensor.lt" if kind == "any" else "tensor.gt", x, b.constant(0.1, "f64")),
                axes=[1], keepdims=False),
            lambda rng: [gen(rng, (4, 6), "f64", lo=0, hi=1)])
    for kind in ("argmax", "argmin"):
        for axis, keep, dt, dom in ((None, False, "f64", {}), (None, True, "f32", {}),
                                    (1, True, "i32", dict(ilo=-2, ihi=2)),
                                    (0, False, "f64", dict(specials=(NAN, NAN))),
                                    (2, False, "u8", dict(ihi=3)), (None, False, "i1", {}),
                                    # complex: lexicographic, ties, NaN first (jnp.argmax
                                    # refused complex operands)
                                    (1, False, "c128", dict(grid=True)),
                                    (None, True, "c64", dict(grid=True, specials=CNONFINITE))):
            add(f"tensor.{kind}-axis{axis}-{'keep' if keep else 'drop'}-{dt}", [T((3, 4, 5), dt)],
                lambda b, x, kind=kind, axis=axis, keep=keep: b.one(
                    f"tensor.{kind}", x, axis=axis, keepdims=keep),
                lambda rng, dt=dt, dom=dom: [gen(rng, (3, 4, 5), dt, **dom)])
    for kind in ("cumsum", "cumprod"):
        for axis, dt in ((0, "f64"), (1, "f32"), (2, "i64"), (1, "i32"), (0, "c128")):
            add(f"tensor.{kind}-axis{axis}-{dt}", [T((3, 4, 5), dt)],
                lambda b, x, kind=kind, axis=axis: b.one(f"tensor.{kind}", x, axis=axis),
                lambda rng, dt=dt: [gen(rng, (3, 4, 5), dt, lo=0.5, hi=1.5, ilo=-3, ihi=3)])
    for kind in ("cummax", "cummin"):
        for axis, dt, dom in ((0, "f64", {}), (2, "f64", dict(specials=(NAN, -NAN))),
                              (1, "f32", {}), (2, "i8", dict(ilo=-100, ihi=100)),
                              (1, "u8", dict(ihi=200)), (0, "i1", {})):
            add(f"tensor.{kind}-axis{axis}-{dt}", [T((3, 4, 5), dt)],
                lambda b, x, kind=kind, axis=axis: b.one(f"tensor.{kind}", x, axis=axis),
                lambda rng, dt=dt, dom=dom: [gen(rng, (3, 4, 5), dt, **dom)])


# --- linear algebra -------------------------------------------------------------------------
DOTS = [
    # (id, a shape, b shape, lhs_batch, rhs_batch, lhs_contract, rhs_contract, einsum)
    ("matmul", (3, 4), (4, 5), [], [], [1], [0], "ij,jk->ik"),
    ("batch", (2, 3, 4), (2, 4, 5), [0], [0], [2], [1], "bij,bjk->bik"),
    ("batch-mid-2contract", (3, 2, 4, 5), (5, 2, 4, 6), [1], [1], [2, 3], [2, 0],
     "pbcd,dbcq->bpq"),
    ("vector", (4,), (4,), [], [], [0], [0], "i,i->"),
    ("outer", (3,), (4,), [], [], [], [], "i,j->ij"),
    ("transposed", (4, 3), (5, 4), [], [], [0], [1], "ji,kj->ik"),
]


def _linalg_samples():
    for k, (name, sa, sb, lb, rb, lc, rc, subs) in enumerate(DOTS):
        for dt in dict.fromkeys((("f64", "f32", "i64", "c128", "i32", "i1")[k % 6], "f64")):
            add(f"tensor.dot_general-{name}-{dt}", [T(sa, dt), T(sb, dt)],
                lambda b, x, y, lb=lb, rb=rb, lc=lc, rc=rc: b.one(
                    "tensor.dot_general", x, y, lhs_batch=lb, rhs_batch=rb, lhs_contract=lc,
                    rhs_contract=rc),
                lambda rng, sa=sa, sb=sb, dt=dt: [gen(rng, sa, dt, lo=0.5, hi=1.5, ilo=-50, ihi=50),
                                                  gen(rng, sb, dt, lo=0.5, hi=1.5, ilo=-50,
                                                      ihi=50)],
                numpy=lambda x, y, subs=subs: [np.asarray(np.einsum(subs, x, y))])
    # a computed scalar operand, nothing contracted (a gradient's ct * vector): the native
    # backend read the scalar's register as a buffer and crashed
    for dt, n in (("f64", 9), ("f32", 600)):
        add(f"tensor.dot_general-computed-scalar-{dt}-{n}", [T((), dt), T((n,), dt)],
            lambda b, s, y: b.one("tensor.dot_general", b.one("tensor.neg", s), y, lhs_batch=[],
                                  rhs_batch=[], lhs_contract=[], rhs_contract=[]),
            lambda rng, dt=dt, n=n: [gen(rng, (), dt), gen(rng, (n,), dt)],
            numpy=lambda s, y: [np.asarray(-s * y)])
    for dt, bshape in (("f64", (4,)), ("f64", (4, 3)), ("f32", (4, 2)), ("c128", (4,))):
        add(f"tensor.solve-{dt}-{_shape_id(bshape)}", [T((4, 4), dt), T(bshape, dt)],
            lambda b, a, y: b.one("tensor.solve", a, y),
            lambda rng, dt=dt, bshape=bshape: [well_conditioned(rng, 4, dt), gen(rng, bshape, dt)])
    for dt, batch in (("f64", ()), ("f32", ()), ("f64", (2,)), ("c128", ())):
        n = 3
        add(f"tensor.inv-{dt}-{_shape_id(batch + (n, n))}", [T(batch + (n, n), dt)],
            lambda b, a: b.one("tensor.inv", a),
            lambda rng, dt=dt, batch=batch: [well_conditioned(rng, 3, dt, batch)])
        add(f"tensor.cholesky-{dt}-{_shape_id(batch + (4, 4))}", [T(batch + (4, 4), dt)],
            lambda b, a: b.one("tensor.cholesky", a),
            lambda rng, dt=dt, batch=batch: [spd(rng, 4, dt, batch)])
        add(f"tensor.det-{dt}-{_shape_id(batch + (n, n))}", [T(batch + (n, n), dt)],
            lambda b, a: b.one("tensor.det", a),
            lambda rng, dt=dt, batch=batch: [well_conditioned(rng, 3, dt, batch)])
        if dt[0] == "f":
            add(f"tensor.slogdet-{dt}-{_shape_id(batch + (n, n))}", [T(batch + (n, n), dt)],
                lambda b, a: tuple(b.create("tensor.slogdet", [a], {}).results),
                lambda rng, dt=dt, batch=batch: [well_conditioned(rng, 3, dt, batch)])


def _recon(b, u, s, vh):
    """u @ diag(s) @ vh for one matrix: independent of the vectors' signs."""
    us = b.one("tensor.mul", u, b.one("tensor.convert", s, dtype=u.type.dtype))
    return b.one("tensor.dot_general", us, vh, lhs_batch=[], rhs_batch=[], lhs_contract=[1],
                 rhs_contract=[0])


def _sort_fft_decomposition_samples():
    for dt, shape, axis in (("f64", (7,), 0), ("f32", (3, 5), 1), ("i64", (4, 3), 0),
                            ("f64", (2, 3, 4), 1)):
        for name in ("sort", "argsort"):
            add(f"tensor.{name}-{dt}-{_shape_id(shape)}-ax{axis}", [T(shape, dt)],
                lambda b, x, name=name, axis=axis: b.one(f"tensor.{name}", x, axis=axis),
                lambda rng, shape=shape, dt=dt: [gen(rng, shape, dt, specials=(
                    (np.nan,) if dt[0] == "f" else ()))],
                numpy=lambda x, name=name, axis=axis: [getattr(np, name)(x, axis=axis,
                                                                          kind="stable")])
    for kind, dt, shape, n, axis in (("fft", "c128", (8,), 8, 0), ("fft", "f64", (3, 6), 4, 1),
                                     ("ifft", "c64", (5, 2), 7, 0), ("rfft", "f64", (9,), 9, 0),
                                     ("rfft", "f32", (2, 8), 10, 1),
                                     ("irfft", "c128", (5,), 8, 0), ("irfft", "c64", (4, 3), 5, 0)):
        add(f"tensor.fft-{kind}-{dt}-{_shape_id(shape)}-n{n}", [T(shape, dt)],
            lambda b, x, kind=kind, n=n, axis=axis: b.one("tensor.fft", x, kind=kind, n=n,
                                                          axis=axis),
            lambda rng, shape=shape, dt=dt: [gen(rng, shape, dt)])
    for dt in ("f64", "f32"):
        add(f"tensor.eigh-{dt}-4x4", [T((4, 4), dt)],
            lambda b, a: (lambda op: [op.results[0], _recon(
                b, op.results[1], op.results[0],
                b.one("tensor.transpose", op.results[1], perm=[1, 0]))])(
                b.create("tensor.eigh", [a], {"uplo": "L"})),
            lambda rng, dt=dt: [spd(rng, 4, dt)])
        for m, n in ((5, 3), (3, 4)):
            add(f"tensor.svd-{dt}-{m}x{n}", [T((m, n), dt)],
                lambda b, a: (lambda op: [op.results[1], _recon(b, *op.results)])(
                    b.create("tensor.svd", [a], {"full_matrices": False, "compute_uv": True})),
                lambda rng, dt=dt, m=m, n=n: [gen(rng, (m, n), dt)])
            add(f"tensor.svd-{dt}-{m}x{n}-values", [T((2, m, n), dt)],
                lambda b, a: b.one("tensor.svd", a, full_matrices=True, compute_uv=False),
                lambda rng, dt=dt, m=m, n=n: [gen(rng, (2, m, n), dt)])
            add(f"tensor.qr-{dt}-{m}x{n}", [T((m, n), dt)],
                lambda b, a: (lambda op: b.one(
                    "tensor.dot_general", *op.results, lhs_batch=[], rhs_batch=[],
                    lhs_contract=[1], rhs_contract=[0]))(b.create("tensor.qr", [a])),
                lambda rng, dt=dt, m=m, n=n: [gen(rng, (m, n), dt)])

    for dt, bshape, lower, unit in (("f64", (4,), True, False), ("f64", (4, 3), False, False),
                                    ("f32", (4, 2), True, True), ("c128", (4,), False, True)):
        add(f"tensor.triangular_solve-{dt}-{_shape_id(bshape)}-{'L' if lower else 'U'}"
            f"{'-unit' if unit else ''}", [T((4, 4), dt), T(bshape, dt)],
            lambda b, a, y, lower=lower, unit=unit: b.one(
                "tensor.triangular_solve", a, y, lower=lower, unit_diagonal=unit),
            lambda rng, dt=dt, bshape=bshape: [well_conditioned(rng, 4, dt), gen(rng, bshape, dt)],
            numpy=_scipy_triangular(lower, unit))


def _scipy_triangular(lower, unit):
    try:
        import scipy.linalg
    except ImportError:  # pragma: no cover
        return None
    return lambda a, y: [scipy.linalg.solve_triangular(a, y, lower=lower, unit_diagonal=unit)]


# --- control flow ---------------------------------------------------------------------------
def _for_body_acc(x):
    """loop body (iv, acc, count): acc = 0.5 * acc + x[iv]; count = count + iv."""
    def body(b, iv, acc, count):
        row = b.one("tensor.slice", x, b.one("tensor.convert", iv, dtype="i64"),
                    spec=[["i", 0], ["s", 0, 3, 1]])
        acc = b.one("tensor.add", b.one("tensor.mul", acc, b.constant(0.5, "f64")), row)
        count = b.one("tensor.add", count, b.one("tensor.convert", iv, dtype="i64"))
        return [acc, count]
    return body


def _for_ref(x, acc, lo, hi, st):
    count = 0
    for i in range(int(lo), int(hi), int(st)):
        acc = 0.5 * acc + x[i]
        count += i
    return [acc, np.int64(count)]


def _nested_ref(m):
    m = m.copy()
    for i in range(2, -1, -1):
        for j in range(4):
            m[i, j] = np.sqrt(m[i, j]) if m[i, j] > 0 else -m[i, j]
    return [m]


def _while_ref(x, limit):
    n = 0
    while x < limit:
        x, n = x * 1.5 + 1.0, n + 1
    return [np.float64(x), np.int64(n)]


def _control_samples():
    # loop.for with constant bounds (concrete under jax.jit), including zero-trip and
    # negative-step loops.
    for name, (lo, hi, st) in (("const", (0, 5, 1)), ("const-negstep", (7, -3, -3)),
                               ("const-zerotrip", (4, 4, 1)), ("const-backwards", (3, 1, 1))):
        def body(b, x, acc0, lo=lo, hi=hi, st=st):
            op = b.create("loop.for", [b.constant(lo, "i64"), b.constant(hi, "i64"),
                                       b.constant(st, "i64"), acc0, b.constant(0, "i64")],
                          regions=[region([S("i64"), T((3,), "f64"), S("i64")],
                                          _for_body_acc(x), b)])
            return op.results
        add(f"loop.for-{name}", [T((8, 3), "f64"), T((3,), "f64")], body,
            lambda rng: [gen(rng, (8, 3), "f64"), gen(rng, (3,), "f64")],
            numpy=lambda x, acc, lo=lo, hi=hi, st=st: _for_ref(x, acc, lo, hi, st))
    # loop.for with bounds from arguments (traced under jax.jit).
    for name, bounds, dt in (("dyn", (1, 8, 2), "i64"), ("dyn-negstep", (7, -1, -2), "i64"),
                             ("dyn-zerotrip", (5, 2, 1), "i64"),
                             ("dyn-negstep-zerotrip", (2, 5, -1), "i32"),
                             ("dyn-i32", (0, 7, 3), "i32")):
        def body(b, x, acc0, lo, hi, st, dt=dt):
            op = b.create("loop.for", [lo, hi, st, acc0, b.constant(0, "i64")],
                          regions=[region([S(dt), T((3,), "f64"), S("i64")],
                                          _for_body_acc(x), b)])
            return op.results
        add(f"loop.for-{name}", [T((8, 3), "f64"), T((3,), "f64"), S(dt), S(dt), S(dt)], body,
            lambda rng, bounds=bounds, dt=dt: [gen(rng, (8, 3), "f64"), gen(rng, (3,), "f64")]
            + [np.asarray(v, np_dtype(dt)) for v in bounds], numpy=_for_ref)

    # loop.for without carried values (results: none but the function returns an input),
    # and nested loops with a data-dependent loop.if inside.
    def nested(b, x):
        def outer(b, i, m):
            def inner(b, j, m):
                v = b.one("tensor.slice", m, i, j, spec=[["i", 0], ["i", 1]])
                c = b.one("tensor.gt", v, b.constant(0.0, "f64"))
                then = region([], lambda b: [b.one("tensor.update_slice", m,
                                                   b.one("tensor.sqrt", v), i, j,
                                                   spec=[["i", 0], ["i", 1]])], b)
                other = region([], lambda b: [b.one("tensor.update_slice", m,
                                                    b.one("tensor.neg", v), i, j,
                                                    spec=[["i", 0], ["i", 1]])], b)
                return b.create("loop.if", [c], regions=[then, other]).results
            return b.create("loop.for", [b.constant(0, "i64"), b.constant(4, "i64"),
                                         b.constant(1, "i64"), m],
                            regions=[region([S("i64"), T((3, 4), "f64")], inner, b)]).results
        return b.create("loop.for", [b.constant(2, "i64"), b.constant(-1, "i64"),
                                     b.constant(-1, "i64"), x],
                        regions=[region([S("i64"), T((3, 4), "f64")], outer, b)]).results
    add("loop.for-nested-if", [T((3, 4), "f64")], nested, lambda rng: [gen(rng, (3, 4), "f64")],
        numpy=_nested_ref)

    def no_carry(b, x, n):
        b.create("loop.for", [b.constant(0, "i64"), n, b.constant(1, "i64")],
                 regions=[region([S("i64")], lambda b, i: [], b)])
        return [x]
    add("loop.for-no-carried", [T((2,), "f32"), S("i64")], no_carry,
        lambda rng: [gen(rng, (2,), "f32"), np.asarray(3, np.int64)])

    # loop.while: data-dependent trip count.
    def while_scalar(b, x0, limit):
        cond = region([S("f64"), S("i64")], lambda b, x, n: [b.one("tensor.lt", x, limit)], b,
                      term="loop.condition")
        body = region([S("f64"), S("i64")], lambda b, x, n: [
            b.one("tensor.add", b.one("tensor.mul", x, b.constant(1.5, "f64")),
                  b.constant(1.0, "f64")),
            b.one("tensor.add", n, b.constant(1, "i64"))], b)
        return b.create("loop.while", [x0, b.constant(0, "i64")], regions=[cond, body]).results
    add("loop.while-scalar", [S("f64"), S("f64")], while_scalar,
        lambda rng: [gen(rng, (), "f64", lo=0, hi=5), gen(rng, (), "f64", lo=-10, hi=200)],
        numpy=_while_ref)

    def while_tensor(b, v0):
        cond = region([T((4,), "f32")], lambda b, v: [b.one("tensor.lt", b.one(
            "tensor.reduce_sum", v, axes=[0], keepdims=False), b.constant(100.0, "f32"))], b,
            term="loop.condition")
        body = region([T((4,), "f32")], lambda b, v: [b.one("tensor.mul", v,
                                                           b.constant(2.0, "f32"))], b)
        return b.create("loop.while", [v0], regions=[cond, body]).results
    add("loop.while-tensor", [T((4,), "f32")], while_tensor,
        lambda rng: [gen(rng, (4,), "f32", lo=0.1, hi=3)])

    # loop.if: a data-dependent condition (traced), and a constant one (concrete).
    def if_dyn(b, x, y):
        c = b.one("tensor.gt", b.one("tensor.reduce_sum", x, axes=[0, 1], keepdims=False),
                  b.constant(0.0, "f64"))
        then = region([], lambda b: [b.one("tensor.mul", x, b.constant(2.0, "f64")), y], b)
        other = region([], lambda b: [b.one("tensor.neg", x),
                                      b.one("tensor.add", y, b.constant(1, "i32"))], b)
        return b.create("loop.if", [c], regions=[then, other]).results
    add("loop.if-data-dependent", [T((2, 3), "f64"), S("i32")], if_dyn,
        lambda rng: [gen(rng, (2, 3), "f64"), gen(rng, (), "i32", ilo=-9, ihi=9)])

    def if_const(b, x):
        then = region([], lambda b: [b.one("tensor.exp", x)], b)
        other = region([], lambda b: [x], b)
        return b.create("loop.if", [b.constant(False, "i1")], regions=[then, other]).results
    add("loop.if-constant", [T((3,), "f64")], if_const, lambda rng: [gen(rng, (3,), "f64")])


# --- array level ----------------------------------------------------------------------------
def _array_samples():
    full = lambda shape: [["s", 0, n, 1] for n in shape]  # noqa: E731

    def write_read(b, A, v):
        b.create("array.write", [v, A], {"spec": [["s", 0, 6, 2]]})
        return [b.one("array.read", A, spec=[["s", 5, -1, -1]])]
    add("array.write-stepped-read-reversed", [RefType((6,), "f64"), T((3,), "f64")],
        write_read, lambda rng: [gen(rng, (6,), "f64"), gen(rng, (3,), "f64")], "array")

    def alloc_loop(b, x):
        B = b.one("array.alloc", x)

        def body(b, i):
            row = b.one("array.read", B, i, spec=[["i", 0], ["s", 0, 5, 1]])
            b.create("array.write", [b.one("tensor.mul", row, b.constant(2.0, "f64")), B, i],
                     {"spec": [["i", 0], ["s", 0, 5, 1]]})
            return []
        b.create("loop.for", [b.constant(0, "i64"), b.constant(4, "i64"), b.constant(2, "i64")],
                 regions=[region([S("i64")], body, b)])
        return [b.one("array.read", B, spec=full((4, 5))), x]
    add("array.alloc-loop-rows", [T((4, 5), "f64")], alloc_loop,
        lambda rng: [gen(rng, (4, 5), "f64")], "array")

    def smooth(b, T_, A, B):
        def body(b, t):
            lo = b.one("array.read", A, spec=[["s", 0, 3, 1]])
            hi = b.one("array.read", A, spec=[["s", 2, 5, 1]])
            v = b.one("tensor.mul", b.one("tensor.add", lo, hi), b.constant(0.5, "f64"))
            b.create("array.write", [v, B], {"spec": [["s", 1, 4, 1]]})
            b.create("array.write", [b.one("array.read", B, spec=full((5,))), A],
                     {"spec": full((5,))})
            return []
        b.create("loop.for", [b.constant(1, "i64"), T_, b.constant(1, "i64")],
                 regions=[region([S("i64")], body, b)])
        return []
    add("array.read-write-smooth", [S("i64"), RefType((5,), "f64"), RefType((5,), "f64")],
        smooth, lambda rng: [np.asarray(4, np.int64), gen(rng, (5,), "f64"),
                             gen(rng, (5,), "f64")], "array")

    def if_write(b, A, k):
        c = b.one("tensor.gt", b.one("array.read", A, k, spec=[["i", 0]]),
                  b.constant(0, "i32"))
        def then_body(b):
            b.create("array.write", [b.constant(100, "i32"), A, k], {"spec": [["i", 0]]})
            return []
        then = region([], then_body, b)
        other = region([], lambda b: [], b)
        b.create("loop.if", [c], regions=[then, other])
        return [b.one("array.read", A, spec=[["c", 0]])]
    add("array.write-under-if", [RefType((6,), "i32"), S("i64")], if_write,
        lambda rng: [gen(rng, (6,), "i32", ilo=-5, ihi=5), ints(rng, (), "i64", -6, 5)], "array")

    def while_write(b, A):
        def cond(b, n):
            return [b.one("tensor.lt", b.one("array.read", A, spec=[["c", 1], ["c", 2]]),
                          b.constant(50.0, "f32"))]

        def body(b, n):
            blk = b.one("array.read", A, n, spec=[["s", 0, 2, 1], ["d", 0, 2]])
            b.create("array.write", [b.one("tensor.add", blk, b.constant(3.0, "f32")), A, n],
                     {"spec": [["s", 0, 2, 1], ["d", 0, 2]]})
            return [b.one("tensor.sub", b.constant(1, "i64"), n)]
        op = b.create("loop.while", [b.constant(0, "i64")],
                      regions=[region([S("i64")], cond, b, term="loop.condition"),
                               region([S("i64")], body, b)])
        return op.results
    add("array.write-in-while", [RefType((2, 3), "f32")], while_write,
        lambda rng: [gen(rng, (2, 3), "f32", lo=0, hi=5)], "array")

    def barrier(b, x, out):
        # one block of 8 threads: each stores 2 * x[t] in shared memory, and after the
        # barrier reads its mirror thread's element (run in order without the barrier,
        # threads 0..3 would read zeros); v is kept per thread across the barrier
        sh = b.one("array.alloc", b.one("tensor.broadcast_to", b.constant(0.0, "f64"),
                                        shape=[8]))

        def body(b, t):
            v = b.one("tensor.mul", b.one("array.read", x, t, spec=[["i", 0]]),
                      b.constant(2.0, "f64"))
            b.create("array.write", [v, sh, t], {"spec": [["i", 0]]})
            b.create("simt.barrier", [], {"line": 1})
            m = b.one("tensor.sub", b.constant(7, "i64"), t)
            w = b.one("tensor.add", b.one("array.read", sh, m, spec=[["i", 0]]), v)
            b.create("array.write", [w, out, t], {"spec": [["i", 0]]})
            return []
        b.create("loop.for", [b.constant(0, "i64"), b.constant(8, "i64"), b.constant(1, "i64")],
                 {"simt": "threads"}, regions=[region([S("i64")], body, b)])
        return [b.one("array.read", out, spec=full((8,)))]
    add("simt.barrier-mirror-threads", [RefType((8,), "f64"), RefType((8,), "f64")], barrier,
        lambda rng: [gen(rng, (8,), "f64"), gen(rng, (8,), "f64")], "array",
        numpy=lambda x, out: [2.0 * x[::-1] + 2.0 * x])


def _check_samples():
    """error.check at top level, in a for body, in a while condition and body, in an if;
    inputs make some seeds fail and others pass."""
    msg = "index {} is out of bounds for axis 0 with size 6"

    def in_bounds(b, k):
        lo = b.one("tensor.ge", k, b.constant(-6, "i64"))
        return b.one("tensor.and", lo, b.one("tensor.lt", k, b.constant(6, "i64")))

    def check(b, k):
        b.create("error.check", [in_bounds(b, k), k], {"kind": "IndexError", "message": msg})

    def top(b, x, k):
        check(b, k)
        return [b.one("tensor.slice", x, k, spec=[["i", 0]])]
    add("error.check-top", [T((6,), "f64"), S("i64")], top,
        lambda rng: [gen(rng, (6,), "f64"), ints(rng, (), "i64", -8, 8)], "check")

    def in_for(b, x, k):
        def body(b, i, acc):
            j = b.one("tensor.add", i, k)
            check(b, j)
            return [b.one("tensor.add", acc, b.one("tensor.slice", x, j, spec=[["i", 0]]))]
        op = b.create("loop.for", [b.constant(0, "i64"), b.constant(4, "i64"),
                                   b.constant(1, "i64"), b.constant(0.0, "f64")],
                      regions=[region([S("i64"), S("f64")], body, b)])
        return op.results
    add("error.check-in-for", [T((6,), "f64"), S("i64")], in_for,
        lambda rng: [gen(rng, (6,), "f64"), ints(rng, (), "i64", -4, 4)], "check")

    def in_while(b, x, k):
        def cond(b, i):  # while x[i] > -2.5: reads past the end unless a value stops it
            check(b, i)
            return [b.one("tensor.gt", b.one("tensor.slice", x, i, spec=[["i", 0]]),
                          b.constant(-2.5, "f64"))]

        def body(b, i):
            check(b, b.one("tensor.sub", k, i))
            return [b.one("tensor.add", i, b.constant(1, "i64"))]
        op = b.create("loop.while", [b.constant(0, "i64")],
                      regions=[region([S("i64")], cond, b, term="loop.condition"),
                               region([S("i64")], body, b)])
        return op.results
    add("error.check-in-while", [T((6,), "f64"), S("i64")], in_while,
        lambda rng: [gen(rng, (6,), "f64"), ints(rng, (), "i64", -1, 10)], "check")

    def in_if(b, x, k):
        def then(b):
            check(b, k)
            return [b.one("tensor.slice", x, k, spec=[["i", 0]])]
        op = b.create("loop.if", [b.one("tensor.gt", b.one("tensor.slice", x, spec=[["c", 0]]),
                                        b.constant(0.0, "f64"))],
                      regions=[region([], then, b), region([], lambda b: [b.constant(0.0, "f64")], b)])
        return op.results
    add("error.check-in-if", [T((6,), "f64"), S("i64")], in_if,
        lambda rng: [gen(rng, (6,), "f64"), ints(rng, (), "i64", -8, 8)], "check")


def _print_samples():
    """io.print of an array and a Python-int scalar in a loop body (the text is checked in
    tests/frontend/test_print.py against Python's own print); the results must agree."""
    args = [[["s", "row"]], [["v", 1, "", "", "py"]], [["v", 0, "", "", "np"]],
            [["s", "k="], ["v", 1, "r", ">3", "py"]]]

    def body(b, x, k):
        def step(b, i, acc):
            b.create("io.print", [acc, i], {"args": args, "sep": " ", "end": "\n"})
            return [b.one("tensor.mul", acc, b.constant(0.5, "f32"))]
        op = b.create("loop.for", [b.constant(0, "i64"), k, b.constant(1, "i64"), x],
                      regions=[region([S("i64"), T((2, 3), "f32")], step, b)])
        return op.results
    add("io.print-in-for", [T((2, 3), "f32"), S("i64")], body,
        lambda rng: [gen(rng, (2, 3), "f32"), ints(rng, (), "i64", 0, 3)],
        numpy=lambda x, k: [x * np.float32(0.5) ** max(int(k), 0)])


def _runtime_slice(b, x, lo, hi, step):
    return b.one("tensor.slice", x, lo, hi, spec=[["r", 0, 1, step]])


def _dynamic_samples():
    """Ops on values with a run-time dim: slices with run-time bounds (NumPy's clamping,
    negative bounds, steps, empty results), boolean masks (1-d, 2-d flattening, leading-dim,
    all-true/all-false through random inputs, size 0), nonzero, and what consumes them."""
    def bounds(rng):
        return [ints(rng, (), "i64", -10, 10), ints(rng, (), "i64", -10, 10)]
    for step in (1, 2, -1, -3):
        add(f"tensor.slice-runtime-step{step}", [T((7,), "f64"), S("i64"), S("i64")],
            lambda b, x, lo, hi, step=step: _runtime_slice(b, x, lo, hi, step),
            lambda rng: [gen(rng, (7,), "f64")] + bounds(rng), "dynamic",
            numpy=lambda x, lo, hi, step=step: [x[lo:hi:step].copy()])
    add("tensor.slice-runtime-step-operand", [T((7,), "f64"), S("i64"), S("i64"), S("i64")],
        lambda b, x, lo, hi, st: b.one("tensor.slice", x, lo, hi, st,
                                       spec=[["r", 0, 1, 0, 2]]),
        lambda rng: [gen(rng, (7,), "f64")] + bounds(rng) + [
            np.int64(rng.choice([-4, -2, -1, 1, 2, 3, 8]))], "dynamic",
        numpy=lambda x, lo, hi, st: [x[lo:hi:st].copy()])
    add("tensor.update_slice-runtime-step-operand", [T((8,), "i32"), S("i32"), S("i64")],
        lambda b, x, v, st: b.one("tensor.update_slice", x, v, st, st,
                                  spec=[["r", 0, -1, 0, 1]]),   # x[st::st] = v
        lambda rng: [gen(rng, (8,), "i32"), gen(rng, (), "i32"),
                     np.int64(rng.choice([-5, -3, -1, 1, 2, 3, 9]))], "dynamic",
        numpy=lambda x, v, st: _set(x, v, slice(st, None, st)))
    add("tensor.slice-runtime-open-2d", [T((4, 5), "i8"), S("i64")],
        lambda b, x, hi: b.one("tensor.slice", x, hi, spec=[["r", -1, 0, 1], ["c", 2]]),
        lambda rng: [gen(rng, (4, 5), "i8"), ints(rng, (), "i64", -6, 6)], "dynamic",
        numpy=lambda x, hi: [x[:hi, 2].copy()])
    add("tensor.dim-runtime-slice", [T((7,), "f32"), S("i64"), S("i64")],
        lambda b, x, lo, hi: b.one("tensor.dim", _runtime_slice(b, x, lo, hi, 1), axis=0),
        lambda rng: [gen(rng, (7,), "f32")] + bounds(rng), "dynamic",
        numpy=lambda x, lo, hi: [np.int64(len(x[lo:hi]))])
    add("tensor.update_slice-runtime-fill", [T((6,), "c64"), S("c64"), S("i64"), S("i64")],
        lambda b, x, v, lo, hi: b.one("tensor.update_slice", x, v, lo, hi,
                                      spec=[["r", 0, 1, 1]]),
        lambda rng: [gen(rng, (6,), "c64"), gen(rng, (), "c64")] + bounds(rng), "dynamic",
        numpy=lambda x, v, lo, hi: _set(x, v, slice(lo, hi)))
    add("tensor.update_slice-runtime-value", [T((6,), "f64"), T((6,), "f64"), S("i64")],
        lambda b, x, y, k: b.one("tensor.update_slice", x, _runtime_slice(b, y, k, k, -1), k,
                                 k, spec=[["r", 1, 0, 1]]),  # x[k:k] = ... lengths equal:
        lambda rng: [gen(rng, (6,), "f64"), gen(rng, (6,), "f64"),
                     ints(rng, (), "i64", -7, 7)], "dynamic",
        numpy=lambda x, y, k: _set(x, y[k:k:-1], slice(k, k)))
    for name, xs, ms in (("1d", (9,), (9,)), ("2d-flattens", (3, 4), (3, 4)),
                         ("leading", (3, 4), (3,)), ("empty", (0,), (0,))):
        add(f"tensor.mask_select-{name}", [T(xs, "f64"), T(ms, "i1")],
            lambda b, x, m: b.one("tensor.mask_select", x, m),
            lambda rng, xs=xs, ms=ms: [gen(rng, xs, "f64"), gen(rng, ms, "i1")], "dynamic",
            numpy=lambda x, m: [x[m]])
    add("tensor.mask_select-then-sum", [T((10,), "f32")],
        lambda b, x: b.one("tensor.reduce_sum", b.one("tensor.mask_select", x, b.one(
            "tensor.lt", b.one("tensor.abs", x), b.constant(1.5, "f32"))), axes=[0],
            keepdims=False),
        lambda rng: [gen(rng, (10,), "f32")], "dynamic",
        numpy=lambda x: [np.sum(x[np.abs(x) < np.float32(1.5)], dtype=np.float32)])
    for name, xs, dt in (("1d", (8,), "i8"), ("2d", (3, 4), "f64"), ("empty", (0, 2), "i32")):
        add(f"tensor.nonzero-{name}", [T(xs, dt)],
            lambda b, x: b.one("tensor.nonzero", x),
            lambda rng, xs=xs, dt=dt: [gen(rng, xs, dt) * (rng.random(xs) < 0.5)], "dynamic",
            numpy=lambda x: [np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)])
    for name, dt, k in (("f64", "f64", 5), ("i8-empty", "i8", 0), ("negative", "i32", -2)):
        add(f"tensor.fill-{name}", [S(dt)],
            lambda b, v, k=k: b.one("tensor.fill", v, b.constant(k, "i64")),
            lambda rng, dt=dt: [gen(rng, (), dt)], "dynamic",
            numpy=lambda v, k=k: [np.full(max(k, 0), v)])
    add("tensor.fill-runtime-length-then-scatter_add", [T((6,), "i64")],
        lambda b, x: b.one("tensor.scatter_add", b.one(
            "tensor.fill", b.constant(0, "i64"), b.one("tensor.add", b.one(
                "tensor.reduce_max", x, axes=[0], keepdims=False), b.constant(1, "i64"))),
            b.one("tensor.broadcast_to", b.constant(1, "i64"), shape=[6]), x, axes=[0]),
        lambda rng: [ints(rng, (6,), "i64", 0, 9)], "dynamic",
        numpy=lambda x: [np.bincount(x)])
    add("tensor.gather-runtime-source", [T((9,), "f64"), T((3,), "i64")],
        lambda b, x, idx: b.one("tensor.gather", b.one("tensor.mask_select", x, b.one(
            "tensor.gt", x, b.constant(-10.0, "f64"))), idx, axes=[0], front=False),
        lambda rng: [gen(rng, (9,), "f64"), ints(rng, (3,), "i64", -9, 8)], "dynamic",
        numpy=lambda x, idx: [x[idx]])
    add("tensor.mask_select-runtime-mask", [T((9,), "f32")],
        lambda b, x: (lambda y: b.one("tensor.mask_select", y, b.one(
            "tensor.gt", y, b.constant(0.5, "f32"))))(b.one("tensor.mask_select", x, b.one(
                "tensor.gt", x, b.constant(0.0, "f32")))),
        lambda rng: [gen(rng, (9,), "f32")], "dynamic",
        numpy=lambda x: [x[x > 0][x[x > 0] > np.float32(0.5)]])
    add("tensor.update_slice-runtime-target", [T((8,), "f64"), S("f64"), S("i64")],
        lambda b, x, v, k: b.one("tensor.update_slice", b.one("tensor.mask_select", x, b.one(
            "tensor.gt", x, b.constant(-10.0, "f64"))), v, k, spec=[["i", 0]]),
        lambda rng: [gen(rng, (8,), "f64"), gen(rng, (), "f64"), ints(rng, (), "i64", -8, 7)],
        "dynamic", numpy=lambda x, v, k: _set(x, v, k))
    add("tensor.scatter-runtime-target", [T((8,), "i32"), T((2,), "i32"), T((2,), "i64")],
        lambda b, x, v, idx: b.one("tensor.scatter", b.one("tensor.mask_select", x, b.one(
            "tensor.gt", x, b.constant(-1000, "i32"))), v, idx, axes=[0]),
        lambda rng: [ints(rng, (8,), "i32", -50, 50), gen(rng, (2,), "i32"),
                     ints(rng, (2,), "i64", -8, 7)],
        "dynamic", numpy=lambda x, v, idx: _set(x, v, idx))
    add("tensor.dot_general-runtime-vectors", [T((8,), "f64"), T((8,), "f64"), S("i64"),
                                               S("i64")],
        lambda b, x, y, lo, hi: b.one("tensor.dot_general", _runtime_slice(b, x, lo, hi, 1),
                                      _runtime_slice(b, y, lo, hi, 1), lhs_batch=[],
                                      rhs_batch=[], lhs_contract=[0], rhs_contract=[0]),
        lambda rng: [gen(rng, (8,), "f64"), gen(rng, (8,), "f64")] + bounds(rng), "dynamic",
        numpy=lambda x, y, lo, hi: [x[lo:hi] @ y[lo:hi]])
    add("tensor.dot_general-runtime-matrix-vector", [T((4, 6), "f32"), T((6,), "f32"),
                                                      S("i64")],
        lambda b, m, y, hi: b.one("tensor.dot_general", b.one(
            "tensor.slice", m, hi, spec=[["s", 0, 4, 1], ["r", -1, 0, 1]]),
            b.one("tensor.slice", y, hi, spec=[["r", -1, 0, 1]]),
            lhs_batch=[], rhs_batch=[], lhs_contract=[1], rhs_contract=[0]),
        lambda rng: [gen(rng, (4, 6), "f32"), gen(rng, (6,), "f32"),
                     ints(rng, (), "i64", -8, 8)], "dynamic",
        numpy=lambda m, y, hi: [m[:, :hi] @ y[:hi]])
    add("tensor.gather-runtime-index", [T((5,), "f64"), T((9,), "i32"), S("i64"), S("i64")],
        lambda b, x, idx, lo, hi: b.one("tensor.gather", x, _runtime_slice(b, idx, lo, hi, 1),
                                        axes=[0], front=False),
        lambda rng: [gen(rng, (5,), "f64"), ints(rng, (9,), "i32", -5, 4)] + bounds(rng),
        "dynamic", numpy=lambda x, idx, lo, hi: [x[idx[lo:hi]]])
    add("tensor.mul-runtime-and-static-1", [T((8,), "f64"), T((1,), "f64"), S("i64")],
        lambda b, x, y, hi: b.one("tensor.mul", b.one("tensor.slice", x, hi,
                                                      spec=[["r", -1, 0, 1]]), y),
        lambda rng: [gen(rng, (8,), "f64"), gen(rng, (1,), "f64"),
                     ints(rng, (), "i64", -9, 9)], "dynamic",
        numpy=lambda x, y, hi: [x[:hi] * y])


_unary_samples()
_binary_samples()
_select_samples()
_convert_samples()
_complex_samples()
_constant_samples()
_creation_samples()
_shape_samples()
_slice_samples()
_gather_samples()
_scatter_samples()
_reduction_samples()
_linalg_samples()
_sort_fft_decomposition_samples()
_control_samples()
_array_samples()
_check_samples()
_print_samples()
_dynamic_samples()

_ids = [s.id for s in SAMPLES]
assert len(set(_ids)) == len(_ids), [i for i in _ids if _ids.count(i) > 1]
