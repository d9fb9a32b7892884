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
from solvent.ir.registry import REGISTRY
from solvent.ops.checks import error_text
from solvent.passes.checks_to_values import checks_to_values
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
    missing = []
    for name, opdef in REGISTRY.items():
        if opdef.infer is None:
            missing.append(f"{name}: infer")
        if opdef.interp is None:
            missing.append(f"{name}: interp")
        if opdef.xla is None and opdef.level != "array":
            missing.append(f"{name}: xla")
        if opdef.level == "array" and opdef.xla is not None:
            missing.append(f"{name}: array-level op with an XLA rule")
        if opdef.level not in ("tensor", "array", "control", "terminator"):
            missing.append(f"{name}: unknown level {opdef.level!r}")
    assert not missing, missing


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
