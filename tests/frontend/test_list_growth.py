"""Lists grown with ``append`` (frontend/list_growth.py), the way people record a time series
or collect results, against Python+NumPy on the same source: were refused ("a list cannot
grow in compiled code"). Per case: the value, the dtype NumPy's ``np.array(list)`` gives,
a returned list being a list (of Python numbers where Python appended Python numbers), and
the refusals that keep list semantics (list arithmetic, an aliased array appended, nested
and while-loop growth)."""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from differential import assert_same_result
from solvent.errors import UnsupportedError

BACKENDS = ["native", "xla", "interp"]
RUN_TIME_LENGTH = ["native", "interp", None]   # a conditional append: a run-time length


def energy_history(u, nsteps, dt):
    hist = []
    steps = []
    for t in range(nsteps):
        u = u + dt * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
        hist.append(0.5 * np.sum(u * u))
        steps.append(t * dt)
    return u, np.array(hist), steps


def snapshots(u, nsteps):
    frames = [u.copy()]
    for _ in range(nsteps):
        u = 0.5 * (u + u[::-1])
        frames.append(u * 1.0)
    return np.array(frames), len(frames), frames[-1]


def mixed_kinds(x):
    out = []
    for i in range(x.shape[0]):
        out.append(i)           # Python ints first,
        out.append(x[i])        # then the array's own float32: np.array gives float64
    return np.array(out), float(sum(out)), float(max(out)), float(min(out)), np.mean(out)


def nan_extremes(x):
    out = []
    for i in range(len(x)):
        if x[i] != 0:
            out.append(x[i])
    return max(out), min(out)   # Python's fold: a NaN wins only when it comes first


def two_lists_one_loop(x):
    evens, odds = [], []
    for i in range(0, 8, 2):
        evens.append(x[i] * 2)
        odds.append(x[i + 1] > 0)
    return np.array(evens), np.array(odds)


def positives(x):
    out = []
    for i in range(len(x)):
        if x[i] > 0:
            out.append(x[i])
    return np.array(out), len(out)


def until_break(x, tol):
    seen = []
    for i in range(len(x)):
        if abs(x[i]) < tol:
            break
        seen.append(x[i] * x[i])
    return np.asarray(seen)


def straight_line(x):
    parts = []
    parts.append(x[0])
    parts.append(x[1] + 1)
    parts.append(3)
    return np.array(parts)


def no_trips(x, n):
    out = []
    for i in range(n):
        out.append(x[i])
    return np.array(out), len(out)


def _run(fn, args, backend):
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    assert_same_result(solvent.jit(fn, backend=backend)(*copies), fn(*args))


@pytest.mark.parametrize("backend", BACKENDS)
def test_time_series_and_snapshots(backend):
    rng = np.random.default_rng(5)
    for u in (rng.standard_normal(16), rng.standard_normal(9).astype(np.float32),
              np.asfortranarray(rng.standard_normal((3, 4)))[:, 1]):
        _run(energy_history, (u, 7, 0.1), backend)
        _run(snapshots, (u, 3), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dtypes_of_mixed_items(backend):
    _run(mixed_kinds, (np.array([1.5, -2.0, 0.25], np.float32),), backend)
    _run(mixed_kinds, (np.array([3, -4], np.int8),), backend)
    _run(two_lists_one_loop, (np.arange(8.0) - 3,), backend)
    _run(straight_line, (np.array([2, 5], np.uint8),), backend)
    _run(no_trips, (np.arange(3.0), 0), backend)
    _run(no_trips, (np.arange(3, dtype=np.int8), 2), backend)


@pytest.mark.parametrize("backend", RUN_TIME_LENGTH)
def test_conditional_appends_have_a_run_time_length(backend):
    rng = np.random.default_rng(6)
    for x in (rng.standard_normal(20), -np.ones(4), np.ones(1, np.float32),
              rng.standard_normal(12)[::3]):
        _run(positives, (x,), backend)
        _run(until_break, (x, 0.3), backend)
    for x in (np.array([1.0, np.nan, 3.0, -2.0]), np.array([np.nan, 1.0, 0.0, 2.0])):
        _run(nan_extremes, (x,), backend)
    with pytest.raises(ValueError, match="empty") as e:
        solvent.jit(nan_extremes, backend=backend)(np.zeros(3))
    assert "test_list_growth.py" in str(e.value)


def test_xla_refuses_a_run_time_length_with_the_line():
    with pytest.raises(UnsupportedError, match=r"run-time bounds.*test_list_growth.py:\d+"):
        solvent.jit(positives, backend="xla")(np.ones(3))


def list_concat(x):
    a = []
    for i in range(3):
        a.append(x[i])
    return a + [1.0]


def list_repeat(x):
    a = []
    for i in range(3):
        a.append(x[i])
    return a * 2


def aliased_append(x):
    frames = []
    for _ in range(3):
        x[0] += 1.0
        frames.append(x)        # Python's list holds x itself three times
    return np.array(frames)


def nested_growth(a):
    out = []
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out.append(a[i, j])
    return np.array(out)


def while_growth(x):
    out = []
    i = 0
    while i < len(x):
        out.append(x[i])
        i += 1
    return np.array(out)


def data_trip_count(x):
    out = []
    for i in range(int(x[0])):
        out.append(i)
    return np.array(out)


def print_list(x):
    a = []
    for i in range(2):
        a.append(x[i])
    print(a)
    return 0


@pytest.mark.parametrize("fn,what", [
    (list_concat, "operator Add on a list grown"), (list_repeat, "operator Mult on a list"),
    (aliased_append, "appending an array variable"), (nested_growth, "nested"),
    (while_growth, "grows in a while loop"), (data_trip_count, "computed at run time"),
    (print_list, "print on a list grown")])
def test_refusals_name_the_line(fn, what):
    with pytest.raises(UnsupportedError, match=r"test_list_growth.py:\d+") as e:
        solvent.jit(fn)(np.arange(4.0).reshape(2, 2) if fn is nested_growth else
                        np.array([3.0, 1.0, 2.0]))
    assert what in str(e.value)
