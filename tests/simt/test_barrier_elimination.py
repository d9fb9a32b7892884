"""Barriers kept and removed, and which block loops are parallel, for corpus kernels."""
import numpy as np
import pytest

import solvent
from numba import cuda
from solvent.corpus_simt import all_cases

CASES = {c.name: c for c in all_cases()}


def report(name, n=40):
    c = CASES[name]
    args = c.make_args(n, np.random.default_rng(0))
    grid, block = c.config(n)
    return solvent.kernel(c.kernel)[grid, block].report(*args)


def ast_report(kernel, cfg, args):
    """The lowering on the kernel's AST (fission.py), which a launch keeps for the kernels
    the IR path does not take."""
    from solvent.simt.launch import launch_config, lower
    return lower(getattr(kernel, "py_func", kernel), launch_config(cfg), args, on_ir=False)


def ast_case(name, n=40):
    c = CASES[name]
    return ast_report(c.kernel, c.config(n), c.make_args(n, np.random.default_rng(0)))


@pytest.mark.parametrize("name, kept, removed, parallel", [
    # the first barrier orders the tile loads before their reads: kept; the second ends the
    # loop body, whose iterations fission already separates: removed
    ("matmul_tiled", 1, 1, True),
    # sd[tx] = x[i]; sync; then a loop fission separates anyway: removed; the loop's kept
    ("reduce_sum", 1, 1, True),
    ("transpose_tiled", 1, 0, True),
    # atomics into a global histogram: one partial histogram per group of blocks
    ("histogram_shared", 2, 0, True),
    # a scan's two stores per thread, base + 2 * tid and base + 2 * tid + 1, stay in the
    # block's window [256 * b, 256 * b + 256)
    ("scan_blelloch", 2, 1, True),
    # the device function only reads coef
    ("poly_eval", 0, 0, True),
    ("saxpy", 0, 0, True),
])
def test_barriers_and_parallel_blocks(name, kept, removed, parallel):
    r = report(name)
    assert (len(r.kept), len(r.removed), r.parallel) == (kept, removed, parallel), \
        [(n.line, n.kept, n.reason) for n in r.notes] + [r.parallel_reason]


def test_explain_lists_barriers():
    c = CASES["reduce_sum"]
    args = c.make_args(9, np.random.default_rng(0))
    text = solvent.kernel(c.kernel)[c.config(9)].explain(*args)
    assert "kept (the last barrier of its loop/if body)" in text
    assert "removed" in text and "## lowered kernel" in text and "## backend" in text


def test_private_accesses_need_no_barrier():
    from numba import cuda

    def k(x, out):
        sd = cuda.shared.array(32, dtype=np.float64)
        tx = cuda.threadIdx.x
        sd[tx] = x[tx] * 2.0
        cuda.syncthreads()
        out[tx] = sd[tx] + 1.0      # each thread reads its own element: removable
        cuda.syncthreads()
        out[tx] += sd[31 - tx]      # reads another thread's element: kept

    x = np.arange(32.0)
    out = np.zeros(32)
    launch = solvent.kernel(k)[1, 32]
    launch(x, out)
    np.testing.assert_array_equal(out, x * 2 + 1 + (x * 2)[::-1])
    r = launch.report(x, out)
    assert [n.kept for n in r.notes] == [False, True]


@pytest.mark.parametrize("name, per_thread, per_block", [
    # the tree's stride is the same in every thread: one block-level scalar, no run-time
    # agreement check around the while loop
    ("reduce_sum", set(), {"s"}),
    # ai, bi and t are assigned before they are read in each run that uses them
    ("scan_blelloch", set(), {"d", "n", "offset"}),
    # top = buf[0] reads memory other threads wrote: kept per thread; j is each run's own
    # (every `for j in range(tx, m, RB)` assigns it before the body reads it)
    ("softmax_rows", {"top"}, {"m", "s"}),
])
def test_values_the_same_in_every_thread_are_kept_once_per_block(name, per_thread, per_block):
    r = ast_case(name)
    assert (r.spills - r.uniform, r.uniform) == (per_thread, per_block)
    if not per_thread:
        assert "__simt_s_" not in r.source and "disagree" not in r.source


def test_uniform_steps_run_once_per_block_and_tree_loops_stop_at_their_bound():
    r = ast_case("reduce_sum")
    assert "range(min(s, 128))" in r.source
    # s //= 2 runs once per round, at block level: not inside a loop over threads
    assert "            s //= 2" in r.source.splitlines()


def shifted_tree(x, out, start):
    # a tree-like loop whose first bound (start) may exceed the block or be <= 0
    sd = cuda.shared.array(40, np.float64)
    tx = cuda.threadIdx.x
    sd[tx] = x[cuda.blockIdx.x, tx]
    s = start
    cuda.syncthreads()
    while s > 0:
        if tx < s:
            sd[tx] += 2 * x[cuda.blockIdx.x, (tx + s) % 40]
        cuda.syncthreads()
        s = s - 7
    out[cuda.blockIdx.x, tx] = sd[tx]


@pytest.mark.parametrize("start", [50, 40, 13, 0, -3])
def test_narrowed_thread_loops_match_numpy(start):
    x = np.random.default_rng(start + 10).random((3, 40))
    out = np.zeros((3, 40))
    launch = solvent.kernel(shifted_tree)[3, 40]
    launch(x, out, start)
    assert "range(min(s, 40))" in ast_report(shifted_tree, (3, 40), (x, out, start)).source
    ref = x.copy()
    s = start
    while s > 0:
        t = np.arange(min(s, 40))
        ref[:, t] += 2 * x[:, (t + s) % 40]
        s -= 7
    np.testing.assert_allclose(out, ref)


def test_2d_grids_loop_per_dimension_and_runs_rename_their_own_names():
    r = ast_case("transpose_tiled")
    lines = r.source.splitlines()
    # block indices are loop counters (affine for the dependence test and the check prover)
    assert "    for __simt_by in range(3):" in lines and "__simt_b %" not in r.source
    # each run's x, y, tx... are its own: the frontend does not carry them between runs
    assert "tx__u0 = __simt_tx__u0" in r.source
    assert any("tx__u1" in s for s in lines)


@pytest.mark.parametrize("c", [0, 5, 39, 40, -1])
def test_a_run_for_one_thread_loops_over_that_thread_alone(c):
    from numba import cuda

    def one(x, out, flag):
        sd = cuda.shared.array(1, np.float64)
        tx = cuda.threadIdx.x
        if tx == c:
            sd[0] = x[cuda.blockIdx.x] + tx
        cuda.syncthreads()
        out[cuda.blockIdx.x, tx] = sd[0] + flag

    x = np.arange(3.0)
    out = np.zeros((3, 40))
    launch = solvent.kernel(one)[3, 40]
    launch(x, out, 0.5)
    want = (x + c)[:, None] if 0 <= c < 40 else np.zeros((3, 1))
    np.testing.assert_array_equal(out, np.broadcast_to(want + 0.5, (3, 40)))
    if c >= 0:
        src = ast_report(one, (3, 40), (x, out, 0.5)).source
        assert f"range({c}, min({c + 1}, 40))" in src or f"range(min({c + 1}, 40))" in src
