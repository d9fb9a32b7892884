"""Differential checking: the same Python source run by plain NumPy is the oracle."""
from __future__ import annotations

import copy

import numpy as np

import solvent


def copy_args(args):
    return tuple(copy.deepcopy(a) for a in args)


def assert_same(expected, actual, path="result"):
    """Same structure, same Python/NumPy type, same dtype and shape, equal values."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), \
            f"{path}: expected a tuple of {len(expected)}, got {actual!r}"
        for k, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, f"{path}[{k}]")
        return
    if expected is None:
        assert actual is None, f"{path}: expected None, got {actual!r}"
        return
    assert type(actual) is type(expected), \
        f"{path}: expected {type(expected).__name__}, got {type(actual).__name__}"
    e, a = np.asarray(expected), np.asarray(actual)
    assert a.dtype == e.dtype, f"{path}: dtype {a.dtype}, NumPy gives {e.dtype}"
    assert a.shape == e.shape, f"{path}: shape {a.shape}, NumPy gives {e.shape}"
    if e.dtype.kind in "fc":
        rtol = 1e-4 if e.dtype in (np.float32, np.complex64, np.float16) else 1e-6
        np.testing.assert_allclose(a, e, rtol=rtol, atol=rtol * 1e-3, equal_nan=True,
                                   err_msg=path)
    else:
        np.testing.assert_array_equal(a, e, err_msg=path)


def check(fn, *args, backend="xla"):
    """Run ``fn`` in NumPy and through solvent on copies of ``args``; compare results and
    the final contents of every argument array. Returns solvent's result."""
    ref_args, sol_args = copy_args(args), copy_args(args)
    expected = fn(*ref_args)
    actual = solvent.jit(fn, backend=backend)(*sol_args)
    assert_same(expected, actual)
    for k, (e, a) in enumerate(zip(ref_args, sol_args)):
        if isinstance(e, np.ndarray):
            assert_same(e, a, f"argument {k} after the call")
    return actual
