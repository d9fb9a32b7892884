"""The two XLA lowerings of tensor.update_slice agree with the interpreter: in-place
dynamic_update_slice, and the one-pass select used when the new value is computed from
neighbouring parts of the same array (a stencil step) or from other arrays only."""
import numpy as np
import pytest

from solvent.backends import interp
from solvent.backends.xla import XlaExecutable
from solvent.ir.builder import Builder
from solvent.ir.core import Block, Function
from solvent.ir.types import TensorType
from solvent.ir.verifier import verify
from solvent.ops.indexspec import result_shape
from solvent.ops.structural import one_pass_update


def _stencil_update(shape, read_specs, write_spec, dtype="f64", source="x"):
    """``x[write_spec] = sum(src[r] for r in read_specs)`` where ``src`` is ``x`` itself or,
    with ``source="a"``, a second argument of the same shape."""
    body = Block()
    b = Builder(body)
    x = body.add_arg(TensorType(shape, dtype), "x")
    src = x if source == "x" else body.add_arg(TensorType(shape, dtype), source)
    parts = [b.one("tensor.slice", src, spec=s) for s in read_specs]
    v = parts[0]
    for p in parts[1:]:
        v = b.one("tensor.add", v, p)
    y = b.create("tensor.update_slice", [x, v], {"spec": write_spec})
    b.create("func.return", [y.result])
    fn = Function("f", body, ["x", source][:len(body.args)])
    verify(fn, tensor_only=True)
    return fn, y


CASES = {
    "2d-interior": ((6, 7), [[["s", 0, 4, 1], ["s", 1, 6, 1]], [["s", 2, 6, 1], ["s", 1, 6, 1]]],
                    [["s", 1, 5, 1], ["s", 1, 6, 1]]),
    "1d-stepped": ((9,), [[["s", 0, 5, 1]], [["s", 4, 9, 1]]], [["s", 0, 9, 2]]),
    "1d-reversed": ((8,), [[["s", 0, 7, 1]], [["s", 1, 8, 1]]], [["s", 6, -1, -1]]),
    "2d-column-stepped": ((5, 8), [[["s", 0, 5, 1], ["s", 0, 4, 1]], [["s", 0, 5, 1], ["s", 4, 8, 1]]],
                          [["s", 0, 5, 1], ["s", 1, 8, 2]]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_neighbour_updates_take_the_one_pass_lowering_and_match(name, dtype):
    shape, reads, write = CASES[name]
    assert all(result_shape(shape, r, 0) == result_shape(shape, write, 0) for r in reads)
    fn, op = _stencil_update(shape, reads, write, dtype)
    assert one_pass_update(op)
    x = np.random.default_rng(0).random(shape).astype(np.float32 if dtype == "f32" else np.float64)
    expected = interp.run(fn, [x.copy()])[0]
    actual = XlaExecutable(fn)(x.copy())[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-6)


def test_same_region_update_stays_in_place():
    spec = [["s", 1, 6, 1]]
    fn, op = _stencil_update((7,), [spec, spec], spec)
    assert not one_pass_update(op)


def test_neighbour_update_whose_value_is_also_used_elsewhere_takes_the_one_pass_lowering():
    """``err = max(new - u[1:-1]); u[1:-1] = new``: XLA would recompute ``new`` inside an
    in-place update anyway, so the second use does not change the choice."""
    shape, reads, write = CASES["2d-interior"]
    fn, op = _stencil_update(shape, reads, write)
    b = Builder(fn.body)
    ret = fn.body.ops.pop()  # func.return: rebuilt with the value's second use
    err = b.one("tensor.reduce_max", op.operands[1], axes=[0, 1], keepdims=False)
    b.create("func.return", [ret.operands[0], err])
    verify(fn, tensor_only=True)
    assert one_pass_update(op)
    x = np.random.default_rng(1).random(shape)
    for got, want in zip(XlaExecutable(fn)(x.copy()), interp.run(fn, [x.copy()])):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_update_computed_from_another_array_takes_the_one_pass_lowering_and_matches(name):
    """``B[1:-1] = f(A[:-2], A[2:])``: XLA:CPU splits the one pass over its threads and
    runs an in-place update on one."""
    shape, reads, write = CASES[name]
    fn, op = _stencil_update(shape, reads, write, source="a")
    assert one_pass_update(op)
    rng = np.random.default_rng(2)
    x, a = rng.random(shape), rng.random(shape)
    exe = XlaExecutable(fn)
    covers_most = 2 * np.prod(result_shape(shape, write, 0)) >= x.size  # else it stays small
    assert ("dynamic_update_slice" in exe.lower_text(x, a)) == (not covers_most)
    np.testing.assert_allclose(exe(x.copy(), a)[0], interp.run(fn, [x.copy(), a])[0],
                               rtol=1e-12)


def test_same_region_update_lowers_to_dynamic_update_slice():
    spec = [["s", 1, 6, 1]]
    fn, op = _stencil_update((7,), [spec, spec], spec)
    x = np.random.default_rng(3).random(7)
    exe = XlaExecutable(fn)
    assert "dynamic_update_slice" in exe.lower_text(x)
    np.testing.assert_allclose(exe(x.copy())[0], interp.run(fn, [x.copy()])[0], rtol=1e-12)


def test_materialized_value_stays_in_place():
    """A value XLA computes on its own (here a matrix product) is copied in, not re-passed."""
    body = Block()
    b = Builder(body)
    x = body.add_arg(TensorType((6, 6), "f64"), "x")
    a = body.add_arg(TensorType((5, 5), "f64"), "a")
    v = b.one("tensor.dot_general", a, a, lhs_contract=[1], rhs_contract=[0], lhs_batch=[],
              rhs_batch=[])
    y = b.create("tensor.update_slice", [x, v], {"spec": [["s", 1, 6, 1], ["s", 0, 5, 1]]})
    b.create("func.return", [y.result])
    fn = Function("f", body, ["x", "a"])
    verify(fn, tensor_only=True)
    assert not one_pass_update(y)
