"""Every VJP rule against central finite differences and the dot-product test, on the op
registry's samples (float64 arguments), and a registry test: every differentiable op has a
rule."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
sys.path.insert(0, os.path.dirname(__file__))

from fd import directional, fd_grad, rel_close  # noqa: E402
from op_samples import SAMPLES  # noqa: E402
import solvent  # noqa: E402,F401
from solvent.autodiff import vjp_function  # noqa: E402
from solvent.backends import get_backend  # noqa: E402
from solvent.ir.registry import REGISTRY, _VJPS  # noqa: E402
from solvent.ir.types import TensorType, is_float  # noqa: E402
from solvent.ir.verifier import verify  # noqa: E402

# Ops with float operands or results that have no VJP rule, and why.
NOT_DIFFERENTIABLE = {
    "tensor.constant": "no operands",
    "io.print": "no results: a side effect, kept in the gradient's forward sweep only",
    "tensor.iota": "no operands",
    "tensor.argmax": "integer result", "tensor.argmin": "integer result",
    "tensor.reduce_any": "boolean", "tensor.reduce_all": "boolean",
    "tensor.argsort": "integer result",
    "tensor.dim": "integer result", "tensor.nonzero": "integer result",
    "tensor.mask_select": "not yet: run-time shapes are not differentiated",
    "tensor.fill": "not yet: run-time shapes are not differentiated",
}
BOOLEAN_OR_INTEGER = {"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor", "not", "bitand",
                      "bitor", "bitxor", "shl", "shr", "invert", "isnan", "isinf",
                      "isfinite"}
CONTROL = {"loop.for", "loop.while", "loop.if"}  # the transformation itself handles them


def test_every_differentiable_op_has_a_rule():
    missing = []
    for name, opdef in REGISTRY.items():
        if opdef.level != "tensor" or name in NOT_DIFFERENTIABLE or name in CONTROL:
            continue
        if name.split(".", 1)[1] in BOOLEAN_OR_INTEGER or name == "error.check":
            continue
        if name not in _VJPS:
            missing.append(name)
    assert not missing, f"ops without a VJP rule: {missing}"


# Samples whose inputs sit on a kink (ties drawn on a grid, values at 0) where one-sided
# derivatives differ: finite differences there measure neither side.
KINKED = ("tensor.abs", "tensor.max", "tensor.min", "tensor.fmax", "tensor.fmin",
          "tensor.reduce_max", "tensor.reduce_min", "tensor.mod", "tensor.floordiv",
          "tensor.copysign", "tensor.floor", "tensor.ceil", "tensor.trunc", "tensor.rint",
          "tensor.sign", "tensor.select", "tensor.pow", "tensor.sort", "tensor.cummax",
          "tensor.cummin")


def _f64_sample(s):
    if s.level != "tensor":
        return False
    args = [a.type for a in s.fn.args]
    res = s.fn.result_types
    return (any(t.dtype == "f64" for t in args) and all(t.dtype == "f64" for t in res)
            and all(t.dtype == "f64" or t.dtype[0] in "iu" for t in args))


# complex samples (fft, real, imag, conj, angle) are checked in test_fft_grads.py
CASES = [s for s in SAMPLES if _f64_sample(s)]


def _run(fn, args):
    return get_backend("interp").compile(fn)(*args)


@pytest.mark.parametrize("sample", CASES, ids=[s.id for s in CASES])
def test_rule_matches_finite_differences(sample):
    rng = np.random.default_rng(7)
    fn = sample.fn
    ops = {op.name for op in fn.walk()} - {"func.return", "loop.yield", "loop.condition"}
    if ops & set(NOT_DIFFERENTIABLE) - {"tensor.constant", "tensor.iota"}:
        pytest.skip(f"{sorted(ops)}: no VJP rule (NOT_DIFFERENTIABLE)")
    wrt = [i for i, a in enumerate(fn.args) if a.type.dtype == "f64"]
    g, seeded = vjp_function(fn, wrt)
    verify(g, tensor_only=True)
    kinked = ops & set(KINKED)
    args = sample.inputs(rng)
    if kinked:  # move off kinks and ties: continuous random values
        args = [rng.uniform(0.5, 1.5, np.shape(a)) * rng.choice([-1.0, 1.0], np.shape(a))
                if fn.args[i].type.dtype == "f64" else a for i, a in enumerate(args)]
        if "tensor.pow" in ops or "tensor.mod" in ops or "tensor.copysign" in ops:
            args = [np.abs(a) + 0.5 if fn.args[i].type.dtype == "f64" else a
                    for i, a in enumerate(args)]
    res_types = fn.result_types
    ws = [rng.standard_normal(t.shape) for t in res_types]

    def loss(*a):
        outs = _run(fn, list(a))
        return sum(float(np.sum(np.asarray(o) * w)) for o, w in zip(outs, ws))

    outs = _run(g, list(args) + [w if w.shape else w[()] for w in ws])
    grads = outs[len(res_types):]
    for k, gr in zip(wrt, grads):
        gr = np.asarray(gr)
        shape = np.shape(args[k])
        if int(np.prod(shape)) <= 300:
            expected = fd_grad(loss, args, k)
        else:  # large samples: 25 random elements (the dot-product test covers the rest)
            flat = rng.choice(int(np.prod(shape)), 25, replace=False)
            positions = [np.unravel_index(p, shape) for p in flat]
            expected = fd_grad(loss, args, k, positions=positions)
            gr = np.array([gr[p] for p in positions])
            expected = np.array([expected[p] for p in positions])
        np.testing.assert_allclose(gr, expected, rtol=1e-5, atol=1e-6,
                                   err_msg=f"argument {k}")
    # dot-product test: <J v, w> = <v, J^T w>
    vs = [rng.standard_normal(np.shape(args[k])) for k in wrt]
    jv_w = directional(loss, args, wrt, vs)
    v_jtw = sum(float(np.sum(v * np.asarray(gr))) for v, gr in zip(vs, grads))
    assert rel_close(jv_w, v_jtw, 1e-6, floor=1e-9), (jv_w, v_jtw)


def _prod_rows(x):
    return np.sum(np.prod(x, axis=-1) * np.arange(1.0, 1.0 + x.shape[0]))


@pytest.mark.parametrize("backend", ["interp", "xla", "native"])
def test_prod_with_zeros_gives_the_product_of_the_others(backend):
    """d prod / dx_i is the product of the other elements: at the one zero of a row, the
    product of the rest; with two zeros in a row, 0 everywhere in it (``prod / x`` gave NaN
    at a zero)."""
    x = np.array([[2.0, 0.0, 3.0], [0.0, 5.0, 0.0], [1.5, -2.0, 4.0]])
    got = solvent.grad(_prod_rows, backend=backend)(x)
    want = np.array([[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [-24.0, 18.0, -9.0]])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_allclose(got, fd_grad(_prod_rows, (x,), 0), rtol=1e-7, atol=1e-7)
