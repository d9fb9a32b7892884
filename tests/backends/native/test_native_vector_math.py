"""Vectorized math on the native backend: loops that call exp, log, sin, tanh, pow... are
vectorized and call glibc's libmvec (engine.use_vector_math). Differential against NumPy on
ordinary and special values (NaN, infinities, signed zeros, overflow, domain errors), for
float32/float64, lengths that are not a multiple of the vector width, strided and
Fortran-ordered arguments; and the same results with the library turned off."""
import re

import numpy as np
import pytest

import solvent
from differential import check, in_fresh_process
from solvent.backends.native.engine import vector_math

rng = np.random.default_rng(17)

UNARY = {
    "exp": (np.exp, -700, 700), "exp2": (np.exp2, -1000, 1000), "log": (np.log, 0, 1e300),
    "log2": (np.log2, 0, 1e10), "log10": (np.log10, 0, 1e10), "sin": (np.sin, -1e3, 1e3),
    "cos": (np.cos, -1e3, 1e3), "tan": (np.tan, -10, 10), "arcsin": (np.arcsin, -1, 1),
    "arccos": (np.arccos, -1, 1), "arctan": (np.arctan, -1e6, 1e6),
    "sinh": (np.sinh, -700, 700), "cosh": (np.cosh, -700, 700), "tanh": (np.tanh, -30, 30),
}
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 1e-310, 800.0, -800.0]


def _values(lo, hi, n, dtype):
    x = rng.uniform(lo, hi, n)
    x[:len(SPECIAL)] = SPECIAL[:n]
    return x.astype(dtype)


def _unary(ufunc):
    def kernel(x):
        return ufunc(x) * 2.0 + 1.0
    kernel.__name__ = f"vec_{ufunc.__name__}"
    return kernel


KERNELS = {name: _unary(f) for name, (f, _, _) in UNARY.items()}


def powers(x, y):
    return x ** y, np.arctan2(x, y), np.exp(x) * np.tanh(y) - np.log(np.abs(x) + 1.0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions_match_numpy(name, dtype):
    _, lo, hi = UNARY[name]
    with np.errstate(all="ignore"):
        for n in (0, 1, 13, 1001):
            check(KERNELS[name], _values(lo, hi, n, dtype), backend="native")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_functions_and_chains_match_numpy(dtype):
    with np.errstate(all="ignore"):
        for n in (1, 17, 999):
            x = _values(-50, 50, n, dtype)
            y = rng.uniform(-3, 3, n).astype(dtype)
            check(powers, x, y, backend="native")
        big = rng.uniform(0.5, 2, (40, 30)).astype(dtype)
        check(powers, big[::2, ::3], big[1::2, 1::3], backend="native")
        check(powers, np.asfortranarray(big), big + 1, backend="native")


@pytest.mark.skipif(vector_math() is None, reason="no vector math library on this host")
def test_the_loops_call_the_vector_library_and_explain_says_so():
    x = np.ones(1000)
    exe = solvent.jit(powers, backend="native").compile((x, x)).executable
    code = exe.comp.optimized_ir
    assert re.search(r"call [^@]*@\"?_ZGV\w+_pow\b", code)
    assert re.search(r"call [^@]*@\"?_ZGV\w+_exp\b", code)
    assert any("libmvec" in line and "_exp" in line for line in exe.explain_lines)


def test_turned_off_gives_the_same_results_with_scalar_calls():
    code = (
        "import numpy as np, re, solvent\n"
        "from tests.backends.native.test_native_vector_math import powers\n"
        "x = np.linspace(0.5, 3, 1001); y = np.linspace(-2, 2, 1001)\n"
        "f = solvent.jit(powers, backend='native')\n"
        "exe = f.compile((x, y)).executable\n"
        "assert not re.search('_ZGV', exe.comp.optimized_ir)\n"
        "got = f(x, y)\n"
        "assert all(np.allclose(g, e, rtol=1e-12) for g, e in zip(got, powers(x, y)))\n"
        "print('ok')\n")
    assert in_fresh_process(code, SOLVENT_VECTOR_MATH="0").strip() == "ok"


def binned_exp(x, counts):
    for i in range(x.shape[0]):
        b = int(np.floor(x[i] * 4.0))
        if 0 <= b < counts.shape[0]:
            counts[b] += np.exp(-x[i])
    return counts


def test_a_loop_that_cannot_vectorize_compiles_silently(capfd):
    """A loop with an exp and a data-dependent store cannot be vectorized: LLVM keeps it
    scalar without printing 'loop not vectorized' warnings on the user's terminal (the
    loops are hinted with a width, not forced), and floor/ceil/trunc are not math calls."""
    x = rng.uniform(0, 2, 501)
    check(binned_exp, x, np.zeros(8), backend="native")
    assert "not vectorized" not in capfd.readouterr().err


def slogdet_of(a):
    return np.linalg.slogdet(a)


def test_a_hinted_loop_llvm_keeps_scalar_prints_no_remark(capfd):
    """slogdet's loop over the diagonal calls log (so it is hinted with a width) and flips a
    sign by a select, which LLVM cannot vectorize: LLVM's remark about it never reaches the
    user's terminal (engine.optimize drops it)."""
    a = rng.standard_normal((40, 40))
    check(slogdet_of, a, backend="native")
    assert "not vectorized" not in capfd.readouterr().err


def test_other_output_on_stderr_during_optimization_passes_through(capfd):
    """Only the vectorizer's remarks are dropped: anything else written to fd 2 while LLVM
    optimizes still reaches stderr, and fd 2 is the caller's again afterwards."""
    import os
    from solvent.backends.native.engine import _vectorizer_remarks_dropped
    with _vectorizer_remarks_dropped():
        os.write(2, b"remark: <unknown>:0:0: loop not vectorized: x\nkept line\n")
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "kept line\nafter\n"
