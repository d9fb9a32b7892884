"""Differential checking: run a kernel with plain NumPy and with solvent, compare everything.

``check(fn, *args, backend=...)`` runs ``fn`` on deep copies of ``args`` with NumPy and with
``solvent.jit(fn, backend=backend)``, then compares

- the return values: same structure (tuple / None), same type class (Python scalar of the
  same type, NumPy scalar of the same type, ndarray), same dtype, same shape, values equal
  (exact for bool/int, allclose otherwise), and ``return A`` of an argument is the caller's
  very object;
- the in-place effect on every argument array (dtype, shape and values).
"""
from __future__ import annotations

import contextlib
import copy

import numpy as np

import solvent

_JITS: dict = {}
# pass options for every compiled function (a test module that studies loops sets
# {"raise_loops": {"enabled": False}} so that its loops stay loops); None: the defaults
PASSES = None


@contextlib.contextmanager
def passes_for_check(passes):
    """Inside the block, ``check`` compiles with pass options ``passes`` (a test module's
    autouse fixture: ``with passes_for_check(...): yield``); compiled functions are not
    shared with the code outside."""
    global PASSES
    old, PASSES = PASSES, passes
    _JITS.clear()
    try:
        yield
    finally:
        PASSES = old
        _JITS.clear()


def function_from_source(src: str, name: str, tag: str, env: dict | None = None):
    """The function ``name`` defined by ``src`` (generated test code), its source kept in
    linecache under ``<tag>`` so that solvent (inspect) can read it as a file's."""
    import linecache
    filename = f"<{tag}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = dict(env or {})
    exec(compile(src, filename, "exec"), ns)
    return ns[name]


def jitted(fn, backend):
    key = (fn, backend)
    if key not in _JITS:
        _JITS[key] = solvent.jit(fn, backend=backend, passes=PASSES)
    return _JITS[key]


def _tols(dtype):
    if dtype.kind == "f" and dtype.itemsize == 2:  # before float32's rule, which it also meets
        return 1e-2, 1e-3
    if dtype.kind in "fc" and dtype.itemsize <= (4 if dtype.kind == "f" else 8):
        return 2e-5, 1e-5  # float32 / complex64: a few ulp of XLA vs NumPy differences
    return 1e-6, 1e-9


def assert_same_value(got, exp, what):
    if isinstance(exp, np.ndarray):
        assert isinstance(got, np.ndarray), \
            f"{what}: NumPy gives ndarray {exp.dtype}{exp.shape}, solvent gives {type(got).__name__} {got!r}"
        assert got.dtype == exp.dtype, f"{what}: dtype {got.dtype} != NumPy's {exp.dtype}"
        assert got.shape == exp.shape, f"{what}: shape {got.shape} != NumPy's {exp.shape}"
        _assert_values(got, exp, what)
    elif isinstance(exp, np.generic):
        assert type(got) is type(exp), \
            f"{what}: NumPy gives {type(exp).__name__} {exp!r}, solvent gives {type(got).__name__} {got!r}"
        _assert_values(np.asarray(got), np.asarray(exp), what)
    elif isinstance(exp, (bool, int, float, complex)):
        assert type(got) is type(exp), \
            f"{what}: NumPy gives Python {type(exp).__name__} {exp!r}, solvent gives {type(got).__name__} {got!r}"
        _assert_values(np.asarray(got), np.asarray(exp), what)
    elif isinstance(exp, (tuple, list)):
        assert type(got) is type(exp) and len(got) == len(exp), \
            f"{what}: NumPy gives a {type(exp).__name__} of {len(exp)}, solvent gives {got!r}"
        for k, (g, e) in enumerate(zip(got, exp)):
            assert_same_value(g, e, f"{what}[{k}]")
    elif exp is None:
        assert got is None, f"{what}: NumPy gives None, solvent gives {got!r}"
    else:
        assert type(got) is type(exp) and got == exp, f"{what}: {got!r} != NumPy's {exp!r}"


def _assert_values(got, exp, what):
    if exp.dtype.kind in "biuSU" or exp.size == 0:
        assert np.array_equal(got, exp), f"{what}: values differ\n solvent: {got!r}\n numpy:   {exp!r}"
    else:
        rtol, atol = _tols(exp.dtype)
        ok = np.allclose(got, exp, rtol=rtol, atol=atol, equal_nan=True)
        assert ok, f"{what}: values differ\n solvent: {got!r}\n numpy:   {exp!r}"


def _identity_map(ret, args):
    """Positions of argument objects returned (by identity) in a possibly nested return."""
    if isinstance(ret, tuple):
        return tuple(_identity_map(r, args) for r in ret)
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray) and ret is a:
            return ("arg", k)
    return None


def copy_keep_layout(a):
    """A copy of ``a`` with the same strides (Fortran order, steps, negative steps), so that
    both sides of a comparison see the caller's memory layout; other values deep-copied."""
    if not isinstance(a, np.ndarray) or type(a) is not np.ndarray:
        return copy.deepcopy(a)
    if a.flags.c_contiguous or any(s == 0 for s, d in zip(a.strides, a.shape) if d > 1) \
            or a.size == 0:
        return a.copy(order="K")
    if a.flags.f_contiguous:
        return a.copy(order="F")   # np.asfortranarray would return ``a`` itself, not a copy
    lo = sum(min(0, (d - 1) * s) for d, s in zip(a.shape, a.strides))
    hi = sum(max(0, (d - 1) * s) for d, s in zip(a.shape, a.strides))
    flat = np.zeros((hi - lo) // a.itemsize + 1, a.dtype)
    out = np.lib.stride_tricks.as_strided(flat[-lo // a.itemsize:], a.shape, a.strides,
                                          writeable=True)
    out[...] = a
    assert out.strides == a.strides and np.array_equal(out, a, equal_nan=a.dtype.kind in "fc")
    return out


def check(fn, *args, backend, shapes_only=False):
    """Compare ``fn(*args)`` under NumPy and solvent. Returns solvent's result."""
    np_args = tuple(copy_keep_layout(a) for a in args)
    sv_args = tuple(copy_keep_layout(a) for a in args)
    with np.errstate(all="ignore"):
        exp = fn(*np_args)
    got = jitted(fn, backend)(*sv_args)
    name = f"{fn.__name__}[{backend}]"
    if shapes_only:
        assert type(got) is type(exp)
        assert got.dtype == exp.dtype and got.shape == exp.shape, \
            f"{name}: {got.dtype}{got.shape} != NumPy's {exp.dtype}{exp.shape}"
    else:
        assert_same_value(got, exp, f"{name} result")
    ie, ig = _identity_map(exp, np_args), _identity_map(got, sv_args)
    assert ie == ig, (f"{name}: returned-argument identity differs: NumPy returns "
                      f"{ie} (('arg', k) = the caller's argument k), solvent {ig}")
    for k, (a0, ga, ea) in enumerate(zip(args, sv_args, np_args)):
        if isinstance(ea, np.ndarray):
            assert isinstance(ga, np.ndarray)
            assert_same_value(ga, ea, f"{name} argument {k} after the call")
    return got


def case(fn, *args, id=None, **kw):
    """A pytest.param for a (kernel, args) differential case, named after the kernel."""
    import pytest
    return pytest.param(fn, args, kw, id=id or fn.__name__)


def run_cases(cases):
    """Decorator factory: a test parametrized over ``cases`` (see ``case``), per backend."""
    import pytest

    def test(fn, args, kw, backend):
        check(fn, *args, backend=backend, **kw)
    return pytest.mark.parametrize("fn,args,kw", cases)(test)


def assert_same_result(got, want, rtol=1e-6, scalar_types=True):
    """``got`` has ``want``'s structure (a list stays a list, a tuple a tuple), Python
    scalars' types (with ``scalar_types``), arrays' dtypes and shapes, and its values."""
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert_same_result(g, w, rtol, scalar_types)
        return
    if scalar_types and isinstance(want, (int, float, bool)):
        assert type(got) is type(want), (got, want)
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.dtype, g.shape, w.dtype, w.shape)
    np.testing.assert_allclose(g, w, rtol=rtol)


def in_fresh_process(code: str, **env) -> str:
    """Run ``code`` in a new Python process with the repository and ``tests`` on its path
    and ``env`` added to the environment (a setting read once per process, as
    SOLVENT_VECTOR_MATH or SOLVENT_BLAS); return its stdout, or fail with its stderr."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, **env,
               PYTHONPATH=os.pathsep.join([root, os.path.join(root, "tests")]))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout
