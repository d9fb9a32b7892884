"""The versioned raise (passes/raising/versioning.py): a carried nest batched under a
run-time guard, with the loops kept as the fallback.

Differential: plain NumPy running the same loops is the oracle, on every backend, with
inputs where the guard holds (non-negative diagonal) and where it fails (negative diagonal
entries, a -0.0 written over 0.0), at edge sizes; nests with a real dependence are never
versioned.
"""
import copy

import numpy as np
import pytest

import solvent
from solvent.analysis.explain import explain_loops
from solvent.corpus.floyd_warshall_loops import kernel as FLOYD
from solvent.frontend.translator import translate
from solvent.ir.verifier import verify
from solvent.passes import pipeline
from solvent.passes.raising import versioning

import versioned_kernels as K

BACKENDS = ["native", "xla", "interp"]

def _compiled(fn, args):
    f = translate(fn, tuple(args), frozenset()).fn
    for p in pipeline.build_pipeline():
        f = p.run(f)
        verify(f, tensor_only=p.tensor_only)
    return f

def _check(fn, args, backend):
    want = copy.deepcopy(list(args))
    fn(*want)
    got = copy.deepcopy(list(args))
    solvent.jit(fn, backend=backend)(*got)
    for a, b in zip(want, got):
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)  # same order of the same min/select: exact
            if a.dtype.kind == "f":
                assert np.array_equal(np.signbit(a), np.signbit(b))

def _floyd_inputs(n, dtype, negative, order="C"):
    rng = np.random.default_rng(n)
    d = (rng.random((n, n)) * 10).astype(dtype)
    if negative and n:
        d[n // 2, n // 2] = -3  # a negative cycle: row/column k change, the guard fails
    return np.asarray(d, order=order)

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("negative", [False, True], ids=["diag>=0", "negative-diag"])
@pytest.mark.parametrize("n,dtype,order", [(7, "f64", "C"), (5, "f32", "F"), (6, "i8", "C"),
                                           (1, "f64", "C"), (0, "f64", "C")])
def test_floyd_matches_numpy(n, dtype, order, negative, backend):
    dt = {"f64": np.float64, "f32": np.float32, "i8": np.int8}[dtype]
    _check(FLOYD, [_floyd_inputs(n, dt, negative, order)], backend)

def test_floyd_is_versioned_and_its_pivot_loop_stays():
    f = _compiled(FLOYD, [_floyd_inputs(6, np.float64, False)])
    text = explain_loops(f)
    assert "loop i: versioned" in text and "run-time guard" in text, text
    ifs = [op for op in f.walk() if op.name == "loop.if"]
    assert len(ifs) == 1  # batch or fallback, inside the k loop
    fors = [op for op in f.walk() if op.name == "loop.for"]
    assert len(fors) == 3  # k, and the fallback i, j in the else branch
    assert all(op in set(ifs[0].regions[1].block.walk()) for op in fors[1:])

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape,k", [((4, 6), 2), ((6, 3), 0), ((1, 1), 0)])
def test_scalar_pivot_before_a_non_square_array(shape, k, backend):
    rng = np.random.default_rng(1)
    a = rng.random(shape) * 5
    _check(K.relax_pivot, [k, a], backend)
    b = a.copy()
    b[k, k] = -1.0  # the pivot row changes: the fallback loops run
    _check(K.relax_pivot, [k, b], backend)

@pytest.mark.parametrize("backend", BACKENDS)
def test_negative_zero_written_over_zero_sends_to_the_fallback(backend):
    a = np.array([[0.0, 1.0, 2.0], [0.0, 3.0, 0.5], [2.0, 4.0, 1.0]])
    assert "loop i: versioned" in explain_loops(_compiled(K.sign_flip, [a]))
    _check(K.sign_flip, [a], backend)
    want = a.copy()
    K.sign_flip(want)
    assert want[0, 1] == 5.0  # 1 / -0.0 < 0: the batch alone (1 / 0.0) keeps 1.0

@pytest.mark.parametrize("kernel,make", [
    (FLOYD, lambda: [_floyd_inputs(6, np.float64, True)]),
    (K.sign_flip, lambda: [np.array([[0.0, 1.0], [2.0, 0.0]])])])
def test_a_missing_guard_is_caught(monkeypatch, kernel, make):
    """The batch without its guard (ok always true) gives a different answer on these
    inputs: the differential checks above would see a guard that let them through."""
    monkeypatch.setattr(versioning, "_guard", lambda b, info, loop, w, shared, ok: ok)
    args = make()
    want = copy.deepcopy(args)
    kernel(*want)
    got = copy.deepcopy(args)
    solvent.jit(kernel, backend="interp")(*got)
    assert not all(np.array_equal(x, y) and np.array_equal(np.signbit(x), np.signbit(y))
                   for x, y in zip(want, got))

@pytest.mark.parametrize("kernel", [K.row_scale, K.neighbour_min])
def test_real_dependences_are_not_versioned(kernel):
    a = np.random.default_rng(2).random((5, 4)) + 0.5
    f = _compiled(kernel, [a])
    assert "versioned" not in explain_loops(f)
    assert not any(op.name == "loop.if" for op in f.walk())
    for backend in BACKENDS:
        _check(kernel, [a], backend)
