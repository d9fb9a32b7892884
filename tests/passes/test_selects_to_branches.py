"""selects_to_branches (native): a scalar select in a loop whose arm reads an array element
only for it becomes a ``loop.if`` again, with that arm's ops inside.

- translation validation: the interpreter runs the IR before and after the pass on random
  inputs (NaN, inf, -0.0 among them) at edge sizes, and a deliberately wrong rewrite (arms
  swapped) is caught by the same check;
- what it leaves as selects: ``max(a, b)`` (its condition reads both arms), the speculated
  copy of an element read anyway, the old value of an element a sunk update writes;
- native results match plain Python at edge sizes, with dtypes and layouts a stranger
  passes, including reads that would be out of bounds were they not under their branch.
"""
import copy
import sys
from pathlib import Path

import numpy as np
import pytest

from solvent.backends.interp import run
from solvent.backends.native.backend import NativeBackend
from solvent.corpus.find_first import kernel as find_first
from solvent.corpus.knapsack_items import kernel as knapsack
from solvent.corpus.lcs_table import kernel as lcs
from solvent.frontend.translator import translate
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.verifier import verify
from solvent.passes import pipeline, selects_to_branches
from solvent.passes.selects_to_branches import SelectsToBranches

from differential import copy_keep_layout, jitted

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_patterns import _inputs  # noqa: E402  (the pattern tests' random inputs)


def shifted_window(a, k, y):
    # a[j - k] is read only where j >= k: speculated, it would reach before the array
    for j in range(y.shape[0]):
        if j >= k:
            y[j] = a[j - k] * 2.0
        else:
            y[j] = -1.0
    return y


def running_pick(a, b, out):
    # a carried chain through the select: the next trip starts from the value picked here
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] > s:
            s = b[i] + s * 0.5
        else:
            s = s - 1.0
        out[i] = s
    return s


def keep_max(a):
    m = 0.0
    for i in range(a.shape[0]):
        m = max(a[i], m)
    return m


def _before_after(pyfn, args, static=frozenset()):
    """(IR just before selects_to_branches, IR after it), the native pipeline's options;
    ``static``: the positions of compile-time arguments (knapsack's capacity sizes its
    table)."""
    fn = translate(pyfn, tuple(args), frozenset(static)).fn
    before = None
    for p in pipeline.build_pipeline(NativeBackend.pass_defaults):
        if p.name == "selects_to_branches":
            before = parse_function(print_function(fn))
        fn = p.run(fn)
        verify(fn, tensor_only=p.tensor_only)
    return before, fn


def _ifs_in_loops(fn):
    return sum(1 for loop in fn.walk() if loop.name in ("loop.for", "loop.while")
               for op in list(loop.walk())[1:] if op.name == "loop.if")


def _close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


def _agrees(before, after, seeds=3):
    rng = np.random.default_rng(11)
    for _ in range(seeds):
        inputs = _inputs(before, rng)
        x = run(before, copy.deepcopy(inputs))
        y = run(after, copy.deepcopy(inputs))
        if len(x) != len(y) or not all(_close(a, b) for a, b in zip(x, y)):
            return False
    return True


def _lcs_args(n):
    rng = np.random.default_rng(n)
    return (rng.integers(0, 3, n, dtype=np.int8), rng.integers(0, 3, n + 2, dtype=np.int8),
            np.zeros((n + 1, n + 3), dtype=np.int32))


def _knapsack_args(n):
    rng = np.random.default_rng(n)
    return (rng.integers(1, 10, n), rng.random(n) * 10.0, 3 * n)


CASES = {
    "lcs_table": (lcs, _lcs_args),
    "knapsack_items": (knapsack, _knapsack_args),
    "shifted_window": (shifted_window,
                       lambda n: (np.arange(n, dtype=np.float64), 2, np.zeros(n + 2))),
    "running_pick": (running_pick,
                     lambda n: (np.linspace(-1, 2, n), np.linspace(3, 0, n), np.zeros(n))),
}


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("name", list(CASES))
def test_interpreter_agrees_before_and_after(name, n):
    fn, make = CASES[name]
    before, after = _before_after(fn, make(n), {2} if name == "knapsack_items" else ())
    if n >= 5:   # shorter loops may be unrolled or folded away before the pass
        assert _ifs_in_loops(after) > _ifs_in_loops(before), print_function(after)
    assert _agrees(before, after)


def test_swapped_arms_are_caught(monkeypatch):
    real = selects_to_branches._branch

    def swapped(block, sel, arms):
        sel.operands[1], sel.operands[2] = sel.operands[2], sel.operands[1]
        return real(block, sel, arms[::-1])
    monkeypatch.setattr(selects_to_branches, "_branch", swapped)
    before, after = _before_after(lcs, _lcs_args(6))
    assert _ifs_in_loops(after) > _ifs_in_loops(before)
    assert not _agrees(before, after)


def test_the_lcs_arms_are_branches_and_its_max_a_select():
    _, after = _before_after(lcs, _lcs_args(5))
    iffs = [op for op in after.walk() if op.name == "loop.if"]
    assert len(iffs) == 1, print_function(after)
    then, other = (r.block.ops for r in iffs[0].regions)
    assert [op.name for op in then] == ["tensor.slice", "tensor.add", "loop.yield"]
    assert sorted(op.name for op in other) == [
        "loop.yield", "tensor.gt", "tensor.select", "tensor.slice", "tensor.slice"]


@pytest.mark.parametrize("fn, args", [
    (keep_max, (np.arange(5.0),)),                     # max(a, b): a cmov
    (find_first, (np.random.default_rng(0).random((4, 6)), 2.0)),   # sunk update of idx[i]
], ids=["max", "sunk_update"])
def test_what_stays_a_select(fn, args):
    before, after = _before_after(fn, args)
    assert _ifs_in_loops(after) == _ifs_in_loops(before), print_function(after)
    again = SelectsToBranches(enabled=True)
    again.run(before)
    assert again.idle


def _layouts(a):
    yield a
    if a.ndim == 2 and a.size:
        yield np.asfortranarray(a)
    if a.ndim == 1 and a.size:
        big = np.zeros(2 * a.size, a.dtype)
        big[::2] = a
        yield big[::2]


@pytest.mark.parametrize("n", [0, 1, 2, 9])
@pytest.mark.parametrize("name", list(CASES))
def test_native_matches_python(name, n):
    fn, make = CASES[name]
    args = make(n)
    f = jitted(fn, "native")
    for i, a in enumerate(args):
        if not isinstance(a, np.ndarray):
            continue
        for lay in _layouts(a):
            call = list(args)
            call[i] = lay
            want_args = [copy_keep_layout(x) for x in call]
            got_args = [copy_keep_layout(x) for x in call]
            want = fn(*want_args)
            got = f(*got_args)
            assert _close(np.asarray(got), np.asarray(want)), (name, n, i)
            for g, w in zip(got_args, want_args):
                if isinstance(w, np.ndarray):
                    np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.uint8])
def test_lcs_with_other_symbol_and_table_dtypes(dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 13).astype(dtype)
    b = rng.integers(0, 4, 11).astype(dtype)
    for tdt in (np.int32, np.int64, np.float64):
        T1 = np.zeros((14, 14), tdt)
        T2 = T1.copy()
        assert jitted(lcs, "native")(a, b, T1) == lcs(a, b, T2)
        np.testing.assert_array_equal(T1, T2)


def c_style_pick(scale, n, src, flags, out):
    # a scalar and a compile-time count before the arrays, an index computed as in C, each
    # element from the one before (a loop that stays a loop)
    for i in range(n):
        if flags[i] != 0:
            out[i] = src[n - 1 - i] * scale + out[i - 1]
        else:
            out[i] = out[i - 1] - scale


@pytest.mark.filterwarnings("ignore:overflow encountered")   # uint8/int8 wrap, as NumPy's
@pytest.mark.parametrize("dtype", [np.complex64, np.uint8, np.int8, np.float32])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_a_stranger_calls_it_with_other_dtypes_and_layouts(dtype, n):
    rng = np.random.default_rng(n)
    src = (rng.integers(0, 9, 2 * n + 2) + (1j * rng.integers(0, 9, 2 * n + 2)
                                            if dtype == np.complex64 else 0)).astype(dtype)
    flags = rng.integers(0, 2, n).astype(np.uint8)
    scale = dtype(3)
    for s in (src[:n + 1], src[::2][:n + 1]):               # contiguous and strided
        want, got = np.zeros(n, dtype), np.zeros(n, dtype)
        c_style_pick(scale, n, s, flags, want)
        jitted(c_style_pick, "native")(scale, n, s, flags, got)
        np.testing.assert_array_equal(got, want)
    if n == 7:
        before, after = _before_after(c_style_pick, (scale, n, src[:n + 1], flags,
                                                     np.zeros(n, dtype)), {1})
        assert _ifs_in_loops(after) > _ifs_in_loops(before), print_function(after)
        assert _agrees(before, after)
