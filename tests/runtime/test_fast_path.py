"""The cached-call fast path (runtime/fast_path.py): one function called by a stranger with
arguments whose types, shapes, order and strides change from call to call gives NumPy's
answer on every call, and never a version compiled for other arguments."""
import threading

import numpy as np
import pytest

import solvent
from differential import check, jitted

BACKENDS = ["native", "xla", None]


def first_plus_one(x):
    return x[0] + 1.0


def doubled_plus_one(x):
    return x * 2 + 1


def total(x):
    return x.sum()


def scaled(s, x):          # a scalar before the array
    return s * x


def scaled_first(x, s):
    return x[0] * s


def _layouts():
    """The same values as a stranger might pass them, one after another."""
    c = np.arange(12.0).reshape(3, 4)
    return [
        ("C", c),
        ("Fortran", np.asfortranarray(c)),
        ("strided", np.arange(24.0).reshape(3, 8)[:, ::2]),
        ("reversed", c[::-1]),
        ("float32", c.astype(np.float32)),
        ("int8", np.arange(12, dtype=np.int8).reshape(3, 4)),
        ("complex64", (c + 1j).astype(np.complex64)),
        ("0-length", np.zeros((0, 4))),
        ("0-d", np.array(3.0)),
        ("C again", c + 1),
    ]


def _same_as_numpy(fn, args, backend):
    """``check``, or the same exception type as NumPy where NumPy raises."""
    try:
        fn(*args)
    except Exception as e:   # NumPy refuses it (x[0] of a 0-length or 0-d array)
        with pytest.raises(type(e)):
            jitted(fn, backend)(*args)
        return
    try:
        check(fn, *args, backend=backend)
    except solvent.UnsupportedError as e:   # a forced backend that cannot take it says so
        assert backend is not None and "not supported" in str(e)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [first_plus_one, doubled_plus_one, total])
def test_changing_layouts_and_dtypes_between_calls(fn, backend):
    for _ in range(2):   # twice round: every layout's second call takes the fast path
        for name, x in _layouts():
            if name == "0-d" and fn is not doubled_plus_one:
                continue
            _same_as_numpy(fn, (x,), backend)
            _same_as_numpy(fn, (x,), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_changing_scalar_types_between_calls(backend):
    x = np.arange(5.0)
    scalars = [2.0, 3, True, np.float32(1.5), np.int8(-3), np.float64(0.5), 2 + 1j,
               np.complex64(1 - 2j), np.uint8(200), 7]
    for _ in range(2):
        for s in scalars:
            for xs in (x, x.astype(np.float32), x[::2], x.astype(np.int8)):
                check(scaled, s, xs, backend=backend)
                check(scaled_first, xs, s, backend=backend)


@pytest.mark.parametrize("backend", ["native", "xla"])
def test_a_python_int_too_large_for_int64_is_refused_on_the_fast_path(backend):
    f = solvent.jit(scaled_first, backend=backend)
    x = np.arange(3, dtype=np.int64)
    assert f(x, 5) == scaled_first(x, 5)
    assert f(x, 6) == scaled_first(x, 6)   # the fast path
    with pytest.raises(OverflowError):
        f(x, 2 ** 70)
    assert f(x, 7) == scaled_first(x, 7)


def test_an_array_reshaped_or_retyped_in_place_between_calls():
    f = solvent.jit(total, backend="native")
    x = np.arange(8.0)
    assert f(x) == x.sum() and f(x) == x.sum()
    x.shape = (2, 4)
    assert f(x) == x.sum() and f(x) == x.sum()
    x.dtype = np.int64   # the same bytes as int64
    assert f(x) == x.sum() and f(x) == x.sum()


def test_array_results_of_successive_calls_are_separate_arrays():
    f = solvent.jit(doubled_plus_one, backend="native")
    x = np.arange(4.0)
    a, b = f(x), f(x)
    assert a is not b and not np.shares_memory(a, b) and not np.shares_memory(a, x)
    a[:] = -1
    assert np.array_equal(b, x * 2 + 1)
    s, t = f(np.array(1.0)), f(np.array(2.0))
    assert (s, t) == (3.0, 5.0)


SHIFT = 1.0


def shifted(x):
    return x + SHIFT


def test_a_changed_global_recompiles_on_the_fast_path():
    global SHIFT
    f = solvent.jit(shifted, backend="native")
    x = np.arange(3.0)
    assert np.array_equal(f(x), x + 1) and np.array_equal(f(x), x + 1)
    SHIFT = 5.0
    try:
        assert np.array_equal(f(x), x + 5) and np.array_equal(f(x), x + 5)
    finally:
        SHIFT = 1.0
    assert np.array_equal(f(x), x + 1)


def put_one(a, i):
    a[i] = 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failing_call_on_the_fast_path_leaves_the_array_alone(backend):
    f = solvent.jit(put_one, backend=backend)
    a = np.zeros(4)
    f(a, 1)
    f(a, 2)            # the fast path (a written argument: the full run)
    before = a.copy()
    with pytest.raises(IndexError):
        f(a, 9)
    assert np.array_equal(a, before)
    f(a, 3)
    assert np.array_equal(a, [0, 1, 1, 1])


def test_lru_order_holds_with_the_fast_path():
    f = solvent.jit(total, backend="native", max_versions=2)
    a, b, c = np.ones(2), np.ones(3), np.ones(4)
    f(a), f(b)
    f(a), f(a)         # a again, on the fast path: now the most recently used
    f(c)               # evicts b
    assert [k[0][1] for k in f._cache._d] == [(2,), (4,)]


def zeros_of(n, x):
    return np.zeros(n) + x[0]


def test_a_compile_time_int_still_gives_each_value_its_version():
    f = solvent.jit(zeros_of, backend="native")
    x = np.array([2.0])
    for n in (3, 3, 5, 5, 3):
        assert np.array_equal(f(n, x), zeros_of(n, x))


def test_threads_calling_one_function_get_their_own_answers():
    f = solvent.jit(scaled_first, backend="native")
    x = np.arange(4.0) + 1
    f(x, 1.0)
    wrong = []

    def work(s):
        for _ in range(300):
            if f(x, s) != x[0] * s:
                wrong.append(s)
    threads = [threading.Thread(target=work, args=(float(s),)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def add_shifted(a, b):
    a[1:] += b[:-1]


def add_at(a, b, i):
    a[i] += b[0]


GRID = np.zeros(6)


def add_grid(a):
    a += GRID[:4]


@pytest.mark.parametrize("backend", BACKENDS)
def test_in_place_updates_with_changing_layouts_between_calls(backend):
    c = np.arange(12.0).reshape(3, 4)
    arrays = [c, np.asfortranarray(c), np.arange(24.0).reshape(3, 8)[:, ::2],
              c.astype(np.float32), np.arange(12, dtype=np.int8).reshape(3, 4),
              np.zeros((0, 4)), c + 1]
    for _ in range(2):
        for a in arrays:
            for _ in range(2):
                check(add_shifted, a, a[::-1] * 0.5 if a.dtype.kind == "f" else a[::-1],
                      backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_refused_in_place_calls_on_the_fast_path_write_nothing(backend):
    f = solvent.jit(add_at, backend=backend)
    a, b = np.zeros(4), np.ones(4)
    f(a, b, 1)
    f(a, b, 2)                      # the fast path
    with pytest.raises(IndexError):
        f(a, b, 7)                  # out of range: nothing written
    assert np.array_equal(a, [0, 1, 1, 0])
    ro = np.zeros(4)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f(ro, b, 1)
    with pytest.raises(solvent.UnsupportedError, match="share memory"):
        f(a, a, 1)                  # a written argument that is also read
    assert np.array_equal(a, [0, 1, 1, 0]) and not ro.any()
    unaligned = np.zeros(33, np.uint8)[1:].view(np.float64)
    f(unaligned, b, 0)
    f(unaligned, b, 0)
    assert np.array_equal(unaligned, [2, 0, 0, 0])


def test_a_written_argument_that_is_a_global_array_is_refused_on_the_fast_path():
    f = solvent.jit(add_grid, backend="native")
    a = np.ones(4)
    f(a)
    f(a)
    assert np.array_equal(a, np.ones(4))
    with pytest.raises(solvent.UnsupportedError, match="share memory"):
        f(GRID[2:6])
    with pytest.raises(solvent.UnsupportedError, match="share memory"):
        f(GRID[2:6])


def bin_counts(nbins, x):   # nbins sizes an allocation: a compile-time int
    counts = np.zeros(nbins, dtype=np.int64)
    for i in range(x.shape[0]):
        b = int(x[i] * nbins)
        if b >= 0 and b < nbins:
            counts[b] += 1
    return counts


@pytest.mark.parametrize("backend", ["native", "interp"])
def test_compile_time_ints_take_the_fast_path_per_value(backend):
    """A compile-time int (an allocation's length) keys a dispatcher of runners by value
    (fast_path.register): alternating values give each its own version's result."""
    x = np.random.default_rng(5).random(50)
    f = solvent.jit(bin_counts, backend=backend)
    for n in (4, 7, 4, 7, 1, 7, 4, 0, 4):
        got = f(n, x.copy())
        want = bin_counts(n, x.copy())
        assert got.dtype == want.dtype and np.array_equal(got, want), n
    f(7, x.copy())   # (a new version empties the fast entries: these register again)
    f(7, x.copy())
    entries = [e for e in f._cache.fast.values() if getattr(e, "by_value", None)]
    assert entries and {4, 7} <= {k[0] for e in entries for k in e.by_value}
    check(bin_counts, 5, np.asfortranarray(x[::2]), backend=backend)


def add_rows_viewed(a, x):
    for i in range(x.shape[0]):
        x[i] += a[i]
    return x[1:].T


def test_a_function_returning_the_argument_it_updates_takes_the_fast_path():
    """The runner returns the caller's own array, updated in place, as NumPy does: the same
    object, the same values, without the full path's per-call work."""
    from solvent.corpus.forward_subst import kernel as solve_lower   # returns x, updated
    rng = np.random.default_rng(3)
    L, b = np.tril(rng.random((6, 6))) + 6 * np.eye(6), rng.random(6)
    f = solvent.jit(solve_lower, backend="native")
    for _ in range(3):   # the first call compiles, the second registers, the third runs it
        x, want = np.zeros(6), solve_lower(L, b, np.zeros(6))
        assert f(L, b, x) is x and np.array_equal(x, want)
    (run,) = f._cache.fast.values()
    assert "return args[2]" in run.source and "run_compiled(version, args)\n" not in \
        run.source.split("failed = call(arrays)")[1]
    with pytest.raises(solvent.UnsupportedError, match="share memory"):
        f(L, b, b)   # the in-place checks still send this call to the full path
    g = solvent.jit(add_rows_viewed, backend="native")
    a = np.arange(6.0).reshape(3, 2)
    for _ in range(3):   # a view of the argument: the full path's view steps, on it
        x = np.zeros((3, 2))
        got, want = g(a, x), add_rows_viewed(a, np.zeros((3, 2)))
        assert np.array_equal(got, want) and np.shares_memory(got, x)
    (run,) = g._cache.fast.values()
    assert "return view(args[1], steps)" in run.source


def test_a_view_of_a_written_array_is_refused_on_the_fast_path():
    """The runner skips np.may_share_memory for two distinct arrays that each own their
    memory; a view (of the written array, or of a read one's base) is still tested."""
    f = solvent.jit(add_at, backend="native")
    a, b = np.zeros(4), np.ones(4)
    f(a, b, 1)
    f(a, b, 2)
    assert np.array_equal(a, [0, 1, 1, 0])
    for other in (a[:], a.view(), np.frombuffer(a, dtype=np.float64)):   # a's raw key
        with pytest.raises(solvent.UnsupportedError, match="share memory"):
            f(a, other, 1)
    base = np.ones(8)
    f(base[:4], base[4:], 0)   # views of one array that do not overlap: computed
    assert np.array_equal(base, [2, 1, 1, 1, 1, 1, 1, 1])
