"""The kernel's parallel structure in the IR: loops over blocks and over threads say so
(``simt = "blocks"`` / ``"threads"``), and ``simt.barrier`` stands only inside a thread loop."""
import numpy as np
import pytest

import solvent
from solvent.corpus_simt import all_cases
from solvent.frontend.translator import translate
from solvent.ir.core import Operation
from solvent.ir.registry import IRError
from solvent.ir.verifier import VerifyError, verify
from solvent.ops.simt import ROLE
from solvent.simt.translate import KernelTranslator


@pytest.fixture(scope="module")
def reduce_sum_ir():
    c = next(c for c in all_cases() if c.name == "reduce_sum")
    args = c.make_args(9, np.random.default_rng(0))
    low = solvent.kernel(c.kernel)[c.config(9)].report(*args)
    return translate(low.jit.pyfn, tuple(args), frozenset(), KernelTranslator).fn


def _loops(block, role):
    return [op for op in block.ops if op.name == "loop.for" and op.attrs.get(ROLE) == role]


def test_block_loop_holds_the_thread_loops(reduce_sum_ir):
    from solvent.ir.core import clone_function
    from solvent.passes.lower_barriers import LowerBarriers
    (blocks,) = _loops(reduce_sum_ir.body, "blocks")
    # as translated: one loop over the block's threads holding the halving loop and its
    # barrier (the one barrier reduce_sum keeps, the last of that loop's body)
    (threads,) = [op for op in blocks.regions[0].block.walk() if op.attrs.get(ROLE) == "threads"]
    assert [op for op in threads.walk() if op.name == "simt.barrier"]
    lowered = LowerBarriers().run(clone_function(reduce_sum_ir))
    verify(lowered)
    (blocks,) = _loops(lowered.body, "blocks")
    inner = [op for op in blocks.regions[0].block.walk() if op.attrs.get(ROLE) == "threads"]
    # thread loops before the halving loop, in its body and after it (the loop runs once
    # per block, its s carried at block level)
    assert len(inner) == 3
    assert any(op.name == "loop.while" for op in blocks.regions[0].block.ops)
    assert not [op for op in lowered.walk() if op.name == "simt.barrier"]


def test_barrier_only_inside_a_thread_loop(reduce_sum_ir):
    (blocks,) = _loops(reduce_sum_ir.body, "blocks")
    body = blocks.regions[0].block
    threads = next(op for op in body.ops if op.attrs.get(ROLE) == "threads")
    inside = threads.regions[0].block
    ok = inside.insert(0, Operation("simt.barrier", [], [], {"line": 3}))
    verify(reduce_sum_ir)
    inside.ops.remove(ok)
    body.insert(0, Operation("simt.barrier", [], [], {"line": 3}))
    with pytest.raises(VerifyError, match="only inside a loop over a block's threads"):
        verify(reduce_sum_ir)


def test_interpreter_refuses_a_barrier():
    from solvent.ir.registry import lowering
    rule = lowering("simt.barrier", "interp")
    with pytest.raises(IRError, match="lowered by fission"):
        rule(Operation("simt.barrier", [], [], {"line": 7}), [], None)
