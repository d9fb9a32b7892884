"""0-d arrays alias as NumPy's do: a 0-d argument, a 0-d view (``x[2, ...]``,
``x.reshape(())``) or a local 0-d array changed in place is changed for every name and for
the caller; ``x.astype(x.dtype, copy=False)`` is ``x`` itself. Checked against NumPy on
every backend and the automatic choice (found by a stranger-style probe: the changes were
silently lost)."""
import numpy as np
import pytest

import solvent
from differential import case, check

BACKENDS = ["interp", "native", "xla", None]   # None: the automatic choice


def add_in_place(a):
    b = a
    b += 1             # b is a: the caller's array changes
    a += 1
    return a


def ellipsis_view(x):
    v = x[2, ...]          # a 0-d view; x[2] alone is a scalar copy
    v += 1
    w = x[3]
    w += 1
    return x


def returned_0d_view(x, i):
    v = x[1, 2, ...]
    v *= 10
    w = x[i, ...]          # a run-time index: still a view
    w += 1
    return v, w


def reshape_to_0d(x):
    y = x.reshape(())
    y += 1
    return x


def local_0d_alias():
    a = np.zeros(())
    b = a
    b += 1
    v = a[...]
    v += 1
    return a


def writes_into_0d(a, b):
    a[...] = 5
    b.fill(3)
    np.add(a, b, out=a)
    c = np.ascontiguousarray(b)     # a 1-d view of b
    c[0] += 1
    return a, b


def astype_no_copy(x):
    y = x.astype(x.dtype, copy=False)      # x itself
    y[0] += 1
    z = x.astype(np.float64, copy=False)
    z[1] += 1
    w = x.astype(float, copy=False)
    w[2] += 1
    c = x.astype(np.float32, copy=False)   # another dtype: a copy
    c[0] += 1
    return x, c


def astype_of_0d(a):
    b = a.astype(a.dtype, copy=False)
    b += 1
    return a, a.astype(np.float32), a.astype(a.dtype)


def rebind_0d_in_loop_and_branch(a, b, x):
    s = np.zeros(())
    for i in range(x.shape[0]):
        s = s + x[i]   # a number from the first iteration on
        b = b + x[i]   # the caller's 0-d b until then
    if x[0] > 0:
        a = a * 2      # a number on this path, the caller's 0-d array on the other
    return s, b, x * a


cases = [
    case(add_in_place, np.array(1.5)),
    case(add_in_place, np.array(3, np.int64), id="add_in_place_int64"),
    case(ellipsis_view, np.arange(5.0)),
    case(returned_0d_view, np.arange(12.0).reshape(3, 4), 2),
    case(reshape_to_0d, np.array([1.0])),
    case(local_0d_alias),
    case(writes_into_0d, np.array(1.0), np.array(2.0)),
    case(astype_no_copy, np.arange(3.0)),
    case(astype_of_0d, np.array(2.5)),
    case(rebind_0d_in_loop_and_branch, np.array(2.0), np.array(1.0), np.arange(1.0, 4.0)),
    case(rebind_0d_in_loop_and_branch, np.array(2.0), np.array(1.0), -np.arange(1.0, 4.0),
         id="rebind_0d_in_loop_and_else"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args,kw", cases)
def test_zero_d_aliasing(fn, args, kw, backend):
    check(fn, *args, backend=backend, **kw)


def change_after_mixed_merge(a, x):
    if x[0] > 0:
        a = a * 2      # a number on this path, the caller's 0-d array on the other
    a += 1             # NumPy: in place on one path only
    return a


def change_before_loop_rebinds(a, x):
    for i in range(x.shape[0]):
        a += 1         # NumPy: in place on the first iteration only
        a = a + x[i]
    return a


@pytest.mark.parametrize("fn,what", [
    (change_after_mixed_merge, "0-d array on one path of this if and a number on the other"),
    (change_before_loop_rebinds, "0-d array that others see until this loop makes it a number")])
def test_in_place_change_of_a_0d_array_or_number_is_refused(fn, what):
    with pytest.raises(solvent.UnsupportedError, match=rf"test_zero_d_aliasing.py:\d+.*{what}"):
        solvent.jit(fn, backend="interp")(np.array(1.0), np.arange(3.0))


def astype_forbidden_cast(x):
    return x.astype(np.int32, casting="same_kind")


def test_astype_casting_rule_raises_as_numpy():
    with pytest.raises(TypeError):
        astype_forbidden_cast(np.arange(3.0))
    with pytest.raises(TypeError, match="according to the rule 'same_kind'"):
        solvent.jit(astype_forbidden_cast, backend="interp")(np.arange(3.0))
