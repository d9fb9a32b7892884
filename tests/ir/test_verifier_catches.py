"""The verifier rejects each kind of malformed IR with a message naming what is wrong: use
lists that disagree with operands (missing, stale) and elementwise ops whose operands or
result types the op's record does not accept (the records format their messages only on
failure, so each failure is exercised here), and integer constants outside their dtype."""
import pytest

import solvent  # noqa: F401  (registers the ops)
from solvent.ir.core import Block, Function, Operation
from solvent.ir.types import TensorType
from solvent.ir.verifier import VerifyError, verify


def _fn(types, name, result_type, operand_index=None):
    """f(args) = <name>(args[operand_index...]) with the result type given (not inferred)."""
    blk = Block()
    args = [blk.add_arg(t, f"x{k}") for k, t in enumerate(types)]
    use = args if operand_index is None else [args[k] for k in operand_index]
    op = blk.append(Operation(name, use, [result_type]))
    blk.append(Operation("func.return", [op.results[0]], []))
    return Function("f", blk, [f"x{k}" for k in range(len(types))]), op, args


F4 = TensorType((4,), "f64")


def test_a_well_formed_op_passes():
    fn, _, _ = _fn((F4, TensorType((3, 1), "f64")), "tensor.add", TensorType((3, 4), "f64"))
    verify(fn)


@pytest.mark.parametrize("types,name,result,message", [
    ((F4, TensorType((4,), "f32")), "tensor.add", F4, r"must share one dtype, got \['f32', 'f64'\]"),
    ((TensorType((4,), "i64"),), "tensor.sin", TensorType((4,), "i64"), "does not accept dtype i64"),
    ((F4, F4), "tensor.neg", F4, "takes 1 operands, got 2"),
    ((F4, TensorType((3,), "f64")), "tensor.mul", F4, r"do not broadcast"),
    ((F4, F4), "tensor.lt", F4, r"result types .* but the op gives"),
    ((F4,), "tensor.abs", TensorType((5,), "f64"), r"result types .* but the op gives"),
])
def test_elementwise_misuse_is_named(types, name, result, message):
    fn, _, _ = _fn(types, name, result)
    with pytest.raises(VerifyError, match=message):
        verify(fn)


def test_an_operand_missing_from_its_use_list():
    fn, op, (x,) = _fn((F4,), "tensor.neg", F4)
    x.uses.remove((op, 0))
    with pytest.raises(VerifyError, match="tensor.neg operand 0 is missing from its value's use"):
        verify(fn)


def test_a_stale_use():
    fn, op, (x, y) = _fn((F4, F4), "tensor.neg", F4, operand_index=[0])
    y.uses.append((op, 0))   # y claims to be read by neg, which reads x
    with pytest.raises(VerifyError, match="stale use of a value by tensor.neg operand 0"):
        verify(fn)


@pytest.mark.parametrize("value,dtype,ok", [
    (127, "i8", True), (128, "i8", False), (-1, "u64", False), (2**64 - 1, "u64", True),
    (2**63, "i64", False), (1.5, "i32", False), (1, "i1", True), (1e300, "f64", True),
])
def test_an_integer_constant_must_fit_its_dtype(value, dtype, ok):
    blk = Block()
    c = blk.append(Operation("tensor.constant", [], [TensorType((), dtype)],
                             {"value": value, "dtype": dtype}))
    blk.append(Operation("func.return", [c.results[0]], []))
    fn = Function("f", blk, [])
    if ok:
        verify(fn)
    else:
        with pytest.raises(VerifyError, match=f"tensor.constant .* is not a {dtype}"):
            verify(fn)
