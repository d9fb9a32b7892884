"""Gradients of corpus kernels: a random scalar loss <w, outputs> (outputs: the returned
values and the final values of the mutated arguments) differentiated by ``solvent.vjp``
against central finite differences of the plain NumPy kernel, and the dot-product test, in
float64 over several seeds and on both backends."""
from __future__ import annotations

import copy
import importlib
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fd import directional, fd_grad, rel_close  # noqa: E402
import solvent  # noqa: E402

# kernel: (args from make_args(n), with overrides by position)
KERNELS = {
    "softmax": (6, {}),
    "layernorm": (6, {}),
    "mlp_forward": (6, {}),
    "gemm": (6, {}),
    "jacobi_1d": (10, {0: 6}),
    "heat_2d_slices": (7, {0: 5}),
    "nbody": (6, {6: 4}),
    "logreg_gd": (4, {4: 5}),
    "attention": (5, {}),
    "laplace_converge": (6, {1: 1e-2, 2: 50}),  # a while loop with a data-dependent trip count
}
# more differentiable kernels, one seed each (xla)
MORE = {name: (n, {}) for name, n in (
    ("atax", 5), ("bicg", 5), ("mvt", 5), ("gemver", 5), ("two_mm", 4), ("three_mm", 4),
    ("syrk", 5), ("trmm", 5), ("heat_3d", 5), ("seidel_2d", 6), ("fdtd_2d", 5),
    ("conv1d", 8), ("arc_distance", 3), ("axis_stats", 5), ("row_col_norms", 5),
    ("ufunc_mix", 5), ("go_fast", 5), ("polar_helper", 4), ("spmv_ell", 8), ("cholesky", 5),
    ("prefix_sum", 4), ("soft_threshold", 4), ("jacobi_2d", 6), ("floyd_warshall", 5),
    ("fft_lowpass", 16), ("lstsq_normal", 3), ("nearest_correlation", 4),
    ("spectral_smooth", 16))}
MORE["jacobi_2d"] = (6, {0: 4})
MORE["heat_3d"] = (5, {0: 3})
MORE["nearest_correlation"] = (4, {1: 3})  # eigh inside the loop


def _args(name, seed):
    mod = importlib.import_module(f"solvent.corpus.{name}")
    n, over = KERNELS[name] if name in KERNELS else MORE[name]
    args = list(mod.make_args(n, np.random.default_rng(seed)))
    for k, v in over.items():
        args[k] = v
    if name == "attention":  # the head size 32 makes the FD loop slow: cut it
        args = [a[:, :, :6].copy() for a in args]
    return mod.kernel, tuple(args)


def _numpy_outputs(kernel, args, mutated):
    a = copy.deepcopy(list(args))
    ret = kernel(*a)
    return ret, [a[k] for k in mutated]


def _leaves(x):
    if isinstance(x, tuple):
        return [y for z in x for y in _leaves(z)]
    return [x]


def _float_leaf(x):
    return x is not None and np.asarray(x).dtype.kind == "f"


@pytest.mark.parametrize("backend", ["xla", "interp"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", list(KERNELS))
def test_corpus_gradient(name, seed, backend):
    if backend == "interp" and seed:
        pytest.skip("interp: one seed")
    check_kernel(name, seed, backend)


@pytest.mark.parametrize("name", list(MORE))
def test_more_corpus_gradients(name):
    check_kernel(name, 0, "xla")


def check_kernel(name, seed, backend):
    kernel, args = _args(name, seed)
    ref_ret, _ = _numpy_outputs(kernel, args, [])
    after = copy.deepcopy(list(args))
    kernel(*after)
    mutated = [k for k, (a, b) in enumerate(zip(args, after))
               if isinstance(a, np.ndarray) and not np.array_equal(a, b)]
    outputs, vjp_fn = solvent.vjp(kernel, *args, backend=backend)
    rng = np.random.default_rng(100 + seed)
    ret_ws = [rng.standard_normal(np.shape(x)) if _float_leaf(x) else None
              for x in _leaves(ref_ret)]
    mut_ws = [rng.standard_normal(args[k].shape) for k in mutated]

    def rebuild(x, ws):
        if isinstance(x, tuple):
            out = []
            for z in x:
                out.append(rebuild(z, ws))
            return tuple(out)
        return ws.pop(0)

    ct_ret = rebuild(ref_ret, list(ret_ws))
    ct = (ct_ret, *mut_ws) if mutated else ct_ret
    grads = vjp_fn(ct)
    wrt = [k for k, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
           or isinstance(a, float)]
    assert len(grads) == len(wrt)

    def loss(*a):
        ret, muts = _numpy_outputs(kernel, a, mutated)
        total = 0.0
        for x, w in zip(_leaves(ret), ret_ws):
            if w is not None:
                total += float(np.sum(np.asarray(x) * w))
        for x, w in zip(muts, mut_ws):
            total += float(np.sum(x * w))
        return total

    for k, g in zip(wrt, grads):
        shape = np.shape(args[k])
        size = int(np.prod(shape))
        picks = rng.choice(size, min(size, 12), replace=False)
        positions = [np.unravel_index(p, shape) for p in picks]
        exp = fd_grad(loss, args, k, positions=positions)
        got = np.array([np.asarray(g)[p] for p in positions])
        want = np.array([exp[p] for p in positions])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: gradient of argument {k}")
    vs = [rng.standard_normal(np.shape(args[k])) for k in wrt]
    jv_w = directional(loss, args, wrt, vs)
    v_jtw = sum(float(np.sum(v * np.asarray(g))) for v, g in zip(vs, grads))
    assert rel_close(jv_w, v_jtw, 1e-6, floor=1e-9), (jv_w, v_jtw)
