"""passes/lower_barriers.py: fission of a thread loop at its barriers (the results are
checked against NumPy through the op sample ``simt.barrier-mirror-threads`` in
tests/ops/test_registry.py); here the shape of the lowered IR and the refusals."""
import pytest

from solvent.ir.builder import Builder
from solvent.ir.core import Block, Function, Region, clone_function
from solvent.ir.registry import IRError
from solvent.ir.types import RefType, TensorType
from solvent.ir.verifier import verify
from solvent.passes.lower_barriers import LowerBarriers

S = TensorType((), "i64")


def _kernel(in_if: bool) -> Function:
    """for t in threads(4): v = t * 3; [if t > 0:] barrier; x[t] = v + x[3 - t]"""
    body = Block()
    x = body.add_arg(RefType((4,), "i64"))
    b = Builder(body)
    blk = Block()
    t = blk.add_arg(S)
    with b.at(blk):
        v = b.one("tensor.mul", t, b.constant(3, "i64"))
        if in_if:
            then, other = Block(), Block()
            with b.at(then):
                b.create("simt.barrier", [], {"line": 5})
                b.create("loop.yield", [])
            with b.at(other):
                b.create("loop.yield", [])
            b.create("loop.if", [b.one("tensor.gt", t, b.constant(0, "i64"))],
                     regions=[Region(then), Region(other)])
        else:
            b.create("simt.barrier", [], {"line": 5})
        m = b.one("array.read", x, b.one("tensor.sub", b.constant(3, "i64"), t),
                  spec=[["i", 0]])
        b.create("array.write", [b.one("tensor.add", v, m), x, t], {"spec": [["i", 0]]})
        b.create("loop.yield", [])
    b.create("loop.for", [b.constant(0, "i64"), b.constant(4, "i64"), b.constant(1, "i64")],
             {"simt": "threads"}, regions=[Region(blk)])
    b.create("func.return", [])
    fn = Function("k", body, ["x"])
    verify(fn)
    return fn


def test_fission_recomputes_index_values():
    fn = LowerBarriers().run(_kernel(in_if=False))
    verify(fn)
    loops = [op for op in fn.body.ops if op.name == "loop.for"]
    # the first run only computed v = t * 3, which crosses the barrier: recomputed from the
    # second loop's own index (no buffer), the first loop then does nothing and is dropped
    assert [op.attrs["simt"] for op in loops] == ["threads"]
    assert not [op for op in fn.walk() if op.name == "simt.barrier"]
    assert not [op for op in fn.body.ops if op.name == "array.alloc"]
    second = list(loops[0].regions[0].block.walk())
    assert any(o.name == "tensor.mul" and o.operands[0] is loops[0].regions[0].block.args[0]
               for o in second)


def test_fission_keeps_values_read_from_memory_per_thread():
    fn = _kernel(in_if=False)
    loop = next(op for op in fn.body.ops if op.name == "loop.for")
    body = loop.regions[0].block
    mul = body.ops[1]   # v = t * 3 -> v = x[t] * 3
    b = Builder(body)
    with b.before(mul):
        mul.operands[0] = b.one("array.read", fn.args[0], body.args[0], spec=[["i", 0]])
    fn = LowerBarriers().run(fn)
    verify(fn)
    loops = [op for op in fn.body.ops if op.name == "loop.for"]
    # v crosses the barrier: one buffer of 4, written by the first loop, read by the second
    (alloc,) = [op for op in fn.body.ops if op.name == "array.alloc"]
    assert alloc.result.type == RefType((4,), "i64")
    first, second = (list(op.regions[0].block.walk()) for op in loops)
    assert any(o.name == "array.write" and o.operands[1] is alloc.result for o in first)
    assert any(o.name == "array.read" and o.operands[0] is alloc.result for o in second)


def test_barrier_under_a_thread_dependent_if_is_refused():
    from solvent.errors import DivergentBarrierError
    fn = _kernel(in_if=True)
    with pytest.raises(DivergentBarrierError, match="line 5: .*depend on the thread index"):
        LowerBarriers().run(clone_function(fn))


def test_explain_shows_no_stage_for_a_program_without_barriers():
    import numpy as np
    import solvent

    @solvent.jit(backend="interp")
    def f(x):
        return x + 1.0
    text = f.explain(np.zeros(3))
    assert "## after functionalize" in text and "## after lower_barriers" not in text
