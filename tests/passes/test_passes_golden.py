"""Golden IR tests of the passes, each with translation validation: the interpreter gives the
same results before and after the pass on random inputs."""
import copy
import textwrap

import numpy as np

from solvent.backends import interp
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.verifier import verify
from solvent.passes.cse import cse
from solvent.passes.dce import dce
from solvent.passes.functionalize import functionalize
from solvent.passes.if_to_select import if_to_select


def _ir(text):
    fn = parse_function(textwrap.dedent(text).strip() + "\n")
    verify(fn)
    return fn


def _validate(before_text, pass_fn, args_fn, seeds=3):
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        args = args_fn(rng)
        ref_args = copy.deepcopy(args)
        before = interp.run(_ir(before_text), list(ref_args))
        after_fn = pass_fn(_ir(before_text))
        verify(after_fn, tensor_only=True)
        after = interp.run(after_fn, list(copy.deepcopy(args)))
        for e, a in zip(before, after):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(e))
        # written-back arguments (functionalization): the extra results
        for out, k in zip(after[len(before):], after_fn.writeback[len(before):]):
            np.testing.assert_array_equal(out, ref_args[k])


ARRAY_LOOP = """
func @f(%n: i64, %A: ref<6xf64>) {
  %0 = tensor.constant {dtype = "i64", value = 0} : i64
  %1 = tensor.constant {dtype = "i64", value = 1} : i64
  loop.for %0, %n, %1 {
  ^(%2: i64):
    %3 = array.read %A, %2 {spec = [["i", 0]]} : f64
    %4 = tensor.constant {dtype = "f64", value = 2.0} : f64
    %5 = tensor.mul %3, %4 : f64
    array.write %5, %A, %2 {spec = [["i", 0]]}
    loop.yield
  }
  func.return
}
"""

ARRAY_LOOP_FUNCTIONAL = """\
func @f(%n: i64, %A: tensor<6xf64>) writeback [1] {
  %0 = tensor.constant {dtype = "i64", value = 0} : i64
  %1 = tensor.constant {dtype = "i64", value = 1} : i64
  %2 = loop.for %0, %n, %1, %A : tensor<6xf64> {
  ^(%3: i64, %4: tensor<6xf64>):
    %5 = tensor.slice %4, %3 {spec = [["i", 0]]} : f64
    %6 = tensor.constant {dtype = "f64", value = 2.0} : f64
    %7 = tensor.mul %5, %6 : f64
    %8 = tensor.update_slice %4, %7, %3 {spec = [["i", 0]]} : tensor<6xf64>
    loop.yield %8
  }
  func.return %2
}
"""


def test_functionalize_carries_written_refs_through_loops():
    out = functionalize(_ir(ARRAY_LOOP))
    assert print_function(out) == ARRAY_LOOP_FUNCTIONAL
    _validate(ARRAY_LOOP, functionalize,
              lambda rng: [np.asarray(int(rng.integers(0, 7))), rng.random(6)])


SCALAR_IF = """
func @f(%x: tensor<5xf64>, %i: i64, %t: f64) {
  %0 = tensor.slice %x, %i {spec = [["i", 0]]} : f64
  %1 = tensor.gt %0, %t : i1
  %2 = loop.if %1 : tensor<5xf64> {
  ^():
    %3 = tensor.sub %0, %t : f64
    %4 = tensor.update_slice %x, %3, %i {spec = [["i", 0]]} : tensor<5xf64>
    loop.yield %4
  } {
  ^():
    loop.yield %x
  }
  func.return %2
}
"""

SCALAR_IF_SELECT = """\
func @f(%x: tensor<5xf64>, %i: i64, %t: f64) {
  %0 = tensor.slice %x, %i {spec = [["i", 0]]} : f64
  %1 = tensor.gt %0, %t : i1
  %2 = tensor.sub %0, %t : f64
  %3 = tensor.slice %x, %i {spec = [["i", 0]], unchecked = true} : f64
  %4 = tensor.select %1, %2, %3 : f64
  %5 = tensor.update_slice %x, %4, %i {spec = [["i", 0]], unchecked = true} : tensor<5xf64>
  func.return %5
}
"""


def test_if_to_select_sinks_the_update_to_the_element():
    out = dce(if_to_select(_ir(SCALAR_IF)))
    assert print_function(out) == SCALAR_IF_SELECT
    assert "loop.if" not in print_function(out)
    _validate(SCALAR_IF, lambda f: dce(if_to_select(f)),
              lambda rng: [rng.standard_normal(5), np.asarray(int(rng.integers(0, 5))),
                           np.asarray(0.1)], seeds=8)


def test_if_to_select_keeps_ifs_with_loops_inside():
    text = """
    func @f(%c: i1, %n: i64, %x: f64) {
      %0 = loop.if %c : f64 {
      ^():
        %1 = tensor.constant {dtype = "i64", value = 0} : i64
        %2 = tensor.constant {dtype = "i64", value = 1} : i64
        %3 = loop.for %1, %n, %2, %x : f64 {
        ^(%4: i64, %5: f64):
          %6 = tensor.add %5, %5 : f64
          loop.yield %6
        }
        loop.yield %3
      } {
      ^():
        loop.yield %x
      }
      func.return %0
    }
    """
    assert "loop.if" in print_function(if_to_select(_ir(text)))


def test_cse_merges_equal_pure_ops_and_dce_drops_dead_ones():
    text = """
    func @f(%x: tensor<4xf64>) {
      %0 = tensor.exp %x : tensor<4xf64>
      %1 = tensor.exp %x : tensor<4xf64>
      %2 = tensor.sin %x : tensor<4xf64>
      %3 = tensor.add %0, %1 : tensor<4xf64>
      func.return %3
    }
    """
    out = dce(cse(_ir(text)))
    names = [op.name for op in out.walk()]
    assert names == ["tensor.exp", "tensor.add", "func.return"]
    _validate(text, lambda f: dce(cse(f)), lambda rng: [rng.random(4)])


LOOP_WITH_INVARIANT = """
func @f(%n: i64, %x: tensor<4xf64>, %a: f64) {
  %0 = tensor.constant {dtype = "i64", value = 0} : i64
  %1 = tensor.constant {dtype = "i64", value = 1} : i64
  %2 = loop.for %0, %n, %1, %x : tensor<4xf64> {
  ^(%3: i64, %4: tensor<4xf64>):
    %5 = tensor.exp %a : f64
    %6 = tensor.mul %4, %5 : tensor<4xf64>
    loop.yield %6
  }
  func.return %2
}
"""

LOOP_HOISTED = """\
func @f(%n: i64, %x: tensor<4xf64>, %a: f64) {
  %0 = tensor.constant {dtype = "i64", value = 0} : i64
  %1 = tensor.constant {dtype = "i64", value = 1} : i64
  %2 = tensor.exp %a : f64
  %3 = loop.for %0, %n, %1, %x : tensor<4xf64> {
  ^(%4: i64, %5: tensor<4xf64>):
    %6 = tensor.mul %5, %2 : tensor<4xf64>
    loop.yield %6
  }
  func.return %3
}
"""


def test_licm_hoists_invariant_ops_out_of_loops():
    from solvent.passes.licm import licm
    out = licm(_ir(LOOP_WITH_INVARIANT))
    assert print_function(out) == LOOP_HOISTED
    _validate(LOOP_WITH_INVARIANT, licm,
              lambda rng: [np.asarray(int(rng.integers(0, 4))), rng.random(4),
                           np.asarray(rng.random())])



def test_licm_runs_again_after_raising():
    """Raising spmv_ell_loops' inner loops batches their index checks on cols into ops that
    depend on nothing the time loop changes; the pipeline's second LICM moves them in front
    of it (they ran once per iteration: 50000 x 8 elements of checks a step at bench size)."""
    import solvent
    from solvent.corpus import get as kernel
    from solvent.ir.registry import get
    from solvent.passes.licm import _defined_inside
    k = kernel("spmv_ell_loops")
    args = k.make_args(64, np.random.default_rng(0))
    fn = solvent.jit(k.func, backend="interp").compile(args).fn
    (loop,) = [op for op in fn.body.ops if get(op.name).loop_like]
    inside = _defined_inside(loop)
    body = loop.regions[0].block.ops
    assert any(op.name == "tensor.gather" for op in body)
    invariant = [op.name for op in body if op.results and not op.regions
                 and get(op.name).pure and not any(o in inside for o in op.operands)]
    assert invariant == []
    out = solvent.jit(k.func, backend="interp")(*args)
    np.testing.assert_allclose(out, k.func(*args), rtol=1e-12)


def test_dce_drops_loop_carried_values_nothing_reads():
    """A while loop's scratch array (rewritten every trip, its result unused) is dropped with
    the update that computed it; a carried value the condition reads stays, and so does one
    whose next value feeds a kept one."""
    from solvent.passes.dce import DCE
    text = """
    func @f(%x: tensor<4xf64>, %n: i64) {
      %0 = tensor.constant {dtype = "i64", value = 0} : i64
      %1 = tensor.constant {dtype = "i64", value = 1} : i64
      %2, %3, %4, %5 = loop.while %0, %x, %x, %x : i64, T4, T4, T4 {
      ^(%6: i64, %7: tensor<4xf64>, %8: tensor<4xf64>, %9: tensor<4xf64>):
        %10 = tensor.lt %6, %n : i1
        loop.condition %10
      } {
      ^(%11: i64, %12: tensor<4xf64>, %13: tensor<4xf64>, %14: tensor<4xf64>):
        %15 = tensor.slice %12 {spec = [["s", 1, 3, 1]]} : tensor<2xf64>
        %16 = tensor.exp %15 : tensor<2xf64>
        %17 = tensor.update_slice %13, %16 {spec = [["s", 1, 3, 1]]} : tensor<4xf64>
        %18 = tensor.add %14, %12 : tensor<4xf64>
        %19 = tensor.mul %12, %12 : tensor<4xf64>
        %20 = tensor.add %11, %1 : i64
        loop.yield %20, %19, %17, %18
      }
      func.return %2, %5
    }
    """.replace("T4", "tensor<4xf64>")
    out = DCE().run(_ir(text))
    verify(out)
    loop = next(op for op in out.walk() if op.name == "loop.while")
    # %13 (the scratch array) goes; %12 stays (%18, kept, reads it); %14 and the counter stay
    assert len(loop.results) == 3 and "tensor.update_slice" not in print_function(out)
    assert [a.type.rank for a in loop.regions[0].block.args] == [0, 1, 1]
    _validate(text, lambda f: DCE().run(f),
              lambda rng: [rng.standard_normal(4), np.asarray(int(rng.integers(0, 4)))])
