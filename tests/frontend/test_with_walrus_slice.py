"""Python statements met in code written elsewhere: ``with np.errstate(...)`` and
``with warnings.catch_warnings()`` around NumPy code (the body runs as it is), the walrus
operator, and ``slice(...)`` objects used as indices."""
import numpy as np
import pytest

import solvent

from differential import case, run_cases


def errstate_div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a / b
    r[~np.isfinite(r)] = 0.0
    return r


def warnings_quiet(a):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if a[0] > 0:
            return np.log(a)
    return a


def errstate_in_loop(a):
    out = 0.0
    for i in range(a.shape[0]):
        with np.errstate(all="ignore"), np.errstate(over="warn"):
            if a[i] == 0:
                continue
            out += 1.0 / a[i]
    return out


def walrus(a):
    if (n := a.shape[0]) > 2:
        return a[:n - 1] * n
    return a


def walrus_loop(a):
    total = 0.0
    i = 0
    while (v := a[i]) > 0.1 and i < a.shape[0] - 1:
        total += v
        i += 1
    return total, i


def walrus_in_for(a):
    total = 0.0
    last = -1.0
    for i in range(a.shape[0]):
        if (v := a[i] * 2) > 1.0:
            total += v
        last = v
    return total, last, v


def slice_objects(a, i):
    s = slice(1, None, 2)
    t = slice(i, i + 2)
    return a[s], a[slice(3)], a[t], a[slice(None, None, -1)]


A = np.array([1.0, 0.0, -1.0, 4.0, 2.0])

cases = [
    case(errstate_div, A, np.array([0.0, 0.0, 2.0, 4.0, 0.5])),
    case(warnings_quiet, np.array([1.0, 0.5, 2.0])),
    case(errstate_in_loop, A),
    case(walrus, A),
    case(walrus_in_for, np.array([0.5, 0.9, 0.05, 0.7])),
    case(slice_objects, np.arange(8.0), 2),
]

test_statements = run_cases(cases)


def errstate_raise(a):
    with np.errstate(divide="raise"):
        return 1.0 / a


def other_context(a):
    import threading
    with threading.Lock():
        return a + 1


@pytest.mark.parametrize("fn,what", [(errstate_raise, "does not raise on floating-point"),
                                     (other_context, "With statement"),
                                     (walrus_loop, "while loop's condition")])
def test_what_solvent_cannot_keep_is_refused_with_the_line(fn, what):
    """A name bound by := in a while condition was read stale in the body (0.5 + 0.5 for
    0.5 + 0.4): refused until the loop carries it."""
    with pytest.raises(solvent.UnsupportedError, match=f"test_with_walrus_slice.py:\\d+.*{what}"):
        solvent.jit(fn)(A)


def reshape_then_write(a):
    x = a * 2.0
    y = x.reshape(-1)
    x[0, 0] = 5.0
    return y[0]


def reshape_then_read(a):
    x = a * 2.0
    y = x.reshape(-1)
    return y[0] + y[1], x.ravel()[2]


def reshape_used_at_once(a):
    x = a * 2.0
    z = x.reshape(-1).copy()      # copied (or reduced) at once: x stays writable
    s = x.reshape(-1).sum()
    x[1, 1] = 7.0
    return z[3], s, x[1, 1]


def test_a_reshape_whose_view_or_copy_follows_numpys_memory_order_guards_writes():
    """For a Fortran-ordered argument NumPy keeps ``a * 2.0`` in Fortran order, so its
    reshape(-1) is a copy; solvent's C-ordered result made it a view and a later write into
    x showed through y (5.0 where NumPy gives 1.0). The write is refused with the line;
    reading is unaffected, and C-ordered arguments compile as before."""
    f = np.asfortranarray(np.arange(6.0).reshape(2, 3) + 0.5)
    with pytest.raises(solvent.UnsupportedError, match=r"test_with_walrus_slice.py:\d+.*'x' "
                       r"was reshaped at line \d+ into 'y'"):
        solvent.jit(reshape_then_write)(f)
    for fn in (reshape_then_read, reshape_used_at_once):
        assert solvent.jit(fn)(f) == fn(f)
    c = np.ascontiguousarray(f)
    assert solvent.jit(reshape_then_write)(c) == reshape_then_write(c)
