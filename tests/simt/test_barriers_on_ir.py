"""Barriers lowered on the IR (simt/nest.py + passes/lower_barriers.py): the kernel's IR holds
``simt.barrier`` in its thread nest before the pass and none after (the verifier runs after
it), and the lowered kernels give NumPy's answer: barriers inside a ``for`` and inside an
``if`` the same in every thread (interchanged with the thread loops), values carried by the
for or yielded by the if across barriers, a cuda.local.array used across a barrier."""
import numpy as np
import pytest
from numba import cuda, float64

import solvent
from solvent.frontend.translator import translate
from solvent.ir.core import clone_function
from solvent.ir.verifier import verify
from solvent.passes.lower_barriers import LowerBarriers
from solvent.simt.translate import KernelTranslator

def tree_sum(x, out):
    # a shared-memory reduction whose halving steps are a for loop
    sd = cuda.shared.array(16, dtype=float64)
    tx = cuda.threadIdx.x
    sd[tx] = x[cuda.grid(1)]
    cuda.syncthreads()
    for r in range(4):
        s = 8 >> r
        if tx < s:
            sd[tx] += sd[tx + s]
        cuda.syncthreads()
    if tx == 0:
        out[cuda.blockIdx.x] = sd[0]


def mirror_if(x, flags, out):
    # a barrier in each branch of an if the same in every thread: one decided by a scalar
    # argument, one by an array element (checked at run time to agree); the value the if
    # yields and a local array cross barriers
    sd = cuda.shared.array(8, dtype=float64)
    tmp = cuda.local.array(2, dtype=float64)
    tx = cuda.threadIdx.x
    i = cuda.grid(1)
    tmp[0] = x[i] * 2.0
    v = 0.0
    if flags[0] > 0:
        sd[tx] = x[i]
        cuda.syncthreads()
        v = sd[7 - tx]
    else:
        sd[tx] = -x[i]
        cuda.syncthreads()
        v = sd[(tx + 1) % 8]
    cuda.syncthreads()
    out[i] = v + tmp[0]


def per_thread_while(x, out):
    # the while's condition reads memory: not known to be the same in every thread
    sd = cuda.shared.array(8, dtype=float64)
    tx = cuda.threadIdx.x
    k = x[0]
    while k > 0:
        sd[tx] = k + tx
        cuda.syncthreads()
        out[tx] += sd[7 - tx]
        cuda.syncthreads()
        k -= 1.0


def _mirror_np(x, flags):
    b = x.reshape(-1, 8)
    other = b[:, ::-1] if flags[0] > 0 else -np.roll(b, -1, axis=1)
    return (other + 2.0 * b).reshape(-1)


def _ir(launch, args):
    return _ir_of(launch.report(*args), args)


def _ir_of(low, args):
    assert low.path.startswith("IR"), low.path
    return translate(low.jit.pyfn, tuple(args), frozenset(), KernelTranslator).fn


def _barriers(fn):
    return [op for op in fn.walk() if op.name == "simt.barrier"]


def _lowered(fn):
    out = LowerBarriers().run(clone_function(fn))
    verify(out)
    return out


def test_tiled_matmul_barriers_in_the_ir_then_lowered():
    from solvent.corpus_simt import all_cases
    from solvent.simt.launch import launch_config, lower
    c = next(c for c in all_cases() if c.name == "matmul_tiled")
    args = list(c.make_args(9, np.random.default_rng(1)))
    # coalesce.py's form (threads along x innermost), asked for on the IR (a launch keeps
    # the AST lowering for it: faster)
    low = lower(c.kernel.py_func, launch_config(c.config(9)), args, coalesced_on_ir=True)
    assert low.coalesced
    fn = _ir_of(low, args)
    # the user's barrier ending the tile loop's body is removed (barriers.py); the one
    # between the tile loads and the products is kept, and coalesce.py ends the product
    # loop's body with one of its own
    assert len(low.kept) == 1 and len(_barriers(fn)) == 2
    out = _lowered(fn)
    assert not _barriers(out)
    # the product loop runs inside the loop over ty, the threads along x inside it:
    # for ty: for k: for tx
    (k_loop,) = [op for op in out.walk() if op.attrs.get("coalesced")]
    outer = [op for op in out.walk() if op.attrs.get("simt") == "threads"
             and k_loop in list(op.walk())]
    inner = [op for op in k_loop.walk() if op.attrs.get("simt") == "threads"]
    assert len(outer) == 1 and len(inner) == 1
    # acc, carried by the tile loop and by the product loop, lives in one per-thread
    # buffer: read and written in place there, never copied into another one
    reads = [op.operands[0] for op in inner[0].walk() if op.name == "array.read"]
    writes = [op.operands[1] for op in inner[0].walk() if op.name == "array.write"]
    assert len(writes) == 1 and writes[0] in reads
    def alloc(v):
        return getattr(v.owner, "name", None) == "array.alloc"
    for nest in [op for op in out.walk() if op.attrs.get("simt") == "threads"]:
        body = [o for o in nest.walk() if o.name in ("array.read", "array.write")]
        assert not ([o.name for o in body] == ["array.read", "array.write"]
                    and alloc(body[0].operands[0]) and alloc(body[1].operands[1])), \
            "a per-thread buffer copied into another"
    low.jit(*args)
    np.testing.assert_allclose(args[2], args[0] @ args[1])


def early_exit_pairs(x, out):
    # the threads past the end return before the barrier; the others swap values in pairs
    sd = cuda.shared.array(8, dtype=float64)
    tx = cuda.threadIdx.x
    i = cuda.grid(1)
    if i >= x.size:
        return
    v = x[i] * 2.0
    sd[tx] = v
    cuda.syncthreads()
    out[i] = sd[tx ^ 1] + v


def test_backprop_layer_return_and_coalesced_loops_on_the_ir():
    from solvent.corpus_simt import all_cases
    from solvent.simt.launch import launch_config, lower
    c = next(c for c in all_cases() if c.name == "backprop_layer")
    args = list(c.make_args(3, np.random.default_rng(6)))   # 24 outputs, blocks of 32
    low = lower(c.kernel.py_func, launch_config(c.config(3)), args, coalesced_on_ir=True)
    assert low.path.startswith("IR") and low.coalesced
    ref = [a.copy() for a in args]
    low.jit(*args)
    c.numpy(*ref)
    for k in c.outputs:
        np.testing.assert_allclose(args[k], ref[k], rtol=1e-12)


def test_a_return_before_a_barrier_on_the_ir():
    x, out = np.random.default_rng(5).random(20), np.zeros(20)
    launch = solvent.kernel(early_exit_pairs)[3, 8]
    fn = _ir(launch, [x, out])
    # the statements after the return run under an if on it, which lower_barriers runs
    # in the threads that did not return (no divergent-barrier error)
    assert any(op.name == "loop.if" and op.attrs.get("after_jump") for op in fn.walk())
    assert not _barriers(_lowered(fn))
    launch(x, out)
    np.testing.assert_allclose(out, 2.0 * (x + x.reshape(-1, 2)[:, ::-1].reshape(-1)))


def test_shared_memory_reduction_barriers_in_the_ir_then_lowered():
    x = np.random.default_rng(2).random(48)
    out = np.zeros(3)
    launch = solvent.kernel(tree_sum)[3, 16]
    fn = _ir(launch, [x, out])
    # the first barrier stands next to the loop holding the other: removed (barriers.py)
    assert len(_barriers(fn)) == len(launch.report(x, out).kept) == 1
    assert not _barriers(_lowered(fn))
    launch(x, out)
    np.testing.assert_allclose(out, x.reshape(3, 16).sum(axis=1))


@pytest.mark.parametrize("flag", [1, -1])
def test_barriers_in_a_uniform_if_match_numpy(flag):
    x = np.random.default_rng(3).random(24)
    flags, out = np.array([flag]), np.zeros(24)
    launch = solvent.kernel(mirror_if)[3, 8]
    fn = _ir(launch, [x, flags, out])
    assert len(_barriers(fn)) == 2   # the one after the if orders nothing more: removed
    assert len(launch.report(x, flags, out).kept) == 2
    lowered = _lowered(fn)
    assert not _barriers(lowered)
    # the if runs once per block: its condition (an array element) is checked to agree
    assert any(op.name == "error.check" and op.attrs["kind"] == "DivergentBarrierError"
               for op in lowered.walk())
    launch(x, flags, out)
    np.testing.assert_allclose(out, _mirror_np(x, flags))


def test_halving_while_carries_its_stride_at_block_level():
    from solvent.corpus_simt import all_cases
    c = next(c for c in all_cases() if c.name == "reduce_sum")
    args = list(c.make_args(9, np.random.default_rng(4)))
    launch = solvent.kernel(c.kernel)[c.config(9)]
    lowered = _lowered(_ir(launch, args))
    (loop,) = [op for op in lowered.walk() if op.name == "loop.while"]
    # s (s //= 2) is the same in every thread: carried by the while at block level, its
    # condition needs no agreement check, and `if tx < s` runs threads 0 .. min(s, 128)
    assert loop.results and not [op for op in lowered.walk() if op.name == "error.check"
                                 and op.attrs["kind"] == "DivergentBarrierError"]
    bounds = [op.operands[1].owner.name for op in loop.walk() if op.attrs.get("simt")]
    assert "tensor.min" in bounds
    ref = [a.copy() for a in args]
    launch(*args)
    c.numpy(*ref)
    np.testing.assert_allclose(args[1], ref[1])


def test_while_not_known_the_same_in_every_thread_keeps_the_ast_lowering():
    x, out = np.array([3.0]), np.zeros(8)
    launch = solvent.kernel(per_thread_while)[1, 8]
    path = launch.report(x, out).path
    assert path.startswith("AST") and "condition of the while" in path
    launch(x, out)
    t = np.arange(8)
    np.testing.assert_allclose(out, sum(k + (7 - t) for k in (3.0, 2.0, 1.0)))
