"""A kernel's blocks on the native thread pool: the block loop is marked parallel (launch.py's
proof that blocks write disjoint elements, ``disjoint = true`` for mark_parallel), atomics on
array arguments go to partial arrays per group of blocks (simt/privatize.py), and the first
failing block's IndexError is the one raised. The pool is forced on (threshold 0, 4 threads:
more than this machine's cores) so that every loop of two or more iterations runs on it."""
import numpy as np
import pytest
from numba import cuda

import solvent
from solvent.backends.native import threads
from solvent.corpus_simt import all_cases

CASES = {c.name: c for c in all_cases()}


@pytest.fixture(autouse=True)
def pool():
    old = threads.configure(threads=4, threshold=0)
    yield
    threads.configure(**old)


def on_pool(launch, *args) -> bool:
    """The block loop (or the loop over groups of blocks) ran on the thread pool."""
    low = launch.report(*args)
    text = low.jit.explain(*args)
    line = [s for s in text.splitlines() if s.startswith("# native: line")]
    return low.parallel and any("parallel loop on the thread pool" in s for s in line)


@pytest.mark.parametrize("name", ["saxpy", "poly_eval", "scan_blelloch", "matmul_tiled",
                                  "histogram", "histogram_shared", "max_abs"])
def test_corpus_kernel_on_the_pool_matches_numpy(name):
    case = CASES[name]
    n = 21
    rng = np.random.default_rng(3)
    args = case.make_args(n, rng)
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    case.numpy(*ref)
    grid, block = case.config(n)
    launch = solvent.kernel(case.kernel)[grid, block]
    launch(*args)
    for i in case.outputs:
        np.testing.assert_allclose(args[i], ref[i], rtol=case.rtol, atol=1e-12)
    assert on_pool(launch, *case.make_args(n, rng))


def weighted_hist(w, x, hist):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(hist, x[i], w[i])


def test_float_atomic_add_from_many_blocks_on_the_pool():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 1000)
    w = rng.standard_normal(1000).astype(np.float32)
    hist = np.full(5, 10.0, np.float32)
    # 125 blocks: 63 groups of two and one of one (privatize.MAX_GROUPS = 64)
    launch = solvent.kernel(weighted_hist)[125, 8]
    launch(w, x, hist)
    assert "min(__simt_g * 2 + 2, 125)" in launch.report(w, x, hist).source
    ref = np.full(5, 10.0, np.float32)
    np.add.at(ref, x, w)
    np.testing.assert_allclose(hist, ref, rtol=1e-4)   # sums reassociated
    assert on_pool(launch, w, x, hist)


def count_down(x, counts):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.sub(counts, x[i] % 3, 1)


def lowest(x, best):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.min(best, x[i] % 4, x[i])


def test_atomic_sub_wraps_and_atomic_min_is_exact_on_int8():
    x = np.arange(-100, 100, dtype=np.int8)
    counts = np.zeros(3, np.int8)
    launch = solvent.kernel(count_down)[25, 8]
    launch(x, counts)
    ref = np.zeros(3, np.int8)
    np.subtract.at(ref, x % 3, np.int8(1))
    np.testing.assert_array_equal(counts, ref)
    best = np.full(4, 50, np.int8)
    solvent.kernel(lowest)[25, 8](x, best)
    ref = np.full(4, 50, np.int8)
    np.minimum.at(ref, x % 4, x)
    np.testing.assert_array_equal(best, ref)
    assert on_pool(launch, x, counts)


def ticket(x, counter, slots):
    i = cuda.grid(1)
    if i < x.size and x[i] > 0:
        k = cuda.atomic.add(counter, 0, 1)
        slots[k] = i


def read_back(x, hist, out):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(hist, x[i], 1)
        out[i] = hist[0]


@pytest.mark.parametrize("kernel, args, why", [
    (ticket, (np.array([1, 0, 2, 3] * 8), np.zeros(1, np.int64), np.full(32, -1)),
     "old value of an atomic update"),
    (read_back, (np.array([0, 1] * 16), np.zeros(2, np.int64), np.zeros(32, np.int64)),
     "also read or written other than by atomic updates"),
])
def test_atomics_that_cannot_be_privatized_keep_blocks_in_order(kernel, args, why):
    launch = solvent.kernel(kernel)[4, 8]
    ref = [a.copy() for a in args]
    launch(*args)
    low = launch.report(*ref)
    assert not low.parallel and why in low.parallel_reason
    if kernel is ticket:   # blocks in order: the slots are handed out in index order
        np.testing.assert_array_equal(args[2][:24], np.flatnonzero(ref[0] > 0))
    else:
        np.testing.assert_array_equal(args[1], np.bincount(ref[0], minlength=2))


def two_faults(x, a, b, out):
    i = cuda.grid(1)
    out[i] = x[a[i]]
    out[i] += x[b[i]]


def test_the_first_failing_block_raises_and_arrays_stay_unchanged():
    x = np.ones(64)
    a = np.zeros(64, np.int64)
    b = np.zeros(64, np.int64)
    a[5 * 8 + 3] = 100   # block 5 fails on the first line
    b[2 * 8 + 1] = 100   # block 2 fails on the second: the error blocks in order raise first
    out = np.full(64, 7.0)
    line = two_faults.__code__.co_firstlineno + 3
    launch = solvent.kernel(two_faults)[8, 8]
    with pytest.raises(IndexError, match=rf"test_parallel_blocks.py:{line}:\d+: index"):
        launch(x, a, b, out)
    assert (out == 7.0).all()
    a[5 * 8 + 3] = 0
    with pytest.raises(IndexError, match=rf"py:{line}:\d+: index"):
        launch(x, a, b, out)
    b[2 * 8 + 1] = 0
    launch(x, a, b, out)
    assert (out == 2.0).all()
    assert on_pool(launch, x, a, b, out)
