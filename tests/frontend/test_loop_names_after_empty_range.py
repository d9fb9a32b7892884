"""A name first bound by a loop, read after a loop that did not run (a range that turned out
empty at run time, a while condition false on entry).

Python raises UnboundLocalError there (``for i in range(n): ...; return i`` with n == 0);
the compiled loop carries the name from a zero, so the read is checked: the same error,
nothing written back, and no check where the name was bound again or is not read.
"""
import numpy as np
import pytest

import solvent

BACKENDS = ("xla", "native", "interp")


def last_index(a, n):
    for i in range(n):
        a[i] = 0.0
    return i


def body_name(a, lo, hi):
    for i in range(lo, hi):
        y = a[i] * 2.0
    return y


def while_body_name(a, n):
    k = 0
    while k < n:
        y = a[k]
        k += 1
    return y


def read_only_if_ran(a, n):
    for i in range(n):
        a[i] = 1.0
    if n > 0:
        return i
    return -1


def bound_again(a, n):
    for i in range(n):
        a[i] = 1.0
    i = 7
    return i


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_empty_range_leaves_the_name_unbound(backend):
    a = np.ones(4)
    with pytest.raises(UnboundLocalError, match="'i' where it is not associated"):
        solvent.jit(last_index, backend=backend)(a, 0)
    assert (a == 1.0).all()   # nothing written back
    assert solvent.jit(last_index, backend=backend)(a, 3) == 2 and a[:3].sum() == 0.0
    with pytest.raises(UnboundLocalError, match="'y'"):
        solvent.jit(body_name, backend=backend)(np.ones(4), 3, 1)
    assert solvent.jit(body_name, backend=backend)(np.arange(4.0), 3, 1 + 3) == 6.0
    with pytest.raises(UnboundLocalError, match="'y'"):   # a while loop whose test failed
        solvent.jit(while_body_name, backend=backend)(np.ones(4), 0)
    assert solvent.jit(while_body_name, backend=backend)(np.arange(4.0), 3) == 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_error_where_python_reads_nothing_unbound(backend):
    assert solvent.jit(read_only_if_ran, backend=backend)(np.zeros(4), 0) == -1
    assert solvent.jit(bound_again, backend=backend)(np.zeros(4), 0) == 7
