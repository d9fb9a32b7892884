"""Which BLAS/LAPACK the native backend binds (blas_library.py): NumPy's own where its naming
and integer width are recognised, SciPy's otherwise, with results equal to NumPy's either
way."""
import glob
import os

import numpy as np
import pytest

import solvent
from differential import in_fresh_process
from solvent.backends.native import blas_library as bl


def fake(names):
    return lambda name: 0x1000 + len(name) if name in names else None


ALL64 = {f"scipy_{r}_64_" for r in bl.ROUTINES} | {"scipy_openblas_get_config64_"}
ALL32 = {f"scipy_{r}_" for r in bl.ROUTINES} | {"scipy_openblas_get_config"}


def test_probe_takes_a_naming_only_with_every_routine_and_a_matching_integer_width():
    wide = lambda _: "OpenBLAS 0.3.31 USE64BITINT DYNAMIC_ARCH"   # noqa: E731
    narrow = lambda _: "OpenBLAS 0.3.31 DYNAMIC_ARCH"             # noqa: E731
    got = bl.probe(fake(ALL64), "lib64.so", wide)
    assert (got.int_bits, got.config, sorted(got.addresses)) == \
        (64, "OpenBLAS 0.3.31", sorted(bl.ROUTINES))
    assert bl.probe(fake(ALL32), "lib32.so", narrow).int_bits == 32
    # the config contradicts the naming's width, a routine is missing, another naming
    assert bl.probe(fake(ALL64), "lib64.so", narrow) is None
    assert bl.probe(fake(ALL32), "lib32.so", wide) is None
    assert bl.probe(fake(ALL64 - {"scipy_dsyevd_64_"}), "lib64.so", wide) is None
    assert bl.probe(fake({f"{r}_" for r in bl.ROUTINES}), "plain.so", narrow) is None


def test_an_unknown_choice_is_an_error(monkeypatch):
    monkeypatch.setattr(bl, "_LIB", [])
    monkeypatch.setenv(bl.ENV, "mkl")
    with pytest.raises(ValueError, match="SOLVENT_BLAS"):
        bl.library()


def gram(X):
    return X.T @ X


def bundled():
    """NumPy's bundled scipy-openblas (wheel installs), or None."""
    cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    if cfg.get("name") != "scipy-openblas":
        return None
    root = os.path.dirname(np.__file__)
    libs = glob.glob(os.path.join(root + ".libs", "*openblas*")) + \
        glob.glob(os.path.join(root, ".dylibs", "*openblas*"))
    return cfg, libs


@pytest.mark.skipif(bundled() is None or os.environ.get(bl.ENV) == "scipy",
                    reason="NumPy without its bundled scipy-openblas")
def test_products_call_the_library_numpy_calls_and_explain_says_so():
    cfg, libs = bundled()
    lib = bl.library()
    assert lib.source == "numpy"
    assert lib.int_bits == (64 if "USE64BITINT" in cfg["openblas configuration"] else 32)
    if libs:   # the very file NumPy's wheel ships
        assert os.path.realpath(lib.path) in {os.path.realpath(p) for p in libs}
    X = np.random.default_rng(0).standard_normal((40, 30))
    f = solvent.jit(gram, backend="native")
    np.testing.assert_allclose(f(X), gram(X), rtol=1e-12, atol=1e-12)
    lines = f.compile((X,)).executable.explain_lines
    assert any("NumPy's BLAS" in s and f"{lib.int_bits}-bit" in s for s in lines), lines


def products(A, B, v, C):
    return A @ B, A.T @ v, A.T @ A, C @ C.conj().T, C[:, 0] @ C


def solvers(S, b):
    return np.linalg.solve(S, b), np.linalg.det(S), np.linalg.eigh(S)[0]


FALLBACK = """
import numpy as np, solvent
from solvent.backends.native import blas_library as bl
from tests.backends.native.test_blas_library import products, solvers
assert bl.library().source == "scipy" and bl.library().int_bits == 32
rng = np.random.default_rng(1)
A, B, v = rng.random((30, 20)), rng.random((20, 25)), rng.random(30)
C = (rng.random((12, 12)) + 1j * rng.random((12, 12)))
S = A.T @ A + np.eye(20)
for fn, args in ((products, (A, B, v, C)), (solvers, (S, rng.random(20)))):
    f = solvent.jit(fn, backend="native")
    for got, want in zip(f(*args), fn(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    lines = f.compile(args).executable.explain_lines
    assert any("SciPy's BLAS" in s for s in lines), lines
print("ok")
"""


def test_the_scipy_fallback_gives_numpys_results():
    """SOLVENT_BLAS=scipy (what a NumPy without a recognised BLAS gets): gemm, gemv, syrk,
    complex products, getrf/getrs, syevd through SciPy's Cython BLAS/LAPACK (32-bit ints)."""
    assert in_fresh_process(FALLBACK, SOLVENT_BLAS="scipy").strip() == "ok"
