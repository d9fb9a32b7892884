"""The integer tests under the dependence test, on hand-made equations."""
from solvent.analysis.dependence import _feasible


def test_gcd_separates_even_and_odd_slots():
    # 2*k1 - 2*k2 = 1 (x[2*i] against x[2*i+1]): no integer solution at all
    assert not _feasible({"k1": 2, "k2": -2}, 1, {"k1": (0, 9), "k2": (0, 9)})
    assert _feasible({"k1": 2, "k2": -2}, 2, {"k1": (0, 9), "k2": (0, 9)})


def test_banerjee_bounds_separate_halves():
    # k1 = k2 + 5 with both in [0, 4]: x[i] against x[i+5] over 5 iterations
    assert not _feasible({"k1": 1, "k2": -1}, 5, {"k1": (0, 4), "k2": (0, 4)})
    assert _feasible({"k1": 1, "k2": -1}, 4, {"k1": (0, 4), "k2": (0, 4)})


def test_unknown_bounds_only_keep_the_gcd():
    assert _feasible({"k": 3, "n": 1}, 100, {"k": (0, None), "n": (None, None)})
    assert not _feasible({"k": 4, "m": 2}, 3, {"k": (0, None), "m": (None, None)})


def test_direction_variable_excludes_the_same_iteration():
    # k1 - k2 = 0 with k2 = k1 + delta, delta >= 1: -delta = 0 has no solution
    assert not _feasible({"delta": -1}, 0, {"delta": (1, 8)})
    assert not _feasible({"delta": -1}, 0, {"delta": (-8, -1)})


def test_constant_equation():
    assert _feasible({}, 0, {}) and not _feasible({"k": 0}, 2, {"k": (0, 3)})
