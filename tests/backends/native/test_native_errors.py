"""Run-time index errors, refusals with reasons, and the no-write-on-error contract."""
import inspect

import numpy as np
import pytest

import solvent
from solvent.backends.native import NativeBackend
from solvent.errors import UnsupportedError

from differential import check


def write_past_end(A, k):
    for i in range(A.shape[0]):
        A[i] = 1.0
    A[k] = 2.0  # out of bounds when k >= len(A)


def read_past_end(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    return s


def guarded(idx):
    counts = np.zeros(4, dtype=np.int64)
    for i in range(idx.shape[0]):
        b = idx[i]
        if b < 0 or b >= 4:
            continue
        counts[b] += 1
    return counts


def inverse(a, b):   # an FFT: an op the native backend has no rule for
    return np.fft.fft(a).real + b


def _line(fn, text):
    src, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(src) if text in line)


def test_out_of_bounds_write_raises_and_leaves_the_callers_array_alone():
    A = np.zeros(5)
    before = A.copy()
    with pytest.raises(IndexError) as e:
        solvent.jit(write_past_end, backend="native")(A, 5)
    assert f".py:{_line(write_past_end, 'A[k] = 2.0')}:" in str(e.value)
    assert "out of bounds for axis 0 with size 5" in str(e.value)
    np.testing.assert_array_equal(A, before)


def test_out_of_bounds_read_raises_naming_the_line():
    with pytest.raises(IndexError) as e:
        solvent.jit(read_past_end, backend="native")(np.ones(3), 4)
    assert f".py:{_line(read_past_end, 's += x[i]')}:" in str(e.value)
    assert "index 3" in str(e.value)


def test_negative_index_beyond_the_length_raises():
    with pytest.raises(IndexError):
        solvent.jit(write_past_end, backend="native")(np.zeros(5), -6)


def test_in_bounds_calls_still_match_numpy():
    check(write_past_end, np.zeros(5), 4, backend="native")
    check(write_past_end, np.zeros(5), -5, backend="native")
    check(read_past_end, np.arange(6.0), 6, backend="native")


def test_guarded_access_made_unconditional_by_if_conversion_does_not_raise():
    check(guarded, np.array([0, 3, 4, -1, 2, 7, 3]), backend="native")


def test_accepts_refuses_an_op_without_rule_naming_it_and_its_line():
    a = np.ones((3, 3))
    fn = solvent.jit(inverse).compile((a, a)).fn
    ok, reason = NativeBackend().accepts(fn)
    assert not ok
    assert "tensor.fft" in reason and f":{_line(inverse, 'np.fft.fft')}:" in reason
    with pytest.raises(UnsupportedError, match="tensor.fft"):
        solvent.jit(inverse, backend="native")(a, a)


def test_accepts_refuses_complex_values_of_ops_without_a_complex_rule():
    def cplx(x):
        return np.arcsin(x * 2)    # NumPy's own algorithm, not the C library's casin
    fn = solvent.jit(cplx).compile((np.ones(3, dtype=np.complex128),)).fn
    ok, reason = NativeBackend().accepts(fn)
    assert not ok and "tensor.arcsin" in reason and "complex" in reason


def test_describe_names_the_backend():
    assert NativeBackend().describe().startswith("native:")
    assert NativeBackend.name == "native"


def stepped(x, s):
    t = 0.0
    for i in range(0, x.shape[0], s):
        t += x[i]
    return t


def test_zero_step_raises_value_error_as_python_does():
    f = solvent.jit(stepped, backend="native")
    with pytest.raises(ValueError, match="must not be zero"):
        f(np.ones(4), 0)
    check(stepped, np.arange(7.0), 3, backend="native")


def invariant_read(x, i, m):
    s = x[0] * 0.0
    for j in range(m):
        s += x[i]      # loop-invariant: hoisted out of a loop that may make no trips
    return s


def test_hoisted_access_of_a_loop_without_trips_does_not_raise():
    check(invariant_read, np.ones(3), 7, 0, backend="native")
    check(invariant_read, np.arange(3.0), 2, 4, backend="native")
