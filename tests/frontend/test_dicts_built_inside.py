"""Dicts and namedtuples built inside a compiled function (``{"u": u, "e": e}``,
``dict(a=x)``, ``dict(d, k=v)``, ``Point(x, y)``, ``f(**params)``): read like the containers
passed in, merged item by item where an ``if`` builds one on each path, returned as a dict
or namedtuple again; ``d[k] = v`` sets an item, except where the change would be lost (inside
a loop around the dict, or while a second name holds it), which is refused with the line.
Before, a dict literal was refused ("Dict expressions are not supported")."""
from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import solvent

BACKENDS = ("native", "xla", "interp")
Point = namedtuple("Point", "x y", defaults=(0.5,))
Shape = namedtuple("Shape", "data dims flag", defaults=((1, 2), True))


def summary(u):
    e = (u ** 2).sum()
    return {"u": u * 2, "energy": e, "n": u.shape[0], "same": u}


def by_branch(u, c):
    if c > 0:
        d = {"a": u, "s": 1.0}
    else:
        d = {"a": u * 2, "s": -1.0}
    return d["a"] * d["s"], d


def returns_by_branch(u, c):
    if c > 0:
        return {"v": u.sum(), "k": 1}
    return {"v": u.max(), "k": 2}


def points(u):
    p = Point(u)
    q = Point(p.x[::-1], 3.0)
    return q.x * q.y + p.y, q, q[1]


def defaults(s, u):
    p = Shape(u * s)                     # defaults that are a tuple and a bool
    return p.data, p.dims, p.flag, p


def unpacked(u, alpha):
    params = {"alpha": alpha, "beta": u}
    more = dict(params, gamma=1)
    s = 0.0
    for k, v in more.items():
        s = s + np.sum(v)
    return scaled(**params), more["gamma"], "beta" in more, len(more), s


def scaled(alpha, beta):
    return alpha * beta


def filled(u, n):
    """The usual way a result dict is built: empty, then item by item."""
    out = {}
    out["u"] = u * 2
    out["e"] = (u ** 2).sum()
    out["e"] += 1.0
    out["u"][0] = -1.0            # its array is written in place, as in NumPy
    if n > 2:
        out["n"] = n * 1.5
    else:
        out["n"] = 0.5
    return out


def two_names(u):
    d = {"a": u}
    e = d
    d["b"] = 1.0
    return e


def in_a_loop(u):
    d = {"s": 0.0}
    for i in range(u.shape[0]):
        d["s"] = d["s"] + u[i]
    return d


CASES = [(summary, (np.arange(4.0),)), (summary, (np.ones((2, 3), np.float32, order="F"),)),
         (by_branch, (np.arange(3.0), 1)), (by_branch, (np.arange(3.0), -1)),
         (returns_by_branch, (np.arange(3.0), 1)),
         (returns_by_branch, (np.arange(3.0), 0)),
         (points, (np.arange(3.0),)), (unpacked, (np.arange(3.0), 2.0)),
         (defaults, (2, np.arange(3, dtype=np.int8))),
         (filled, (np.arange(3.0), 4)), (filled, (np.arange(2, dtype=np.int8), 1))]


def _same(got, want):
    assert type(got) is type(want), (got, want)
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _same(got[k], want[k])
    elif isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        assert np.asarray(got).dtype == np.asarray(want).dtype
        assert np.array_equal(got, want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(CASES)), ids=lambda k: f"{CASES[k][0].__name__}-{k}")
def test_built_and_returned_as_in_python(case, backend):
    fn, args = CASES[case]
    _same(solvent.jit(fn, backend=backend)(*args), fn(*args))


def test_a_returned_argument_is_the_callers_array():
    u = np.arange(3.0)
    assert solvent.jit(summary, backend="native")(u)["same"] is u


@pytest.mark.parametrize("fn,why", [(two_names, "another name also holds"),
                                    (in_a_loop, "inside a loop")])
def test_item_changes_that_would_be_lost_are_refused_with_the_line(fn, why):
    with pytest.raises(solvent.UnsupportedError, match=r"test_dicts_built_inside.py:\d+.*"
                       "setting an item of the dict built at line.*" + why):
        solvent.jit(fn)(np.ones(2))


def test_a_dict_result_takes_a_dict_cotangent():
    def f(x, w):
        return {"y": x * w, "s": np.sum(x * x)}
    x, w = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    out, vjp_fn = solvent.vjp(f, x, w)
    gx, gw = vjp_fn({"y": np.ones(2), "s": 1.0})
    assert np.allclose(gx, w + 2 * x) and np.allclose(gw, x)
