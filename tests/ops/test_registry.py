"""Property tests over the op registry.

Every (op, backend) pair is walked: each registered backend has a rule for every op of the
IR levels it claims (the interpreter: all of them; XLA: tensor and control), and the traits
on the records agree with each other. Every op has at least one sample in ``op_samples``;
on every sample the interpreter (NumPy semantics, the oracle) and each backend that claims
tensor ops agree on random inputs; array-level samples are validated through
functionalization instead (a sample holding ``simt.barrier``, which no backend runs, after
barrier lowering); every sample prints to text that parses back to the same text.
The backend interface is tested at the end: the registry of backends, refusals with their
reasons, and a toy backend that adds a rule table without editing any op record.
"""
from __future__ import annotations

import numpy as np
import pytest

from op_samples import SAMPLES, Sample
from solvent.backends.interp import run
from solvent.backends.xla import XlaExecutable
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.types import np_dtype
from solvent.ir.verifier import verify
import solvent
from solvent import backends
from solvent.backends import available_backends, get_backend
from solvent.backends.base import Backend
from solvent.backends.evaluator import BlockEvaluator
from solvent.ir import registry
from solvent.ir.builder import Builder
from solvent.ir.core import Block, Function, SourceLoc, clone_function
from solvent.ir.types import RefType, TensorType
from solvent.ir.registry import (REGISTRY, IRError, lowering, lowerings, register_lowering,
                                 register_vjp, vjp_rule)
from solvent.ops.checks import error_text
from solvent.passes.checks_to_values import checks_to_values
from solvent.passes.functionalize import functionalize
from solvent.passes.lower_barriers import LowerBarriers

SEEDS = (0, 1, 2)
IDS = [s.id for s in SAMPLES]


def _inputs(sample: Sample, seed: int) -> list:
    return [np.asarray(a) for a in sample.inputs(np.random.default_rng(seed))]


def _copies(args: list) -> list:
    return [a.copy() for a in args]


def assert_same(got, want, what: str) -> None:
    """Same dtype and shape exactly; values to the dtype's tolerance (NaN equals NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    if want.dtype.kind in "fc":
        bits = np.finfo(want.dtype).bits
        rtol = {64: 1e-6, 32: 1e-4}[bits]
        np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def test_every_op_has_its_rules():
    """Walks every (op, backend) pair: a backend that claims a level of the IR has a rule
    for every op of that level; array-level ops have rules only where a backend claims the
    array level; terminators have no rule anywhere (the block evaluator runs them)."""
    assert {"xla", "interp"} <= set(available_backends())
    missing = []
    for name, opdef in REGISTRY.items():
        if opdef.infer is None:
            missing.append(f"{name}: infer")
        for backend in map(get_backend, available_backends()):
            has = name in lowerings(backend.name)
            if opdef.terminator:
                if has:
                    missing.append(f"{name}: terminator with a {backend.name} rule")
            elif opdef.level in backend.levels and not has:
                missing.append(f"{name}: no {backend.name} rule ({opdef.level} level)")
            elif opdef.level == "array" and "array" not in backend.levels and has:
                missing.append(f"{name}: array-level op with a {backend.name} rule")
    assert not missing, missing


def test_the_interpreter_runs_every_level_and_xla_the_tensor_program():
    assert get_backend("interp").levels == {"tensor", "array", "control"}
    assert get_backend("xla").levels == {"tensor", "control"}


def test_traits_are_consistent():
    bad = []
    for name, d in REGISTRY.items():
        if d.loop_like or d.region_branch:
            if not d.num_regions or d.level != "control":
                bad.append(f"{name}: loop-like/region-branch without regions")
        for term in d.region_terminators:
            if not REGISTRY[term].terminator:
                bad.append(f"{name}: region terminator {term} is not a terminator")
        if d.fusible and (not d.pure or d.num_regions or d.cost != "cheap"):
            bad.append(f"{name}: fusible but impure, with regions or expensive")
        if d.elementwise and not d.fusible:
            bad.append(f"{name}: elementwise but not fusible")
    assert not bad, bad
    assert {n for n, d in REGISTRY.items() if d.loop_like} == {"loop.for", "loop.while"}
    assert {n for n, d in REGISTRY.items() if d.region_branch} == {"loop.if"}
    assert {n for n, d in REGISTRY.items() if d.terminator} == {
        "loop.yield", "loop.condition", "func.return"}
    assert REGISTRY["tensor.dot_general"].cost == "expensive"
    assert REGISTRY["tensor.add"].elementwise and REGISTRY["tensor.slice"].fusible
    assert not REGISTRY["tensor.slice"].elementwise


def test_a_missing_rule_is_a_clear_error():
    with pytest.raises(IRError, match=r"array\.alloc.*'xla'"):
        lowering("array.alloc", "xla")
    with pytest.raises(IRError, match=r"tensor\.add.*'no-such-backend'"):
        lowering("tensor.add", "no-such-backend")
    with pytest.raises(IRError, match="unknown op 'tensor.nothing'"):
        lowering("tensor.nothing", "xla")
    with pytest.raises(IRError, match=r"tensor\.argsort has no VJP rule"):
        vjp_rule("tensor.argsort")  # an integer result
    with pytest.raises(IRError, match="unknown op"):
        register_lowering("tensor.nothing", "xla", lambda op, args, ctx: args)
    with pytest.raises(ValueError, match="twice"):
        register_lowering("tensor.add", "xla", lambda op, args, ctx: args)
    with pytest.raises(ValueError, match="terminator"):
        register_lowering("loop.yield", "xla", lambda op, args, ctx: args)
    assert lowering("tensor.add", "xla") is lowerings("xla")["tensor.add"]


def test_every_op_has_a_sample():
    covered = set().union(*(s.ops for s in SAMPLES))
    leads = {s.id.split("-")[0] for s in SAMPLES}
    uncovered = sorted(set(REGISTRY) - covered)
    assert not uncovered, f"ops without a sample in tests/ops/op_samples.py: {uncovered}"
    # Every non-terminator op also has a sample of its own (named after it).
    no_own = sorted(n for n, d in REGISTRY.items() if d.level != "terminator" and n not in leads)
    assert not no_own, f"ops without a sample named after them: {no_own}"


def test_sample_levels_match_their_ops():
    for s in SAMPLES:
        has_array = any(REGISTRY[n].level == "array" for n in s.ops)
        assert has_array == (s.level == "array"), s.id
        assert ("error.check" in s.ops) == (s.level == "check"), s.id
        dynamic = any(any(not r.type.static for r in op.results if isinstance(
            r.type, TensorType)) or any(it[0] == "r" for it in op.attrs.get("spec", ()))
            for op in s.fn.walk())
        assert dynamic == (s.level == "dynamic"), s.id


DYNAMIC = [s for s in SAMPLES if s.level == "dynamic"]


PRODUCTS = [s for s in SAMPLES if s.level == "tensor" and "tensor.dot_general" in s.ops and
            s.ops <= {"tensor.dot_general", "tensor.neg", "func.return"}]


def _native_agrees(sample: Sample, complex_tags=("c64", "complex")) -> None:
    """The native backend runs ``sample`` as the interpreter does, or refuses it for its
    complex data (a refusal naming one of ``complex_tags``)."""
    from solvent.backends.native import NativeBackend
    ok, why = NativeBackend().accepts(sample.fn)
    if not ok:
        assert any(t in why for t in complex_tags), why
        return
    exe = NativeBackend().compile(sample.fn)
    for seed in SEEDS:
        args = _inputs(sample, seed)
        want = run(sample.fn, _copies(args))
        got = exe(*_copies(args))
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{sample.id} seed {seed} result {k} (native vs interpreter)")


@pytest.mark.parametrize("sample", PRODUCTS, ids=[s.id for s in PRODUCTS])
def test_native_runs_products_like_the_interpreter(sample: Sample):
    """Matrix products on the native backend (BLAS, inline dots, loop nests; a scalar
    operand, as gradients make, included), complex data aside, which it refuses."""
    _native_agrees(sample, ("c128", "c64", "complex"))


@pytest.mark.parametrize("sample", DYNAMIC, ids=[s.id for s in DYNAMIC])
def test_native_runs_run_time_shapes_like_the_interpreter(sample: Sample):
    """The native backend takes run-time shapes (complex data aside, which it refuses)."""
    _native_agrees(sample)


@pytest.mark.parametrize("sample", DYNAMIC, ids=[s.id for s in DYNAMIC])
def test_xla_refuses_run_time_shapes(sample: Sample):
    """XLA needs static shapes: it refuses, naming the construct, its op and the ? type."""
    ok, why = get_backend("xla").accepts(sample.fn)
    assert not ok and "?" in why and "XLA takes only tensors whose shapes are static" in why
    first = next(op for op in sample.fn.walk() if any(
        not r.type.static for r in op.results) or "r" in str(op.attrs.get("spec")))
    assert f"({first.name})" in why, why


TENSOR = [s for s in SAMPLES if s.level == "tensor"]
ARRAY = [s for s in SAMPLES if s.level == "array"]


# Every backend that claims the tensor level, checked against the interpreter (the oracle).
COMPILED = [n for n in available_backends() if n != "interp" and
            "tensor" in get_backend(n).levels]


@pytest.mark.parametrize("backend", COMPILED)
@pytest.mark.parametrize("sample", TENSOR, ids=[s.id for s in TENSOR])
def test_interp_and_each_backend_agree(sample: Sample, backend: str):
    verify(sample.fn, tensor_only=True)
    ok, why = get_backend(backend).accepts(sample.fn)
    assert ok, f"{sample.id}: {backend} claims the tensor level but refuses: {why}"
    exe = get_backend(backend).compile(sample.fn)
    for seed in SEEDS:
        args = _inputs(sample, seed)
        want = run(sample.fn, _copies(args))
        got = exe(*_copies(args))
        assert len(got) == len(want) == len(sample.fn.result_types)
        for k, (g, w, t) in enumerate(zip(got, want, sample.fn.result_types)):
            assert (w.dtype, w.shape) == (np_dtype(t.dtype), t.shape), f"{sample.id}: {t}"
            assert_same(g, w, f"{sample.id} seed {seed} result {k} ({backend} vs interpreter)")


WITH_NUMPY = [s for s in SAMPLES if s.numpy is not None]


def _runnable(fn):
    """``fn`` with its barriers lowered (passes/lower_barriers.py): no backend runs one."""
    if not any(op.name == "simt.barrier" for op in fn.walk()):
        return fn
    out = LowerBarriers().run(clone_function(fn))
    verify(out)
    return out


@pytest.mark.parametrize("sample", WITH_NUMPY, ids=[s.id for s in WITH_NUMPY])
def test_interp_matches_numpy(sample: Sample):
    """The interpreter is the oracle; where its rule is more than one NumPy call, check it
    against an independent plain NumPy/Python reference."""
    for seed in SEEDS:
        args = _inputs(sample, seed)
        want = sample.numpy(*_copies(args))
        got = run(_runnable(sample.fn), _copies(args))
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{sample.id} seed {seed} result {k} (interpreter vs NumPy)")


@pytest.mark.parametrize("sample", ARRAY, ids=[s.id for s in ARRAY])
def test_array_level_functionalizes(sample: Sample):
    """Translation validation: functionalize keeps the interpreter's results and in-place
    effects; the functionalized function also runs on XLA."""
    verify(sample.fn)
    fn = _runnable(sample.fn)
    fn2 = functionalize(fn)
    verify(fn2, tensor_only=True)
    exe = XlaExecutable(fn2)
    n = len(fn.result_types)
    for seed in SEEDS:
        args = _inputs(sample, seed)
        bufs = _copies(args)
        want = run(fn, bufs)  # mutates the ref arguments in bufs
        for name, got in (("interpreter", run(fn2, _copies(args))),
                          ("XLA", exe(*_copies(args)))):
            what = f"{sample.id} seed {seed} ({name} after functionalize)"
            assert len(got) == len(fn2.writeback)
            for k, (g, w) in enumerate(zip(got[:n], want)):
                assert fn2.writeback[k] is None
                assert_same(g, w, f"{what} result {k}")
            for g, i in zip(got[n:], fn2.writeback[n:]):
                assert_same(g, bufs[i], f"{what} written-back argument {i}")
        # Every written ref argument is written back; the others are untouched.
        written = set(fn2.writeback[n:])
        for i, (a, b) in enumerate(zip(args, bufs)):
            if i not in written:
                assert_same(b, a, f"{sample.id}: argument {i} is not written back")


CHECK = [s for s in SAMPLES if s.level == "check"]


def _copy_fn(fn):
    return parse_function(print_function(fn))


@pytest.mark.parametrize("sample", CHECK, ids=[s.id for s in CHECK])
def test_checks_become_values(sample: Sample):
    """Translation validation of checks_to_values: where the interpreter raises at a check,
    the threaded program returns that check's code with the same message, on the
    interpreter and on XLA; elsewhere it returns code 0 and the same results."""
    fn2 = checks_to_values(_copy_fn(sample.fn))
    verify(fn2, tensor_only=True)
    exe = XlaExecutable(fn2)
    outcomes = set()
    for seed in range(12):
        args = _inputs(sample, seed)
        try:
            want, raised = run(sample.fn, _copies(args)), None
        except IndexError as e:
            want, raised = None, str(e)
        outcomes.add(raised is None)
        for name, got in (("interpreter", run(fn2, _copies(args))), ("XLA", exe(*_copies(args)))):
            code, payload = int(got[-2]), int(got[-1])
            what = f"{sample.id} seed {seed} ({name})"
            if raised is None:
                assert code == 0, f"{what}: code {code} where no check fails"
                for k, (g, w) in enumerate(zip(got[:-2], want)):
                    assert_same(g, w, f"{what} result {k}")
            else:
                assert code, f"{what}: the interpreter raised {raised!r}, code is 0"
                kind, message, loc = fn2.errors[code - 1]
                assert kind == "IndexError" and error_text(message, payload, loc or None) == raised
    assert outcomes == {True, False}, f"{sample.id}: inputs never (or always) fail a check"


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_print_parse_round_trip(sample: Sample):
    extra = {"array": lambda f: [functionalize(f)],
             "check": lambda f: [checks_to_values(_copy_fn(f))]}.get(sample.level, lambda f: [])
    for fn in [sample.fn] + extra(sample.fn):
        text = print_function(fn)
        parsed = parse_function(text)
        assert print_function(parsed) == text
        verify(parsed)


def test_vjp_rules_are_a_table_keyed_by_op(monkeypatch):
    monkeypatch.setattr(registry, "_VJPS", {})
    rule = lambda op, cotangents, ctx: cotangents  # noqa: E731
    assert register_vjp("tensor.neg", rule) is rule
    assert vjp_rule("tensor.neg") is rule
    with pytest.raises(ValueError, match="twice"):
        register_vjp("tensor.neg", rule)
    with pytest.raises(IRError, match="unknown op"):
        register_vjp("tensor.nothing", rule)


# --- the backend interface --------------------------------------------------------------------
def _doubler(x):
    return x + x


def test_unknown_backend_lists_the_available_ones():
    with pytest.raises(ValueError, match="unknown backend 'nope'") as e:
        solvent.jit(_doubler, backend="nope")(np.ones(3))
    for name in available_backends():
        assert name in str(e.value)


class _Refuser(Backend):
    name = "refuser"

    def accepts(self, fn):
        return False, "tensor.add at kernel.py:3:4 is not for me"

    def compile(self, fn):
        raise AssertionError("a refused function must not be compiled")

    def describe(self):
        return "refuser: refuses everything"


def test_a_refusing_backend_raises_unsupported_error_with_its_reason(monkeypatch):
    monkeypatch.setitem(backends._BACKENDS, "refuser", _Refuser())
    A = np.ones(3)
    with pytest.raises(solvent.UnsupportedError, match="kernel.py:3:4 is not for me"):
        solvent.jit(_doubler, backend="refuser")(A)
    assert np.array_equal(A, np.ones(3))


def test_automatic_choice_asks_accepts_and_never_falls_back_to_the_interpreter(monkeypatch):
    for name in ("xla", "native"):
        monkeypatch.setattr(get_backend(name), "accepts", lambda fn: (False, "not today"))
    with pytest.raises(solvent.UnsupportedError, match="xla refuses it: not today"):
        solvent.jit(_doubler)(np.ones(3))
    assert np.array_equal(solvent.jit(_doubler, backend="interp")(np.ones(3)), np.full(3, 2.0))


def _loc_fn(op_name: str):
    """x -> op(x, x) with a source location on the op."""
    blk = Block()
    x = blk.add_arg(TensorType((4,), "f64"), "x")
    b = Builder(blk)
    b.loc = SourceLoc("kernel.py", 3, 4)
    y = b.one(op_name, x, x)
    b.create("func.return", [y])
    return Function("k", blk, ["x"])


def test_accepts_names_the_op_without_a_rule_and_its_line():
    blk = Block()
    x = blk.add_arg(TensorType((4,), "f64"), "x")
    b = Builder(blk)
    b.loc = SourceLoc("kernel.py", 7, 2)
    ref = b.one("array.alloc", x)
    b.create("func.return", [b.create("array.read", [ref], {"spec": [["s", 0, 4, 1]]}).result])
    fn = Function("k", blk, ["x"])
    ok, why = get_backend("xla").accepts(fn)
    assert not ok and why == "array.alloc at kernel.py:7:2 has no xla rule"
    assert get_backend("interp").accepts(fn)[0]
    assert get_backend("xla").accepts(_loc_fn("tensor.add"))[0]


def test_xla_refuses_values_that_are_not_static_tensors():
    blk = Block()
    blk.add_arg(RefType((4,), "f64"), "buf")
    Builder(blk).create("func.return", [])
    ok, why = get_backend("xla").accepts(Function("k", blk, ["buf"]))
    assert not ok and why.startswith("argument buf has type ref<4xf64>: XLA takes only")


class _ToyCtx(BlockEvaluator):
    backend = "toy"

    def as_array(self, value):
        return np.asarray(value)


class _Toy(Backend):
    """A new backend is a rule table and a Backend; no op record is edited."""
    name = "toy"

    def compile(self, fn):
        return lambda *args: _ToyCtx().run_block(fn.body, list(args))

    def describe(self):
        return "toy: adds only"


def test_a_new_backend_adds_a_table_without_editing_a_record(monkeypatch):
    monkeypatch.setitem(registry._LOWERINGS, "toy", {})
    monkeypatch.setitem(backends._BACKENDS, "toy", _Toy())
    register_lowering("tensor.add", "toy", lambda op, args, ctx: [np.add(*args)])
    assert set(lowerings("toy")) == {"tensor.add"}
    x = np.arange(4.0)
    (got,) = get_backend("toy").compile(_loc_fn("tensor.add"))(x)
    assert np.array_equal(got, x + x)
    ok, why = get_backend("toy").accepts(_loc_fn("tensor.mul"))
    assert not ok and why == "tensor.mul at kernel.py:3:4 has no toy rule"
    with pytest.raises(IRError, match="tensor.mul has no rule for the 'toy' backend"):
        get_backend("toy").compile(_loc_fn("tensor.mul"))(x)


def test_a_rule_that_drifts_from_the_declared_type_is_caught(monkeypatch):
    monkeypatch.setitem(registry._LOWERINGS, "toy", {})
    register_lowering("tensor.add", "toy",
                      lambda op, args, ctx: [np.add(*args).astype(np.float32)])
    with pytest.raises(IRError, match="the toy rule produced float32"):
        _Toy().compile(_loc_fn("tensor.add"))(np.arange(4.0))
