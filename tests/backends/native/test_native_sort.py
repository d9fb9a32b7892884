"""np.sort / np.argsort on the native backend: keys sorted by the LSD radix sort of
``radix_sort.py`` (insertion sort below ``SMALL``), complex values by qsort. Every real
dtype, lengths around SMALL, NaN / signed zeros / infinities, ties (argsort's stable order),
2-D along either axis, Fortran and strided inputs; NumPy is the oracle (kind="stable", the
order solvent promises), and sort's values keep their bits."""
import numpy as np
import pytest

from differential import check, jitted
from solvent.backends.native.radix_sort import BIG, SMALL

DTYPES = ["float64", "float32", "int64", "int32", "int16", "int8", "uint8", "uint16",
          "uint64", "bool"]
LENGTHS = [0, SMALL + 1, 1000]                # every dtype (strided and reversed at 1000)
MORE_LENGTHS = [1, 2, SMALL - 1, SMALL, 70000]  # a few dtypes: each length is a compilation
MORE_DTYPES = ["float32", "int16", "uint8"]


def sort_both(x):
    return np.sort(x), np.argsort(x, kind="stable")


def sort_axes(x):
    return (np.sort(x), np.argsort(x, axis=-1, kind="stable"), np.sort(x, axis=0),
            np.argsort(x, axis=0, kind="stable"))


def sample(dtype, shape, seed=0, ties=False):
    r = np.random.default_rng(seed)
    if dtype == "bool":
        return r.integers(0, 2, shape).astype(bool)
    if dtype.startswith("float"):
        x = r.standard_normal(shape).astype(dtype)
        if ties:
            x = np.round(x * 3).astype(dtype)
        return x
    info = np.iinfo(dtype)
    lo, hi = (-5, 5) if ties else (info.min, info.max)
    lo, hi = max(lo, info.min), min(hi, info.max)
    return r.integers(lo, hi, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype,n", [(d, n) for d in DTYPES for n in LENGTHS] +
                         [(d, n) for d in MORE_DTYPES for n in MORE_LENGTHS])
def test_sort_and_argsort_match_numpy(dtype, n):
    x = sample(dtype, n, seed=n)
    check(sort_both, x, backend="native")
    if n > 2:
        check(sort_both, sample(dtype, n, seed=n, ties=True), backend="native")   # ties
    if n == 1000:   # one compilation per layout, so at one length
        check(sort_both, x[::3], backend="native")                           # strided
        check(sort_both, x[::-1], backend="native")                          # reversed


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", [7, SMALL + 9, 5000])
def test_nan_signed_zero_and_infinities(dtype, n):
    x = sample(dtype, n, seed=1)
    x[::7] = np.nan
    x[1::5] = 0.0
    x[2::11] = -0.0
    x[3::13] = np.inf
    x[4::17] = -np.inf
    x[5] = -np.nan                     # a NaN with its sign bit set
    check(sort_both, x, backend="native")
    got, order = jitted(sort_both, "native")(x)
    # argsort: NumPy's stable order exactly (-0.0 ties with 0.0, every NaN last by index)
    assert np.array_equal(order, np.argsort(x, kind="stable"))
    # sort: the same bits as NumPy's values (NaNs keep theirs, in their original order);
    # -0.0 may come before 0.0 where NumPy's stable sort keeps their input order
    exp = np.sort(x, kind="stable")
    ubits = f"u{x.itemsize}"
    assert np.array_equal(np.isnan(got), np.isnan(exp))
    assert np.array_equal(got[np.isnan(got)].view(ubits), x[np.isnan(x)].view(ubits))
    assert np.array_equal(np.sort(got.view(ubits)), np.sort(x.view(ubits)))
    zeros = got[got == 0]
    assert np.all(np.signbit(zeros[:np.sum(np.signbit(x) & (x == 0))]))


# rows longer than SMALL: uint8 (and every dtype in 1-D); float64 at a tall shape
@pytest.mark.parametrize("dtype,shape", [("float64", (1, 1)), ("float64", (40, 9)),
                                         ("uint8", (3, SMALL + 5))])
def test_2d_along_either_axis_c_fortran_strided(dtype, shape):   # every dtype: the 1-D tests
    x = sample(dtype, shape, seed=shape[1], ties=True)
    check(sort_axes, x, backend="native")
    check(sort_axes, np.asfortranarray(x), backend="native")
    check(sort_axes, x[:, ::2], backend="native")
    check(sort_axes, x.T, backend="native")


def test_auto_and_method_sort_match_numpy():
    x = sample("float64", (20, 50), seed=3)
    x[3, 4] = np.nan
    check(sort_both, x, backend=None)
    check(sort_axes, x, backend=None)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint16"])
@pytest.mark.parametrize("case", ["random", "ties", "narrow"])
def test_split_by_the_highest_varying_byte(dtype, case):
    """BIG keys or more: first split by the highest byte not shared by all keys, buckets of
    one key, buckets sorted by LSD and buckets split again; argsort stays stable."""
    n = BIG + BIG // 2 + 3
    r = np.random.default_rng(5)
    if case == "random":
        x = sample(dtype, n, seed=5)
    elif case == "ties":
        x = sample(dtype, n, seed=5, ties=True)
        if dtype.startswith("float"):
            x[::7] = np.nan
            x[::11] = -0.0
    else:   # keys alike in their high bytes: the split happens further down
        x = (r.integers(0, 1000, n) + 30000).astype(dtype)
        x[5] = 0                                # one key alone in its bucket
    check(sort_both, x, backend="native")
    check(sort_both, np.repeat(x[:1], n), backend="native")     # all keys equal


def rows_in_a_loop(x):
    out = np.empty_like(x)
    idx = np.empty(x.shape, dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = np.sort(x[i])
        idx[i] = np.argsort(x[i], kind="stable")
    return out, idx


def test_sorts_in_a_parallel_row_loop():
    """The row loop runs on the thread pool: each thread sorts in its own scratch buffers."""
    x = sample("float64", (400, 300), seed=7)
    x[::3, ::7] = np.nan
    check(rows_in_a_loop, x, backend="native")
