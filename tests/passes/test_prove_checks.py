"""prove_checks inside ``if``: the condition holds in the then-branch and fails in the
else-branch, so ``if i < n: a[i]`` needs no run-time check; reads made unconditional by
if-conversion and then raised keep clamping their other subscripts."""
import math

import numpy as np
import pytest

import solvent
from tests.differential import check, function_from_source

BACKENDS = ["interp", "native", "xla"]


def guarded_tail(a, b):
    for i in range(a.size + 4):
        if i < a.size:
            b[i] = 2.0 * a[i]
    return b


def guarded_else(a, b):
    for i in range(-3, a.size + 4):
        if i >= a.size or i < 0:
            pass
        else:
            b[i] = a[i] + 1
    return b


def chained(a, b):
    n, m = a.shape
    for i in range(n + 3):
        for j in range(m + 3):
            if 1 <= i < n - 1 and 1 <= j < m - 1:
                b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]
    return b


def shifted(src, dst):
    for i in range(src.shape[0]):
        for j in range(src.shape[1] + 1):
            if 1 <= j < src.shape[1]:
                dst[i, j] = src[i, j - 1] + src[i, j]
    return dst


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,shape", [(guarded_tail, (7,)), (guarded_else, (5,)),
                                      (chained, (6, 5)), (shifted, (4, 6)),
                                      (chained, (1, 1)), (shifted, (3, 1))])
def test_guarded_accesses_match_numpy(fn, shape, backend):
    rng = np.random.default_rng(0)
    check(fn, rng.random(shape), np.zeros(shape), backend=backend)


@pytest.mark.parametrize("fn,shape", [(guarded_tail, (7,)), (guarded_else, (5,)),
                                      (chained, (6, 5))])
def test_checks_under_the_guard_are_proved(fn, shape):
    args = (np.ones(shape), np.zeros(shape))
    c = solvent.jit(fn, backend="interp").compile(args)
    assert not c.fn.errors


def off_by_one(a, b):
    for i in range(a.size + 4):
        if i < a.size + 1:
            b[i] = a[i]
    return b


def test_an_unproved_check_under_a_guard_still_raises():
    a, b = np.ones(5), np.zeros(5)
    c = solvent.jit(off_by_one, backend="interp").compile((a, b))
    assert c.fn.errors
    for backend in BACKENDS:
        with pytest.raises(IndexError, match="index 5 is out of bounds"):
            solvent.jit(off_by_one, backend=backend)(a, b.copy())


def blocked_stencil(src, dst):
    # a kernel's block and thread loops, as simt lowers them: the guard keeps every read in
    # range, the thread loops are raised after if-conversion made the reads unconditional
    n, m = src.shape
    for by in range(2):
        for bx in range(2):
            for ty in range(8):
                for tx in range(8):
                    i = bx * 8 + tx
                    j = by * 8 + ty
                    if 1 <= i < n - 1 and 1 <= j < m - 1:
                        dst[i, j] = src[i, j - 1] + src[i - 1, j] + src[i + 1, j] + src[i, j + 1]
    return dst


@pytest.mark.parametrize("backend", BACKENDS)
def test_raised_thread_loops_keep_clamping_the_subscripts_that_stay_scalar(backend):
    rng = np.random.default_rng(1)
    check(blocked_stencil, rng.random((16, 16)), np.zeros((16, 16)), backend=backend)


def bound_from_a_loop(a, b):
    """``n`` leaves the first loop as a carried value (the kernel lowering's block-level
    ``n = A.shape[0]`` assigned by every thread); the second loop's range and subscripts
    are then known. ``k`` is 2 when its loop runs (size 4: b[i + 2] with i < 4 fits b's 6),
    and in [0, 2] when the bounds do not prove a run (size 1: b[i + k], i = 0, fits 3)."""
    n = 0
    for t in range(3):
        n = a.shape[0]
    k = 0
    for t in range(b.shape[0] - 4):
        k = 2
    for i in range(n):
        b[i + k] = a[i]
    return b


@pytest.mark.parametrize("shape", [(4,), (1,)])
def test_a_loop_result_bounds_a_later_loop(shape):
    a, b = np.arange(1.0, shape[0] + 1.0), np.zeros(shape[0] + 2)
    check(bound_from_a_loop, a, b, backend="interp")
    c = solvent.jit(bound_from_a_loop, backend="interp").compile((a, b))
    assert not c.fn.errors


# --- float guards: ``if lo <= v < hi: counts[int(v)]`` -------------------------------------
def binned(nbins, lo, hi, x):
    """A histogram as ported from C: the bin is int(v) of a float v checked first."""
    counts = np.zeros(nbins, dtype=np.int64)
    scale = nbins / (hi - lo)
    for i in range(x.shape[0]):
        v = (x[i] - lo) * scale
        if v >= 0 and v < nbins:
            counts[int(v)] += 1
    return counts


def binned_floor(nbins, x):
    counts = np.zeros(nbins, dtype=np.int64)
    for i in range(x.shape[0]):
        if 0.0 <= x[i] < nbins:
            counts[math.floor(x[i])] += 1
    return counts


def binned_continue(nbins, x):
    """The guard's false side: ``not (v < 0 or v >= n)`` holds for NaN too, so int(v) of a
    NaN sample must still raise ValueError as in Python."""
    counts = np.zeros(nbins, dtype=np.int64)
    for i in range(x.shape[0]):
        v = x[i]
        if v < 0 or v >= nbins:
            continue
        counts[int(v)] += 1
    return counts


def binned_one_too_far(nbins, x):
    counts = np.zeros(nbins, dtype=np.int64)
    for i in range(x.shape[0]):
        if x[i] >= 0 and x[i] <= nbins:   # v == nbins passes: counts[nbins] is out of range
            counts[int(x[i])] += 1
    return counts


def _samples(dtype, n=200, special=True):
    x = np.random.default_rng(3).normal(4.0, 4.0, n).astype(dtype)
    if special:
        x[[3, 50, 90]] = [np.nan, np.inf, -np.inf]
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_guarded_bins_are_proved_and_match_numpy(backend, dtype):
    x = _samples(dtype)
    check(binned, 8, -1.0, 7.0, x, backend=backend)
    check(binned_floor, 8, x, backend=backend)
    for fn, args in ((binned, (8, -1.0, 7.0, x)), (binned_floor, (8, x))):
        c = solvent.jit(fn, backend="interp").compile(args)
        kinds = [e[0] for e in c.fn.errors]   # hi - lo may be 0: that check stays
        assert kinds in ([], ["ZeroDivisionError"]), (fn.__name__, c.fn.errors)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_false_float_guard_proves_nothing_nan_still_raises(backend):
    x = _samples(np.float64, special=False)
    check(binned_continue, 8, x, backend=backend)   # no NaN: counts as NumPy
    c = solvent.jit(binned_continue, backend="interp").compile((8, x))
    assert any("NaN" in str(e) for e in c.fn.errors)
    x[7] = np.nan
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        binned_continue(8, x)
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        solvent.jit(binned_continue, backend=backend)(8, x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_float_guard_one_too_wide_keeps_the_index_check(backend):
    x = np.array([0.5, 3.0, 8.0, 2.0])
    with pytest.raises(IndexError, match="index 8 is out of bounds"):
        binned_one_too_far(8, x)
    with pytest.raises(IndexError, match="index 8 is out of bounds"):
        solvent.jit(binned_one_too_far, backend=backend)(8, x)
    check(binned_one_too_far, 8, np.array([0.5, 3.0, 7.9, np.nan]), backend=backend)


def _guarded_bin_source(rng, k):
    """A generated kernel: a float sample v, a guard of one or two ordered comparisons of v
    with constants (strict or not, negated, ``and``/``or``, on the ``if`` or as ``continue``),
    and counts[conv(v)] with conv int/math.floor/math.ceil; bounds off by one on purpose."""
    n = 6
    cmps = ["<", "<=", ">", ">="]
    parts = []
    for _ in range(int(rng.integers(1, 3))):
        c = float(rng.choice([-n - 1, -n, -1, 0, 0.5, n - 1, n, n + 1]))
        parts.append(f"v {rng.choice(cmps)} {c!r}")
    guard = f" {rng.choice(['and', 'or'])} ".join(parts)
    if rng.random() < 0.3:
        guard = f"not ({guard})"
    conv = rng.choice(["int", "math.floor", "math.ceil"])
    body = (f"        if {guard}:\n            counts[{conv}(v)] += 1\n" if rng.random() < 0.6
            else f"        if {guard}:\n            continue\n        counts[{conv}(v)] += 1\n")
    return (f"def gen{k}(x):\n    counts = np.zeros({n}, dtype=np.int64)\n"
            f"    for i in range(x.shape[0]):\n        v = x[i]\n{body}    return counts\n")


def _outcome(fn, x):
    try:
        return fn(x.copy())
    except (IndexError, ValueError, OverflowError) as e:
        return type(e)


@pytest.mark.parametrize("seed", range(2))   # each fails if a false float guard narrows
def test_generated_float_guards_raise_or_count_as_python(seed):
    """Every proof is checked against Python: samples in and around the bins, NaN and
    infinities, float32 and float64; the same exception type or the same counts."""
    rng = np.random.default_rng(seed)
    for k in range(8):
        src = _guarded_bin_source(rng, k)
        fn = function_from_source(src, f"gen{k}", f"prove-checks-gen-{seed}-{k}",
                                  {"np": np, "math": math})
        dtype = np.float32 if k % 2 else np.float64
        x = rng.uniform(-8.0, 8.0, 12).astype(dtype)
        x[:3] = [-6.0, 5.999, 6.0]
        cases = [x, np.append(x, np.nan).astype(dtype), np.append(x, np.inf).astype(dtype)]
        backend = ("interp", "native", "xla")[k % 3]
        for xs in cases:
            want = _outcome(fn, xs)
            got = _outcome(solvent.jit(fn, backend=backend), xs)
            if isinstance(want, type):
                assert got is want, (src, xs, want, got)
            else:
                assert isinstance(got, np.ndarray) and np.array_equal(got, want), \
                    (src, xs, want, got)


def binned_into(nbins, lo, x, counts):
    """As ported from C: the bin count and origin first, the caller's counts array filled in
    place (any integer dtype: a uint8 count wraps as NumPy's does)."""
    for i in range(x.shape[0]):
        v = x[i] - lo
        if 0.0 <= v and v < nbins:
            counts[math.floor(v)] += 1
    return counts


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [0, 1, 300])
@pytest.mark.parametrize("layout", ["strided", "reversed"])
@pytest.mark.parametrize("dtype,cdtype", [(np.float32, np.uint8), (np.float64, np.int8)])
def test_float_guards_as_a_stranger_calls_them(backend, n, layout, dtype, cdtype):
    """The guard v < nbins against a run-time nbins proves only that floor(v) is no NaN and
    no infinity: the int64-range and index checks stay, and NumPy's answer holds."""
    base = np.random.default_rng(n).normal(3.0, 3.0, 2 * n + 1).astype(dtype)
    if n:
        base[0] = np.nan
    x = {"strided": base[::2][:n], "reversed": base[::-2][:n]}[layout]
    check(binned_into, 6, -0.5, x, np.zeros(6, cdtype), backend=backend)
