"""The native call boundary: written arguments computed in the caller's own array (with a
backup restored on any failure), and checks as values that return at the first failure
inside loops (backends/native/error_exit.py) with the error Python would raise."""
import inspect

import numpy as np
import pytest

import solvent

from differential import check


def scatter_add(A, idx):
    for i in range(idx.shape[0]):
        A[idx[i]] += 1.0


def scatter_rows(A, idx, w):
    for i in range(idx.shape[0]):
        for j in range(A.shape[1]):
            A[idx[i], j] += w * j


def bump_and_return(x):
    x += 1
    return x


def bump_then_copy(x):
    x[0] = 7.0
    y = x.copy()
    return y


def shifted_floor(x, lo):
    y = np.floor(x - lo)
    s = 0.0
    for i in range(y.shape[0]):
        s += y[i]
    return s


def countdown(n, x):
    k = 0
    while n > 0:
        x[k] = n
        k = k + 3
        n = n - 1
    return k


def _line(fn, text):
    src, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(src) if text in line)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_failure_in_a_loop_leaves_every_layout_of_the_callers_array_alone(layout):
    base = np.arange(12.0).reshape(4, 3)
    A = {"C": base.copy(), "F": np.asfortranarray(base),
         "strided": np.arange(24.0).reshape(4, 6)[:, ::2]}[layout]
    before = A.copy()
    idx = np.array([0, 3, 1, 9, 2], dtype=np.int64)   # 9 fails after three rows were written
    with pytest.raises(IndexError) as e:
        solvent.jit(scatter_rows, backend="native")(A, idx, 0.5)
    assert f".py:{_line(scatter_rows, 'A[idx[i], j]')}:" in str(e.value)
    assert "index 9" in str(e.value) and "size 4" in str(e.value)
    np.testing.assert_array_equal(A, before)
    idx[3] = -4   # in bounds: the same call now matches NumPy, in place
    check(scatter_rows, A, idx, 0.5, backend="native")


def test_the_first_failing_index_is_reported_and_nothing_is_written():
    A = np.zeros(5)
    with pytest.raises(IndexError) as e:
        solvent.jit(scatter_add, backend="native")(A, np.array([1, 2, 7, -9, 0]))
    assert "index 7" in str(e.value)
    np.testing.assert_array_equal(A, np.zeros(5))


def test_in_bounds_writes_match_numpy_for_small_and_odd_inputs():
    for n in (0, 1, 5):
        check(scatter_add, np.zeros(max(n, 1)), np.arange(n) % max(n, 1), backend="native")
    check(scatter_add, np.zeros(3, dtype=np.float32), np.array([2, -1, 0, 2]), backend="native")
    check(scatter_add, np.zeros(4, dtype=np.int8), np.array([3, 3, -4]), backend="native")


def test_a_written_argument_returned_is_the_callers_array_and_a_copy_is_not():
    check(bump_and_return, np.arange(6.0), backend="native")
    check(bump_and_return, np.arange(6, dtype=np.int64).reshape(2, 3), backend="native")
    x = np.ones(4)
    y = solvent.jit(bump_then_copy, backend="native")(x)
    assert not np.shares_memory(x, y)
    check(bump_then_copy, np.ones(4), backend="native")


def test_an_argument_used_as_scratch_is_not_changed():
    check(shifted_floor, np.linspace(-3, 3, 50), 0.25, backend="native")


def test_while_loop_failure_reports_the_line_and_restores_the_argument():
    x = np.zeros(7)
    with pytest.raises(IndexError) as e:
        solvent.jit(countdown, backend="native")(4, x)
    assert f".py:{_line(countdown, 'x[k] = n')}:" in str(e.value)
    np.testing.assert_array_equal(x, np.zeros(7))
    check(countdown, 3, np.zeros(7), backend="native")


def reciprocals(x, d):
    s = 0.0
    for i in range(x.shape[0]):
        s += 1.0 / (d - i)   # Python scalars: ZeroDivisionError at i == d
        x[i] = s
    return s


def test_a_check_the_native_code_does_not_repeat_returns_at_its_first_failure():
    x = np.zeros(6)
    with pytest.raises(ZeroDivisionError):
        solvent.jit(reciprocals, backend="native")(x, 3)
    np.testing.assert_array_equal(x, np.zeros(6))
    check(reciprocals, np.zeros(6), 9, backend="native")
    check(reciprocals, np.zeros(6), -2, backend="native")


def gather_sum(x, cols):
    return (x[cols] * 2.0).sum(axis=1)


def test_a_gather_checks_every_index_and_reports_the_first_bad_one_in_order():
    x = np.arange(10.0)
    cols = np.array([[1, -10, 3], [9, 12, -11], [0, 0, 40]])
    with pytest.raises(IndexError) as e:
        solvent.jit(gather_sum, backend="native")(x, cols)
    assert "index 12 is out of bounds for axis 0 with size 10" in str(e.value)
    assert f".py:{_line(gather_sum, 'x[cols]')}:" in str(e.value)
    check(gather_sum, x, np.array([[1, -10, 3], [9, -1, 0]]), backend="native")
    check(gather_sum, x.astype(np.float32), np.zeros((0, 4), dtype=np.int32), backend="native")
    check(gather_sum, x, np.arange(-10, 10, dtype=np.int8).reshape(4, 5), backend="native")


def smooth_sum(x, w):
    t = x[1:] * w + x[:-1]      # temporaries: reused across calls by each thread
    return t - t.mean(), (t * t).sum()


def test_temporaries_reused_per_thread_never_leak_into_results_or_other_threads():
    """Small temporaries and the error record are kept per thread and reused (native
    backend.py ``_reused``); results are new arrays on every call, and threads calling one
    compiled function at once each get NumPy's answer."""
    import threading
    f = solvent.jit(smooth_sum, backend="native")
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(n) for n in (33, 33, 33, 33)]
    first = f(xs[0], 0.5)
    keep = first[0].copy()
    second = f(xs[1], 0.5)
    assert first[0] is not second[0] and np.array_equal(first[0], keep)
    results = {}

    def work(k):
        for _ in range(200):
            got = f(xs[k], 1.5 + k)
        results[k] = got
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        want = smooth_sum(xs[k], 1.5 + k)
        np.testing.assert_allclose(results[k][0], want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(results[k][1], want[1], rtol=1e-12)


def test_large_temporaries_are_reused_too_and_results_stay_fresh():
    """Temporaries of megabytes are reused across calls as well (a fresh large array is
    fresh zeroed pages on every call); a result never shares memory with them or with an
    earlier call's result."""
    f = solvent.jit(smooth_sum, backend="native")
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal(1 << 18) for _ in range(3)]
    exe = f.compile((xs[0], 0.5)).executable
    assert sum(int(np.prod(s)) * dt.itemsize for _, s, dt in exe._reused) > 1 << 16
    outs = [f(x, 0.25 * k) for k, x in enumerate(xs)]
    for k, (x, out) in enumerate(zip(xs, outs)):
        want = smooth_sum(x, 0.25 * k)
        np.testing.assert_allclose(out[0], want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(out[1], want[1], rtol=1e-12)
    assert not np.shares_memory(outs[0][0], outs[1][0])


def test_the_compiled_entry_is_called_as_a_builtin_function_on_cpython():
    """The entry is called through a built-in function made from machine code
    (engine.python_caller), not a ctypes call; the error path still raises from it."""
    f = solvent.jit(scatter_add, backend="native")
    A = np.zeros(4)
    f(A, np.array([1, 3]))
    exe = f.compile((A, np.array([1, 3]))).executable
    assert type(exe._call).__name__ == "builtin_function_or_method"
    before = A.copy()
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 4"):
        f(A, np.array([0, 9]))
    assert np.array_equal(A, before)


def saxpy(a, x, y):
    y += a * x


def triad(out, b, c, s):
    out[:] = b + s * c


def triad_checked(out, b, c, i):
    out[:] = b + c[i] * c   # c[i] may fail after nothing was written


def _executable(fn, *args):
    return solvent.jit(fn, backend="native").compile(args).executable


@pytest.mark.parametrize("fn, args", [
    (saxpy, (0.75, np.linspace(-1, 1, 40, dtype=np.float32),
             np.linspace(2, 3, 40, dtype=np.float32))),
    (triad, (np.zeros(33), np.arange(33.0), np.linspace(0, 1, 33), 3.0)),
])
def test_a_value_written_back_is_computed_in_the_callers_own_array(fn, args):
    """``y += a * x`` and ``a[:] = b + s * c``: the elementwise result lives in the written
    argument's buffer (the caller's array), not in a new buffer copied back after the call."""
    ex = _executable(fn, *args)
    k = 2 if fn is saxpy else 0   # the written argument
    assert ex._own, "the written-back result has its own buffer"
    target = args[k]
    before = target.ctypes.data
    solvent.jit(fn, backend="native")(*args)
    assert target.ctypes.data == before
    check(fn, *[a.copy() if isinstance(a, np.ndarray) else a for a in args], backend="native")


@pytest.mark.parametrize("layout", ["C", "F", "strided", "int8", "empty", "one"])
def test_written_back_values_match_numpy_for_every_layout(layout):
    base = np.linspace(-2, 2, 24).reshape(4, 6)
    y = {"C": base.copy(), "F": np.asfortranarray(base), "strided": base[:, ::2],
         "int8": np.arange(24, dtype=np.int8).reshape(4, 6), "empty": np.zeros((0, 3)),
         "one": np.ones((1, 1))}[layout]
    x = np.ones_like(y) * 3
    check(saxpy, 2 if y.dtype.kind == "i" else 0.5, x, y.copy(), backend="native")
    check(triad, y.copy(), x, x * 2, 2 if y.dtype.kind == "i" else 0.25, backend="native")


def test_a_failing_call_leaves_the_written_back_argument_alone():
    out, b, c = np.full(8, 5.0), np.arange(8.0), np.linspace(0, 1, 8)
    with pytest.raises(IndexError):
        solvent.jit(triad_checked, backend="native")(out, b, c, 8)
    np.testing.assert_array_equal(out, np.full(8, 5.0))
    check(triad_checked, out, b, c, -3, backend="native")
