"""The cost model of the automatic backend choice (backends/choice.py), on real IR."""
import numpy as np

import solvent
from solvent.backends.choice import choose, loop_work


def _ir(fn, *args):
    return solvent.jit(fn).compile(args).fn


def sweep(A):
    n = A.shape[0]
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            A[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])


def vector_steps(T, A, B):
    for t in range(T):
        B[1:-1] = 0.5 * (A[:-2] + A[2:])
        A[1:-1] = 0.5 * (B[:-2] + B[2:])


def no_loops(A):
    return np.exp(A) @ A


def test_scalar_sweep_counts_as_scalar_loops_and_goes_native_when_native_accepts():
    fn = _ir(sweep, np.ones((6, 6)))
    w = loop_work(fn)
    assert w.scalar_loops and w.element_accesses >= 5 and w.loops == 2
    name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
    assert name == "native" and "scalar work" in why


def test_vectorized_time_loop_and_loop_free_code_go_to_xla():
    for fn in (_ir(vector_steps, 3, np.ones(16), np.ones(16)), _ir(no_loops, np.ones((4, 4)))):
        assert not loop_work(fn).scalar_loops
        name, why = choose(fn, {"xla": "ok", "native": "ok"}, {})
        assert name == "xla" and "tensor program" in why


def test_only_accepting_backend_is_chosen_with_the_refusal_quoted():
    fn = _ir(no_loops, np.ones((4, 4)))
    name, why = choose(fn, {"native": "ok"}, {"xla": "run-time shape at f.py:3"})
    assert name == "native" and "xla refuses it: run-time shape at f.py:3" in why
