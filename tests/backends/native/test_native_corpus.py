"""Every corpus kernel the native backend accepts matches plain NumPy at its second test size
(tests/test_corpus.py checks the first);
the sequential scalar-loop kernels are among the accepted ones."""
import numpy as np
import pytest

import solvent
from solvent.backends.native import NativeBackend
from solvent.corpus import KERNELS

from differential import check

BY_NAME = {k.name: k for k in KERNELS}

# kernels whose point is a sequential scalar loop: the native backend exists for these
MUST_ACCEPT = ["seidel_2d", "floyd_warshall", "prefix_sum", "gcd_pairs", "find_first",
               "mandelbrot_scalar", "histogram", "int_hash", "jacobi_1d", "jacobi_2d",
               "heat_3d", "fdtd_2d", "laplace_converge", "soft_threshold", "go_fast",
               # run-time slice lengths, masks: XLA refuses these, native must take them
               "back_subst_slices", "cholesky_slices", "csr_spmv_slices",
               "forward_subst_slices", "lu_slices", "mask_select_reduce"]


def _ir(kernel, n):
    args = kernel.make_args(n, np.random.default_rng(0))
    return solvent.jit(kernel.func).compile(args).fn


def _accepted(kernel):
    return NativeBackend().accepts(_ir(kernel, kernel.sizes[0]))


@pytest.mark.parametrize("name", MUST_ACCEPT)
def test_scalar_loop_kernels_are_accepted(name):
    ok, reason = _accepted(BY_NAME[name])
    assert ok, reason


@pytest.mark.parametrize("name", [k.name for k in KERNELS])
def test_corpus_kernel_matches_numpy(name):
    kernel = BY_NAME[name]
    ok, reason = _accepted(kernel)
    if not ok:
        assert reason.startswith("native: ") and " at " in reason  # names the op and its line
        pytest.skip(reason)
    n = kernel.sizes[-1]   # test_corpus checks the first size (the suite's time budget)
    check(kernel.func, *kernel.make_args(n, np.random.default_rng(n)), backend="native")
