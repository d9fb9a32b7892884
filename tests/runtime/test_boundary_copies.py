"""Zero-copy at the XLA call boundary: large aligned arguments read in place, others staged
into aligned buffers, large computed results handed over in XLA's buffer, and a copy
wherever memory would otherwise be shared."""
import numpy as np
import pytest

import solvent
from differential import check

N = 1 << 14   # 128 KiB of float64: above the staging and hand-over thresholds


def axpy(a, x, y):
    return a * x + y


def passthrough(x, y):
    return x, y + 1.0


def twice(x):
    z = x * 2.0
    return z, z


def constant_result(x):
    return np.zeros((128, 128)) + x.sum() * 0.0


def offset_view(buf, byte_offset, dtype, n):
    """An array of ``n`` items starting ``byte_offset`` bytes into a 64-byte aligned
    buffer."""
    raw = np.empty(n * np.dtype(dtype).itemsize + 256, np.uint8)
    start = (-raw.ctypes.data) % 64 + byte_offset
    return raw[start:start + n * np.dtype(dtype).itemsize].view(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.complex128])
@pytest.mark.parametrize("byte_offset", [0, 8, 16, 48])
def test_unaligned_arguments_give_numpy_results(dtype, byte_offset):
    rng = np.random.default_rng(byte_offset)
    x = offset_view(None, byte_offset, dtype, N)
    y = offset_view(None, (byte_offset + 16) % 64, dtype, N)
    x[...] = (rng.standard_normal(N) * 10).astype(dtype)
    y[...] = (rng.standard_normal(N) * 10).astype(dtype)
    check(axpy, 3, x, y, backend="xla")


def test_misaligned_for_the_itemsize_is_copied_and_still_right():
    raw = np.zeros(8 * N + 64, np.uint8)
    x = np.frombuffer(raw.data, dtype=np.float64, count=N, offset=4 + (-raw.ctypes.data) % 64)
    check(axpy, 2.0, x, np.ones(N), backend="xla")


def test_fortran_and_strided_large_arguments():
    A = np.asfortranarray(np.random.default_rng(0).standard_normal((256, 128)))
    check(axpy, 2.0, A, np.ones((256, 128)), backend="xla")
    B = np.random.default_rng(1).standard_normal((256, 256))[:, ::2]
    check(axpy, 2.0, B, np.ones((256, 128)), backend="xla")


@pytest.mark.parametrize("n", [N, 10])   # handed over in XLA's buffer; copied (small)
def test_handed_over_results_are_writable_and_private(n):
    f = solvent.jit(axpy, backend="xla")
    x, y = np.ones(n), np.arange(n, dtype=np.float64)
    r1 = f(2.0, x, y)
    r2 = f(2.0, x, y)
    assert r1.flags.writeable and r2.flags.writeable
    assert not np.may_share_memory(r1, r2)
    assert not np.may_share_memory(r1, x) and not np.may_share_memory(r1, y)
    r1[:] = -7.0
    assert np.array_equal(r2, 2.0 + y) and np.array_equal(f(2.0, x, y), 2.0 + y)
    assert np.array_equal(x, np.ones(n)) and np.array_equal(y, np.arange(n, dtype=np.float64))


@pytest.mark.parametrize("n", [N, 10])
def test_an_argument_passed_through_is_the_callers_array_and_results_are_not_shared(n):
    f = solvent.jit(passthrough, backend="xla")
    x, y = np.ones(n), np.zeros(n)
    a, b = f(x, y)
    assert a is x          # NumPy returns the argument itself; so does solvent
    assert not np.may_share_memory(b, y) and b.flags.writeable


@pytest.mark.parametrize("n", [N, 10])
def test_one_array_returned_twice_is_one_object_and_owns_its_memory(n):
    f = solvent.jit(twice, backend="xla")
    a, b = f(np.ones(n))
    assert a is b and a.flags.writeable
    c, _ = f(np.ones(n))
    assert not np.may_share_memory(a, c)


@pytest.mark.parametrize("n", [N, 10])
def test_a_constant_result_is_never_shared_between_calls(n):
    f = solvent.jit(constant_result, backend="xla")
    x = np.ones(n)
    r1 = f(x)
    r1[:] = 5.0
    r2 = f(x)
    assert np.array_equal(r2, np.zeros((128, 128))) and not np.may_share_memory(r1, r2)


def test_explain_says_which_values_are_copied():
    text = solvent.jit(axpy, backend="xla").explain(2.0, offset_view(None, 16, np.float64, N),
                                                     np.asfortranarray(np.ones(N)))
    line = next(s for s in text.splitlines() if s.startswith("# copies at the call boundary"))
    # explain says the unaligned argument is copied, and why
    assert "copied into an aligned buffer (not 64-byte aligned)" in line
    assert "handed over in XLA's buffer" in line
    assert "copied into an aligned buffer (not C-contiguous)" not in line  # 1-d F == C
    text = solvent.jit(axpy, backend="xla").explain(2.0, np.ones((256, 128))[:, ::2],
                                                     np.ones((256, 64)))
    assert "copied into an aligned buffer (not C-contiguous)" in text


def test_a_new_alignment_does_not_recompile():
    """Arguments at every 8-byte offset of a 64-byte line run one compiled program (reading
    them from the boundary below made the padding a static argument: each new offset
    recompiled, ~300 ms)."""
    f = solvent.jit(axpy, backend="xla")
    y = np.ones(N)
    for off in range(0, 64, 8):
        f(2.0, offset_view(None, off, np.float64, N), y)
    jitted = f.compile((2.0, np.ones(N), y)).executable._jitted
    assert jitted._cache_size() == 1


def small_sum(a, b):
    return (a * b).sum()


def test_small_results_take_the_fast_path_and_keep_their_types():
    """Every result computed by the program is fresh, so the runtime returns it as the
    executable gives it (``Compiled.plain``): a private writable array, a NumPy scalar."""
    f = solvent.jit(axpy, backend="xla")
    x = np.arange(10.0)
    assert f.compile((2.0, x, x)).plain is not None
    r = f(2.0, x, x)
    assert r.flags.writeable and r.flags.owndata and not np.may_share_memory(r, x)
    s = solvent.jit(small_sum, backend="xla")(x, x)
    assert type(s) is np.float64 and s == (x * x).sum()
