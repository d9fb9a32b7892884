"""Every corpus kernel through solvent matches plain NumPy (values, dtypes, in-place
effects) at two sizes, and its IR survives print/parse and the verifier."""
import numpy as np
import pytest

import solvent
from solvent.backends import interp
from solvent.corpus import KERNELS
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.verifier import verify

from differential import assert_same, copy_args

NAMES = [k.name for k in KERNELS]
BY_NAME = {k.name: k for k in KERNELS}


def _args(k, size_index):
    return k.make_args(k.sizes[size_index], np.random.default_rng(1234 + size_index))


@pytest.mark.parametrize("size_index", [0, 1])
@pytest.mark.parametrize("name", NAMES)
def test_kernel_matches_numpy(name, size_index):
    k = BY_NAME[name]
    args = _args(k, size_index)
    ref_args, sol_args = copy_args(args), copy_args(args)
    expected = k.func(*ref_args)
    actual = solvent.jit(k.func)(*sol_args)
    assert_same(expected, actual)
    for i, (e, a) in enumerate(zip(ref_args, sol_args)):
        if isinstance(e, np.ndarray):
            assert_same(e, a, f"argument {i} after the call")


@pytest.mark.parametrize("name", NAMES)
def test_ir_roundtrip_and_pipeline_validation(name):
    """Print/parse round-trip at every stage; the interpreter gives the same results on
    the frontend's array-level IR and on the optimized tensor IR (translation validation
    of the whole pipeline on this kernel)."""
    k = BY_NAME[name]
    args = _args(k, 0)
    jf = solvent.jit(k.func, backend="interp")
    compiled = jf.compile(args, trace=True)
    assert [s for s, _ in compiled.stages][0] == "frontend"
    for stage, fn in compiled.stages:
        text = print_function(fn)
        again = parse_function(text)
        verify(again, tensor_only=stage != "frontend")
        assert print_function(again) == text, f"round-trip changed the IR after {stage}"
    frontend_ir = compiled.stages[0][1]
    final_ir = compiled.stages[-1][1]
    ir_args = [args[i] for i in compiled.translation.arg_map]
    before_args = copy_args(ir_args)
    before = interp.run(frontend_ir, list(before_args))
    after = interp.run(final_ir, list(copy_args(ir_args)))
    n = len(before)
    for e, a in zip(before, after[:n]):
        assert_same(np.asarray(e), np.asarray(a))
    # written-back arguments: the array-level run mutated its buffers in place
    for out, k_arg in zip(after[n:], final_ir.writeback[n:]):
        j = compiled.translation.arg_map.index(k_arg)
        assert_same(np.asarray(before_args[j]), np.asarray(out))
