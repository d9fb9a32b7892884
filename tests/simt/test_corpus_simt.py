"""Every kernel of solvent/corpus_simt run by solvent.kernel against its NumPy
implementation, on small odd sizes (partial blocks at every edge)."""
import numpy as np
import pytest

import solvent
from solvent.corpus_simt import all_cases

CASES = {c.name: c for c in all_cases()}


def run(case, n, backend=None):
    rng = np.random.default_rng(n)
    args = case.make_args(n, rng)
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    case.numpy(*ref)
    grid, block = case.config(n)
    launch = solvent.kernel(case.kernel)[grid, block]
    if backend is not None:
        low = launch.report(*(got if case.launch is None else _first_call_args(case, got)))
        low.jit.backend = backend
    (case.launch or (lambda k, a: k(*a)))(launch, got)
    for i in case.outputs:
        np.testing.assert_allclose(got[i], ref[i], rtol=case.rtol, atol=1e-12)
    return got


def _first_call_args(case, args):
    wall, rows, prev, cur = args
    return (wall, 1, prev, cur)


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_matches_numpy(name):
    run(CASES[name], 9)


@pytest.mark.parametrize("name", ["scan_blelloch", "matmul_tiled"])
def test_kernel_matches_numpy_on_interp(name):
    run(CASES[name], 5, backend="interp")


def test_at_least_fifteen_kernels():
    assert len(CASES) >= 15
