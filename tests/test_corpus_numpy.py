"""Sanity checks of the kernel corpus in plain NumPy (no solvent involved)."""
import numpy as np
import pytest

from solvent.corpus import CATEGORIES, KERNELS, get

NAMES = [k.name for k in KERNELS]


def _copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _flat(ret):
    if ret is None:
        return []
    if isinstance(ret, tuple):
        return list(ret)
    return [ret]


def _assert_same(a, b):
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray)
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    else:
        assert type(a) is type(b) and a == b


def test_kernel_names_unique_and_enough():
    assert len(NAMES) >= 28
    assert len(set(NAMES)) == len(NAMES)
    assert NAMES == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_module_metadata(name):
    k = get(name)
    assert k.name == name and k.module.__name__.endswith("." + name)
    assert k.category in CATEGORIES
    assert callable(k.func) and callable(k.make_args)
    assert len(k.sizes) == 2 and all(isinstance(n, int) for n in k.sizes)
    assert isinstance(k.bench_size, int)
    assert k.jax_port is None or isinstance(k.jax_port, str)
    assert isinstance(k.module.NUMBA_OK, bool)


@pytest.mark.parametrize("name", NAMES)
def test_make_args_deterministic(name):
    k = get(name)
    for n in k.sizes:
        a1 = k.make_args(n, np.random.default_rng(123))
        a2 = k.make_args(n, np.random.default_rng(123))
        assert isinstance(a1, tuple) and len(a1) == len(a2)
        for x, y in zip(a1, a2):
            _assert_same(x, y)


@pytest.mark.parametrize("name", NAMES)
def test_runs_finite_and_deterministic(name):
    k = get(name)
    for n in k.sizes:
        args = k.make_args(n, np.random.default_rng(0))
        runs = []
        for _ in range(2):
            a = _copy(args)
            with np.errstate(all="raise"):
                ret = _flat(k.func(*a))
            outs = ret + [x for x in a if isinstance(x, np.ndarray)]
            for v in outs:
                v = np.asarray(v)
                if v.dtype.kind in "fc":
                    assert np.all(np.isfinite(v)), f"{name}: non-finite output at n={n}"
            runs.append(outs)
        assert len(runs[0]) == len(runs[1])
        for x, y in zip(*runs):
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.shape == y.shape
            assert np.array_equal(x, y, equal_nan=True)
