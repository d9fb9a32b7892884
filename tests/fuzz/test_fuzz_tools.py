"""The fuzzer's own parts: the generator covers what issue 7 asks for, the shrinker shrinks,
and a saved reproducer is a test pytest can run."""
import re

import numpy as np

import driver
import gen
import shrink

SEEDS = range(150)   # the CI seeds (test_fuzz_ci.py)


def test_generator_covers_the_features_across_the_ci_seeds():
    progs = [gen.generate(s) for s in SEEDS]
    srcs = [p.render() for p in progs]
    arrays = [q for p in progs for q in p.params if q.what == "array"]
    has = {
        "nested for": any(re.search(r"\n( +)for .*\n\1    for ", s) for s in srcs),
        "while": any("while " in s for s in srcs),
        "data-dependent if": any(re.search(r"if .*\[.*\] ?.*> ", s) for s in srcs),
        "helper call": any("helper(" in s for s in srcs),
        "reduction with axis": any("axis=" in s for s in srcs),
        "non-affine subscript": any("* 3 + 1) %" in s or "// 2]" in s for s in srcs),
        "gather": any(re.search(r"\[\w+ % \w+\.shape\[0\]\]", s) for s in srcs),
        "slice update": any(re.search(r"\w\[[^\]]*:[^\]]*\] [-+*]?= ", s) for s in srcs),
        "column broadcast": any("[:, None]" in s for s in srcs),
        "compile-time before an array": any(
            [q.what for q in p.params].index("static") < max(
                i for i, q in enumerate(p.params) if q.what == "array")
            for p in progs if any(q.what == "static" for q in p.params)),
        "Fortran order": any(q.layout == "F" for q in arrays),
        "strided": any(q.layout == "S" for q in arrays),
        "empty axis": any(p.n == 0 or p.m == 0 for p in progs),
        "length-1 axis": any(p.n == 1 or p.m == 1 for p in progs),
    }
    for static in (None, "add", "mul", tuple, int):
        has[f"static {static}"] = any(
            q.what == "static" and (q.value == static if not isinstance(static, type)
                                    else type(q.value) is static)
            for p in progs for q in p.params)
    for dt in gen.DTYPES:
        has[dt] = any(q.dtype == dt for q in arrays)
    missing = [k for k, v in has.items() if not v]
    assert not missing, f"the CI seeds never generate: {missing}"


def test_generated_sources_compile_and_numpy_runs_most():
    ok = 0
    for s in range(40):
        p = gen.generate(s)
        fn = p.load()
        ok += driver.numpy_exception(fn, p.make_args()) is None
    assert ok >= 30, f"NumPy raised on {40 - ok} of 40 generated programs"


def test_shrinker_keeps_the_failure_and_drops_the_rest(monkeypatch):
    # a stand-in bug: "solvent mismatches whenever the program calls np.sqrt"
    prog = next(p for p in map(gen.generate, range(500))
                if p.render().count("np.") > 6 and "np.sqrt" in p.render())

    def fake(p, backends=driver.BACKENDS):
        bad = "np.sqrt" in p.render()
        return driver.Outcome("mismatch" if bad else "accepted", "xla:value" if bad else "")
    monkeypatch.setattr(shrink, "run_program", fake)
    small = shrink.shrink(prog, "xla:value")
    assert "np.sqrt" in small.render()
    assert len(small.render()) < len(prog.render())
    assert small.render().count("np.") < prog.render().count("np.")


def test_saved_reproducer_is_a_runnable_test(tmp_path):
    prog = next(p for p in map(gen.generate, range(500))
                if {"F", "S"} <= {q.layout for q in p.params if q.what == "array"})
    out = driver.Outcome("mismatch", "xla:value", f"[xla] {prog.name}[xla] result: values differ",
                         ("xla",))
    path = shrink.save_regression(prog, out, str(tmp_path))
    src = open(path).read()
    compile(src, path, "exec")
    assert "xfail(strict=True" in src and f"def test_fuzz_{prog.seed}(backend)" in src
    ns = {}
    exec(compile(src, path, "exec"), ns)
    args = ns["ARGS"]()
    exp = prog.make_args()
    assert len(args) == len(exp)
    for a, e in zip(args, exp):
        if isinstance(e, np.ndarray):
            assert a.dtype == e.dtype and a.strides == e.strides and np.array_equal(a, e)
        else:
            assert a == e


def _sin_of_big(A):
    return np.sin(A * 1e17)


def _plus_one(A):
    return A + 1.0


def test_numpy_spread_separates_ill_conditioned_from_well_conditioned_programs():
    A = np.linspace(0.5, 2.0, 7)
    atol, exact = driver.numpy_spread(_sin_of_big, (A,))
    assert atol > 0.1 and not exact          # sin of 1e17 * x: the last bit decides
    atol, exact = driver.numpy_spread(_plus_one, (A,))
    assert atol < 1e-14 and not exact        # a few ulps of the inputs, no more
    assert driver.numpy_spread(_plus_one, (np.arange(5),)) == (0.0, False)   # no float input


def test_a_wrong_answer_on_a_well_conditioned_program_is_not_excused(monkeypatch):
    import differential
    monkeypatch.setattr(differential, "jitted", lambda fn, backend: lambda A: A + 1.001)
    assert not driver._within_numpy_spread(_plus_one, (np.linspace(0.5, 2.0, 7),), "interp")
    # ... and an answer within NumPy's own spread is
    monkeypatch.setattr(differential, "jitted",
                        lambda fn, backend: lambda A: np.sin(A * 1e17 * (1 + 2e-16)))
    assert driver._within_numpy_spread(_sin_of_big, (np.linspace(0.5, 2.0, 7),), "interp")


def _one_over_max(A, B):       # fuzzer seed 205079, shrunk
    B[:-1] *= (1.0 > 1.0)      # B = [0.0, -0.0, -0.86]: np.max(B) is -0.0 here, +0.0 on XLA
    A[:] *= (1.0 + (1.0 // np.max(B)))


def test_signed_zero_of_max_among_equal_zeros_is_excused_and_nothing_else(monkeypatch):
    args = (np.array([0.40, 0.46]), np.array([0.78, -1.47, -0.86]))
    o = driver.run_program(_Prog(_one_over_max, args))
    assert o.status == "signed-zero", o
    import differential
    monkeypatch.setattr(differential, "jitted", lambda fn, backend: lambda A, B: None)
    assert not driver._agrees_with_other_zero_sign(_one_over_max, args, "interp")


class _Prog:
    """A hand-written program in the shape driver.run_program takes."""
    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def load(self):
        return self.fn

    def make_args(self):
        return tuple(a.copy() for a in self.args)


def _unstable_count_and_sum(A):
    return int(np.sum(np.sin(A * 1e17) > 0)), A + 1.0


def test_an_output_that_jumps_excuses_only_itself(monkeypatch):
    """The integer count jumps under a 4-ulp perturbation; the float array beside it does
    not: a wrong float array is not excused by its unstable neighbour."""
    import differential
    A = np.linspace(0.5, 2.0, 7)
    spread = driver.output_spreads(_unstable_count_and_sum, (A,))
    assert spread[0] == float("inf") and spread[1] < 1e-14
    monkeypatch.setattr(differential, "jitted",
                        lambda fn, backend: lambda A: (99, A + 1.0))
    assert driver._within_numpy_spread(_unstable_count_and_sum, (A,), "interp")
    monkeypatch.setattr(differential, "jitted",
                        lambda fn, backend: lambda A: (99, A + 1.001))
    assert not driver._within_numpy_spread(_unstable_count_and_sum, (A,), "interp")
