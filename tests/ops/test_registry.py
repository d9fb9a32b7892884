"""Property tests over the op registry.

Every op has its rules (type inference, interpreter, XLA lowering unless it is array level)
and at least one sample in ``op_samples``; on every sample the interpreter (NumPy semantics,
the oracle) and XLA agree on random inputs; array-level samples are validated through
functionalization instead; every sample prints to text that parses back to the same text.
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
from solvent.backends import available_backends, get_backend
from solvent.ir.registry import (REGISTRY, IRError, lowering, lowerings, register_lowering,
                                 vjp_rule)
from solvent.passes.functionalize import functionalize

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
    with pytest.raises(IRError, match=r"tensor\.add has no VJP rule"):
        vjp_rule("tensor.add")
    with pytest.raises(IRError, match="unknown op"):
        register_lowering("tensor.nothing", "xla", lambda op, args, ctx: args)
    with pytest.raises(ValueError, match="twice"):
        register_lowering("tensor.add", "xla", lambda op, args, ctx: args)
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


TENSOR = [s for s in SAMPLES if s.level == "tensor"]
ARRAY = [s for s in SAMPLES if s.level == "array"]


@pytest.mark.parametrize("sample", TENSOR, ids=[s.id for s in TENSOR])
def test_interp_and_xla_agree(sample: Sample):
    verify(sample.fn, tensor_only=True)
    exe = XlaExecutable(sample.fn)
    for seed in SEEDS:
        args = _inputs(sample, seed)
        want = run(sample.fn, _copies(args))
        got = exe(*_copies(args))
        assert len(got) == len(want) == len(sample.fn.result_types)
        for k, (g, w, t) in enumerate(zip(got, want, sample.fn.result_types)):
            assert (w.dtype, w.shape) == (np_dtype(t.dtype), t.shape), f"{sample.id}: {t}"
            assert_same(g, w, f"{sample.id} seed {seed} result {k} (XLA vs interpreter)")


WITH_NUMPY = [s for s in SAMPLES if s.numpy is not None]


@pytest.mark.parametrize("sample", WITH_NUMPY, ids=[s.id for s in WITH_NUMPY])
def test_interp_matches_numpy(sample: Sample):
    """The interpreter is the oracle; where its rule is more than one NumPy call, check it
    against an independent plain NumPy/Python reference."""
    for seed in SEEDS:
        args = _inputs(sample, seed)
        want = sample.numpy(*_copies(args))
        got = run(sample.fn, _copies(args))
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{sample.id} seed {seed} result {k} (interpreter vs NumPy)")


@pytest.mark.parametrize("sample", ARRAY, ids=[s.id for s in ARRAY])
def test_array_level_functionalizes(sample: Sample):
    """Translation validation: functionalize keeps the interpreter's results and in-place
    effects; the functionalized function also runs on XLA."""
    verify(sample.fn)
    fn2 = functionalize(sample.fn)
    verify(fn2, tensor_only=True)
    exe = XlaExecutable(fn2)
    n = len(sample.fn.result_types)
    for seed in SEEDS:
        args = _inputs(sample, seed)
        bufs = _copies(args)
        want = run(sample.fn, bufs)  # mutates the ref arguments in bufs
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


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_print_parse_round_trip(sample: Sample):
    for fn in ([sample.fn, functionalize(sample.fn)] if sample.level == "array"
               else [sample.fn]):
        text = print_function(fn)
        parsed = parse_function(text)
        assert print_function(parsed) == text
        verify(parsed)
