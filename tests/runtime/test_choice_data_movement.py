"""A loop-free program of data movement alone (transpose copy, concatenation, transposed
reshape) goes native under automatic choice (``choice.ArrayWork.only_moves``),
and gives NumPy's results there: float32/float64/int64, sizes 0 and 1, strided operands;
data movement mixed with element work still goes by the XLA_SHARE rule."""
import numpy as np
import pytest

import solvent
from differential import check
from solvent.backends.choice import array_work, choose


def transpose_copy(m):
    return m.T.copy()


def transposed_flat(m):
    return m.T.reshape(-1)


def joined(x, y):
    return np.concatenate([x, y])


def taken(x, idx):
    return x[idx]


def taken_then_work(x, idx):
    return x[idx] * 2.0 + 1.0


def taken_rows(m, idx):
    return m[idx]


def moves_then_work(x, y):
    return np.concatenate([x, y]) * 2.0 + 1.0


def _ir(fn, *args):
    return solvent.jit(fn).compile(args).fn


def test_data_movement_alone_goes_native_and_explain_says_why():
    m = np.ones((300, 400))
    for fn, args in ((transpose_copy, (m,)), (transposed_flat, (m,)),
                     (joined, (np.ones(5000), np.ones(3000))),
                     (taken, (np.ones(5000), np.arange(3000)))):
        f = _ir(fn, *args)
        a = array_work(f)
        assert a.only_moves and a.moves > 0 and a.plain == a.checks, fn.__name__
        name, why = choose(f, {"xla": "ok", "native": "ok"}, {})
        assert name == "native" and "data movement only" in why, fn.__name__
        assert "data movement only" in solvent.explain(fn, *args)


def test_movement_with_element_work_is_not_only_moves():
    a = array_work(_ir(moves_then_work, np.ones(1000), np.ones(1000)))
    assert a.moves == 2000 and a.plain >= 4000 and not a.only_moves
    # x[idx]'s index checks (compares, reductions) decide only the error result: they are
    # not element work XLA could fuse the move into, so x[idx] alone is data movement
    a = array_work(_ir(taken, np.ones(1000), np.arange(1000)))
    assert a.moves == 1000 and a.plain == a.checks > 0 and a.only_moves
    # ... but a gather whose result is computed with is not
    a = array_work(_ir(taken_then_work, np.ones(1000), np.arange(1000)))
    assert a.moves == 1000 and a.plain > a.checks and not a.only_moves


DTYPES = ["float32", "float64", "int64"]


def _data(shape, dtype, seed=0):
    r = np.random.default_rng(seed)
    return (r.standard_normal(shape) * 100).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (1, 7), (37, 53)])
def test_transposes_match_numpy_under_auto(dtype, shape):
    m = _data(shape, dtype)
    check(transpose_copy, m, backend=None)
    check(transposed_flat, m, backend=None)
    if shape[0] > 2:
        check(transpose_copy, m[::2, ::-1], backend=None)     # strided operand
        check(transposed_flat, np.asfortranarray(m), backend=None)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 1001])
def test_concatenate_and_gather_match_numpy_under_auto(dtype, n):
    x, y = _data(n, dtype, 1), _data(n + 3, dtype, 2)
    check(joined, x, y, backend=None)
    check(joined, y[::2], y[::-3], backend=None)
    if n:
        idx = np.random.default_rng(n).integers(-n, n, 2 * n)
        check(taken, x, idx, backend=None)
        ys = y[::2]
        check(taken, ys, idx[::2] % ys.shape[0] - ys.shape[0] // 2, backend=None)
    else:
        check(taken, y, np.zeros(0, np.int64), backend=None)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gathers_under_auto_raise_as_numpy_and_take_rows(dtype):
    x = _data(50, dtype, 3)
    m = np.asfortranarray(_data((40, 7), dtype, 4))
    idx = np.random.default_rng(5).integers(-40, 40, 30)
    check(taken_rows, m, idx, backend=None)          # rows of a Fortran-ordered matrix
    check(taken_rows, m[::2, 1:], idx // 2, backend=None)   # of a strided one
    check(taken, x[:1], np.zeros(5, np.int64), backend=None)   # one element, repeated
    for bad in (50, -51):
        with pytest.raises(IndexError) as exp:
            x[np.array([0, bad, 1])]
        with pytest.raises(IndexError) as got:
            solvent.jit(taken)(x, np.array([0, bad, 1]))
        assert str(bad) in str(got.value) and str(bad) in str(exp.value)
