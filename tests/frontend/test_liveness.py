"""Read-before-write liveness (frontend/scopes.Liveness): a temporary assigned in one arm of
an ``if``, or after a ``break``/``continue`` guard, needs no value on the other path when no
path from there reads it before writing it. C-style ports written the way people write them,
differentially against NumPy at two sizes (in-place effects included), on XLA, the
interpreter and the native backend; a name that *is* read after an ``if`` that assigns it on
one path only is still refused with the line.
"""
from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np
import pytest

import solvent
from differential import check
from solvent.frontend.scopes import Liveness

BACKENDS = ["xla", "interp", "native"]


def pivot_sweep(d, x):
    """dgtsv's shape: a break in one arm, then a temporary both arms assign and use."""
    n = d.shape[0]
    info = 0
    for i in range(n - 1):
        if abs(d[i]) >= abs(d[i + 1]):
            if d[i] == 0.0:
                info = i + 1
                break
            fact = d[i + 1] / d[i]
            x[i + 1] -= fact * x[i]
        else:
            fact = d[i] / d[i + 1]
            temp = x[i]
            x[i] = x[i + 1]
            x[i + 1] = temp - fact * x[i + 1]
    return info


def clipped_sum(lim, v):
    """A temporary assigned after a break guard in one arm, read after the if."""
    s = 0.0
    for i in range(v.shape[0]):
        if v[i] < 0:
            if v[i] < -lim:
                break
            t = -v[i]
        else:
            t = v[i]
        s += t
    return s


def skip_odd(v, out):
    """continue, and a temporary living in one arm only."""
    k = 0
    for i in range(v.shape[0]):
        if i % 2:
            continue
        if v[i] > 0:
            w = v[i] * 2
            out[k] = w
        k += 1
    return k


def previous_value(x, y):
    """A name read by the next iteration before it is written (guarded on the first): NumPy
    runs it; solvent does not know prev's type when it reaches the read and refuses."""
    for i in range(x.shape[0]):
        if i > 0:
            y[i] = x[i] - prev
        prev = x[i]
    return y


def c_style_while(v):
    """A while loop with a counter, a break and a one-armed temporary."""
    i = 0
    best = -1
    while i < v.shape[0]:
        if v[i] > 2:
            hit = i
            if hit > 0:
                best = hit
                break
        i += 1
    return best


def read_after_one_arm(c, v):
    if c > 0:
        r = v[0]
    return r * 2        # NumPy raises UnboundLocalError for c <= 0


def _data(n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n) * 3


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [5, 40])
def test_one_armed_temporaries_compile_and_match_numpy(backend, n):
    d = _data(n, n)
    check(pivot_sweep, d, np.asfortranarray(_data(n, 1)), backend=backend)
    d0 = d.copy()
    d0[n // 2] = 0.0
    d0[n // 2 + 1] = 0.0
    check(pivot_sweep, d0, _data(n, 2), backend=backend)
    for lim in (1.0, 100.0):
        check(clipped_sum, lim, _data(n, 3), backend=backend)
    check(skip_odd, _data(2 * n, 4)[::2], np.zeros(n), backend=backend)
    check(c_style_while, _data(n, 6), backend=backend)


def test_a_name_read_after_a_one_armed_if_is_refused_with_the_line():
    with pytest.raises(solvent.UnsupportedError, match="assigned on only one path") as e:
        solvent.jit(read_after_one_arm)(1, np.ones(2))
    src, first = inspect.getsourcelines(read_after_one_arm)
    lineno = first + next(k for k, s in enumerate(src) if "if c > 0" in s)
    assert f"test_liveness.py:{lineno}:" in str(e.value), str(e.value)


def test_a_name_first_bound_by_an_earlier_iteration_is_refused_with_the_line():
    with pytest.raises(solvent.UnsupportedError, match="'prev' is not defined") as e:
        solvent.jit(previous_value)(np.ones(3), np.zeros(3))
    src, first = inspect.getsourcelines(previous_value)
    lineno = first + next(k for k, s in enumerate(src) if "- prev" in s)
    assert f"test_liveness.py:{lineno}:" in str(e.value), str(e.value)


def _fn(src):
    return ast.parse(textwrap.dedent(src)).body[0]


def test_liveness_sets():
    f = _fn("""
        def f(x, n):
            for i in range(n):
                if x[i] > 0:
                    if x[i] > 5:
                        break
                    a = 1
                    x[i] = a
                else:
                    a = 2
                    x[i] = a
                b = i
            return b
        """)
    live = Liveness(f)
    loop = f.body[0]
    outer_if = loop.body[0]
    assert "a" not in live.after(outer_if)          # written before read on every path
    assert live.after(loop) == {"b", "x"}       # b read after the loop, x each time (not n:
    #                                              range(n) is evaluated once)
    assert "a" not in live.after(loop)
    inner = outer_if.body
    assert live.jump_target(inner) == live.after(loop)
    assert live.jump_target(f.body) == set()        # outside loops: nothing
    g = _fn("""
        def g(x):
            for i in range(3):
                if i:
                    x[i] = p
                p = x[i]
        """)
    assert "p" in Liveness(g).after(g.body[0])     # the next iteration reads it first
