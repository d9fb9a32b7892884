"""The dependence test on loops people write, checked two ways.

1. The classification of every loop (and a word of its evidence) is what the kernel's
   author knows it to be.
2. An execution oracle, independent of the analysis: the reference interpreter runs the
   compiled IR with one loop's iterations reordered (reversed, shuffled) or run "in
   parallel" (every iteration starts from the loop's initial carried values; the elements
   each one changed are merged). A loop classified ``independent`` must give the sequential
   result under all three; a ``reduction`` under both reorderings (up to rounding); and a
   ``carried`` loop of a genuine dependence must give a *different* result under at least one
   of them (so those tests show the dependence is real, not an artefact of the analysis).
"""
import numpy as np
import pytest

import dep_kernels as K
from differential import check
from solvent.analysis import analyze, explain_loops, tensor_ir
from loop_oracle import MODES, run, same

ALL = [("carried", k) for k in K.CARRIED] + [("independent", k) for k in K.INDEPENDENT] + \
    [("reduction", k) for k in K.REDUCTIONS] + [("harder", k) for k in K.HARDER]
IDS = [k[0].__name__ for _, k in ALL]


def _args(make):
    return make(np.random.default_rng(7))


@pytest.mark.parametrize("group,case", ALL, ids=IDS)
def test_classification(group, case):
    fn, make, expected = case
    reports = analyze(tensor_ir(fn, *_args(make)))
    got = [(r.var, r.kind) for r in reports]
    if fn is K.swap_buffers:
        assert all(r.kind == "independent" for r in reports[1:])
        reports = reports[:1]
        got = got[:1]
    assert got == [(v, k) for v, k, _ in expected], explain_loops(fn, *_args(make))
    for r, (_, _, word) in zip(reports, expected):
        assert word in r.reason, r.line_text()
    assert group == "harder" or any(r.kind == group for r in reports)


@pytest.mark.parametrize("group,case", ALL, ids=IDS)
def test_kernel_matches_numpy(group, case):
    fn, make, _ = case
    check(fn, *_args(make), backend="interp")


@pytest.mark.parametrize("group,case", ALL, ids=IDS)
def test_execution_oracle(group, case):
    fn, make, _ = case
    args = _args(make)
    fn_ir = tensor_ir(fn, *args)
    reports = analyze(fn_ir)
    baseline = run(fn_ir, args)
    for r in reports:
        runs = {m: run(fn_ir, args, r.loop, m) for m in MODES}
        if r.kind == "independent":
            for m, out in runs.items():
                assert same(out, baseline), f"{r.line_text()}: differs when run {m}"
        elif r.kind == "reduction":
            for m in ("reverse", "shuffle"):
                assert same(runs[m], baseline, exact=False), f"{r.line_text()}: {m}"
        elif fn.__name__ not in K.CONSERVATIVE:
            assert not all(same(out, baseline) for out in runs.values()), \
                f"{r.line_text()}: no reordering shows the dependence"


def test_explain_loops_lines():
    text = explain_loops(K.gauss_seidel, np.ones((5, 5)))
    lines = text.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("line ") and ": loop i: carried — " in lines[0]
    assert "A[i-1,j]" in lines[0] and "distance 1" in lines[0]
    assert ": loop j: carried — " in lines[1] and "A[i,j-1]" in lines[1]


def shift_by(a, k):
    for i in range(a.shape[0] - k):
        a[i + k] = a[i] + 1.0


def test_a_loop_the_pipeline_copied_is_explained_once():
    """A run-time offset keeps the loop as a checked copy and an unchecked one: one line."""
    lines = explain_loops(shift_by, np.ones(10), 1).splitlines()
    assert len(lines) == 1 and "a[i+k]" in lines[0], lines


def subtract_previous(a):
    for i in range(1, a.shape[0]):
        a[i:] = a[i:] - a[i - 1]


def test_a_run_time_slice_is_named_as_written():
    text = explain_loops(subtract_previous, np.ones(6))
    assert "a[i:]" in text and "known only at run time" in text, text
    assert "None" not in text and "index item" not in text, text


def test_stride_two_has_distance_two_and_names_the_array():
    (r,) = analyze(tensor_ir(K.stride2_recurrence, np.ones(8), np.ones(8)))
    (dep, *_) = r.dependences
    assert dep.array == "x" and dep.distance == 2 and dep.directions == {"<"}


def test_float_sum_records_reassociation_and_int_count_is_exact():
    (r,) = analyze(tensor_ir(K.total, np.ones(5)))
    assert r.reductions[0][1] == "sum" and "rounding" in r.reductions[0][2]
    (r,) = analyze(tensor_ir(K.count_positive, np.ones(5)))
    assert r.reductions[0][1] == "sum" and r.reductions[0][2] == "exact in any order"


def test_distance_vector_over_the_nest():
    """Gauss-Seidel: A[i-1,j] reads what iteration (i-1, j) wrote: vector (1, 0)."""
    outer, inner = analyze(tensor_ir(K.gauss_seidel, np.ones((6, 6))))
    flows = [d for d in outer.dependences if d.distance == 1 and d.other.text == "A[i-1,j]"]
    assert flows and flows[0].vector == (["i", "j"], ["1", "0"])
    # every t rewrites B[i, j]: the same (i, j) in an earlier and in a later t
    t, i, j = analyze(tensor_ir(K.repeated_fill, np.ones((3, 4)), np.ones((3, 4))))
    (dep,) = t.dependences
    assert dep.array == "B" and dep.other.op is dep.write.op
    assert dep.vector == (["t", "i", "j"], ["<", "0", "0"], [">", "0", "0"])
    assert (i.kind, j.kind) == ("independent", "independent")
    assert "vector (1, 0) over loops (i, j)" in outer.reason
