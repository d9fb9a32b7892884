"""The rewrite machinery of the IR core: use lists, replace-all-uses, erase, insertion
points, the Rewriter and the greedy driver (fixpoint and budget), passes with typed options."""
import numpy as np
import pytest

import solvent  # noqa: F401  (registers the ops)
from solvent.ir.builder import Builder
from solvent.ir.core import Block, Function
from solvent.ir.registry import IRError
from solvent.ir.rewrite import Pattern, apply_patterns, constant_value
from solvent.ir.types import TensorType
from solvent.ir.verifier import VerifyError, verify
from solvent.backends.interp import run
from solvent.passes.pipeline import build_gradient_pipeline, build_pipeline

F64 = TensorType((4,), "f64")


def _fn(body, types=(F64,)):
    blk = Block()
    args = [blk.add_arg(t, f"x{k}") for k, t in enumerate(types)]
    b = Builder(blk)
    outs = body(b, *args)
    b.create("func.return", list(outs) if isinstance(outs, (list, tuple)) else [outs])
    return Function("f", blk, [f"x{k}" for k in range(len(types))])


def test_uses_follow_operand_changes():
    def body(b, x):
        y = b.one("tensor.neg", x)
        return b.one("tensor.add", y, y)
    fn = _fn(body)
    x = fn.args[0]
    neg, add = fn.body.ops[0], fn.body.ops[1]
    assert x.uses == [(neg, 0)]
    assert neg.result.uses == [(add, 0), (add, 1)]
    add.operands[1] = x
    assert neg.result.uses == [(add, 0)] and (add, 1) in x.uses
    add.operands = [x, x]
    assert neg.result.uses == [] and sorted(i for _, i in x.uses if _ is add) == [0, 1]
    verify(fn)


def test_replace_all_uses_and_erase():
    def body(b, x):
        y = b.one("tensor.exp", x)
        return b.one("tensor.mul", y, x)
    fn = _fn(body)
    exp, mul = fn.body.ops[0], fn.body.ops[1]
    with pytest.raises(IRError, match="cannot erase tensor.exp"):
        exp.erase()
    exp.result.replace_all_uses_with(fn.args[0])
    exp.erase()
    assert exp.parent is None and fn.body.ops[0] is mul
    assert list(mul.operands) == [fn.args[0], fn.args[0]]
    verify(fn)
    a = np.arange(4.0)
    np.testing.assert_array_equal(run(fn, [a])[0], a * a)


def test_insertion_points_before_and_after():
    def body(b, x):
        return b.one("tensor.neg", x)
    fn = _fn(body)
    neg = fn.body.ops[0]
    b = Builder(fn.body)
    with b.before(neg):
        first = b.one("tensor.exp", fn.args[0])
    with b.after(neg):
        b.one("tensor.sin", neg.result)
    names = [op.name for op in fn.body.ops]
    assert names == ["tensor.exp", "tensor.neg", "tensor.sin", "func.return"]
    neg.operands[0] = first
    verify(fn)


def test_verifier_catches_a_stale_use():
    fn = _fn(lambda b, x: b.one("tensor.neg", x))
    neg = fn.body.ops[0]
    list.__setitem__(neg.operands, 0, neg.result)  # bypasses the use list: corrupt
    with pytest.raises(VerifyError):
        verify(fn)


def _swap(op, rw):
    rw.replace_op(op, [rw.one("tensor.add", op.operands[1], op.operands[0])])
    return True


def test_driver_budget_names_the_pattern_that_never_stops():
    fn = _fn(lambda b, x, y: b.one("tensor.add", x, y), (F64, F64))
    forever = Pattern("commute-forever", "tensor.add", _swap, "x + y -> y + x (never stops)")
    with pytest.raises(IRError, match="commute-forever"):
        apply_patterns(fn, [forever], max_rewrites=50)


def test_driver_reaches_a_fixpoint_and_erases_dead_pure_ops():
    def body(b, x):
        one = b.constant(1.0, "f64")
        y = b.one("tensor.mul", b.one("tensor.mul", x, one), one)
        b.one("tensor.exp", x)  # dead
        return y
    fn = _fn(body)
    from solvent.passes.patterns import ALGEBRA
    n = apply_patterns(fn, ALGEBRA)
    assert n == 2
    assert [op.name for op in fn.body.ops] == ["func.return"]
    assert fn.body.ops[0].operands[0] is fn.args[0]
    verify(fn)


def test_constant_value_sees_through_broadcasts():
    def body(b, x):
        c = b.one("tensor.broadcast_to", b.constant(2.0, "f64"), shape=[4])
        return b.one("tensor.add", x, c)
    fn = _fn(body)
    assert constant_value(fn.body.ops[-2].operands[1]) == 2.0


def test_pass_options_are_typed_and_the_pipeline_is_built_in_one_place():
    passes = build_pipeline({"if_to_select": {"max_ops": 8}})
    assert [p.name for p in passes][:8] == ["lower_barriers", "functionalize", "prove_checks",
                                            "hoist_checks", "version_checks",
                                            "speculate_checks", "flag_checks",
                                            "checks_to_values"]
    ifs = [p for p in passes if p.name == "if_to_select"][0]
    assert ifs.options.max_ops == 8 and "max_ops=8" in repr(ifs)
    with pytest.raises(TypeError, match="no option 'nope'"):
        build_pipeline({"if_to_select": {"nope": 1}})
    with pytest.raises(TypeError, match="takes int"):
        build_pipeline({"if_to_select": {"max_ops": "8"}})
    with pytest.raises(ValueError, match="no pass named frobnicate"):
        build_pipeline({"frobnicate": {}})


def test_the_gradient_cleanup_is_built_in_the_same_place():
    passes = build_gradient_pipeline({"mark_parallel": {"enabled": False}})
    assert [p.name for p in passes] == [
        "forward_slots", "gradient_rules", "sink_updates", "merge_windows", "cse", "dce",
        "mark_parallel", "undo_writes", "late_updates"]
    assert passes[6].options.enabled is False
    with pytest.raises(ValueError, match="no pass named raise_loops; passes: forward_slots"):
        build_gradient_pipeline({"raise_loops": {}})
