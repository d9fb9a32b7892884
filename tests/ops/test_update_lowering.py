"""The two XLA lowerings of tensor.update_slice agree with the interpreter: in-place
dynamic_update_slice, and the one-pass select used when the new value is computed from
neighbouring parts of the same array (a stencil step)."""
import numpy as np
import pytest

from solvent.backends import interp
from solvent.backends.xla import XlaExecutable
from solvent.ir.builder import Builder
from solvent.ir.core import Block, Function
from solvent.ir.types import TensorType
from solvent.ir.verifier import verify
from solvent.ops.indexspec import result_shape
from solvent.ops.structural import reads_neighbours


def _stencil_update(shape, read_specs, write_spec, dtype="f64"):
    body = Block()
    b = Builder(body)
    x = body.add_arg(TensorType(shape, dtype), "x")
    parts = [b.one("tensor.slice", x, spec=s) for s in read_specs]
    v = parts[0]
    for p in parts[1:]:
        v = b.one("tensor.add", v, p)
    y = b.create("tensor.update_slice", [x, v], {"spec": write_spec})
    b.create("func.return", [y.result])
    fn = Function("f", body, ["x"])
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
    assert reads_neighbours(op)
    x = np.random.default_rng(0).random(shape).astype(np.float32 if dtype == "f32" else np.float64)
    expected = interp.run(fn, [x.copy()])[0]
    actual = XlaExecutable(fn)(x.copy())[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-6)


def test_same_region_update_stays_in_place():
    spec = [["s", 1, 6, 1]]
    fn, op = _stencil_update((7,), [spec, spec], spec)
    assert not reads_neighbours(op)


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
    assert reads_neighbours(op)
    x = np.random.default_rng(1).random(shape)
    for got, want in zip(XlaExecutable(fn)(x.copy()), interp.run(fn, [x.copy()])):
        np.testing.assert_allclose(got, want, rtol=1e-12)
