"""``clone_function`` (a program kept before raising, rerun with another backend's options)
and ``run_pipeline``'s verifier: after every pass under test, on the input and the output
otherwise."""
import numpy as np
import pytest

import solvent
from solvent.frontend.translator import translate
from solvent.ir.core import clone_function
from solvent.ir.printer import print_function
from solvent.ir.verifier import VerifyError, verify
from solvent.passes import pipeline
from solvent.passes.base import Pass
from solvent.passes.pipeline import build_pipeline, run_pipeline, shared_prefix


def kernel(A, b):
    n = A.shape[0]
    for i in range(n):
        s = 0.0
        for j in range(i):
            s += A[i, j] * b[j]
        b[i] = (b[i] - s) / A[i, i]
    return b.sum()


def _args():
    rng = np.random.default_rng(0)
    return (rng.random((5, 5)) + 5 * np.eye(5), rng.random(5))


def _fn():
    return translate(kernel, _args(), frozenset()).fn


def test_a_clone_prints_alike_and_shares_nothing():
    fn = _fn()
    passes = build_pipeline()
    head = shared_prefix(passes, {"raise_loops"})
    assert passes[head].name == "raise_loops"
    fn = run_pipeline(fn, passes=passes[:head])
    copy = clone_function(fn)
    assert print_function(copy) == print_function(fn)
    verify(copy)
    ops, copy_ops = list(fn.walk()), list(copy.walk())
    assert not set(map(id, ops)) & set(map(id, copy_ops))
    values = {id(v) for op in ops for v in op.results} | {id(a) for a in fn.args}
    assert not values & ({id(v) for op in copy_ops for v in op.results} |
                         {id(a) for a in copy.args})
    assert copy.errors == fn.errors and copy.errors is not fn.errors
    before = print_function(fn)
    # the rest of the pipeline on the copy leaves the original as it was, and gives what
    # the whole pipeline gives in one run
    rest = run_pipeline(copy, passes=passes[head:], start=False)
    assert print_function(fn) == before
    assert print_function(rest) == print_function(run_pipeline(_fn()))


class _Breaks(Pass):
    """Makes a malformed program: a result typed other than its op gives."""
    name = "breaks"

    def run(self, fn):
        from solvent.ir.types import TensorType
        for op in fn.walk():
            if op.name == "tensor.add" and op.results:
                op.results[0].type = TensorType((7,), "f64")
                break
        return fn


@pytest.mark.parametrize("each", ["1", "0"])
def test_a_malformed_program_is_caught_with_or_without_verify_each(monkeypatch, each):
    monkeypatch.setenv("SOLVENT_VERIFY_EACH", each)
    assert pipeline.verify_each_default() is (each == "1")
    passes = build_pipeline()
    # broken early: under test the verifier names it at once; otherwise the last run
    # (after every pass) still refuses the program before any backend sees it
    with pytest.raises(VerifyError):
        run_pipeline(_fn(), passes=passes[:2] + [_Breaks()] + passes[2:])


def test_results_match_numpy_without_verify_each(monkeypatch):
    monkeypatch.setenv("SOLVENT_VERIFY_EACH", "0")
    A, b = _args()
    b1 = b.copy()
    want = kernel(A, b1)
    b2 = b.copy()
    got = solvent.jit(kernel)(A, b2)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(b2, b1, rtol=1e-12)
