"""Methods compiled by solvent (runtime/methods.py): ``@solvent.jit`` on a ``def`` in a class
and ``solvent.jit(obj.method)``. The object is passed with the attributes the method's
source reads (frontend/self_reads.py): arrays written in place reach the object, helper
methods and properties of the class are inlined, and attributes it never reads (a growing
history list, a lock) neither recompile it nor stop it. NumPy running the same
method is the oracle."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import solvent

BACKENDS = ("native", "xla", "interp")


class Rod:
    """A heat equation on a rod, written as a scientist writes a class."""

    def __init__(self, n, dtype=np.float64, order="C"):
        u = (np.linspace(0, 1, n) ** 2).astype(dtype)
        self.u = np.asfortranarray(u) if order == "F" else u
        self.nu = 0.1
        self.steps = 0
        self.history = []
        self.label = "rod"
        self.log = threading.Lock()     # an attribute no compiled code can hold

    @property
    def dx(self):
        return 1.0 / (self.u.shape[0] - 1)

    def laplacian(self):
        return (self.u[2:] - 2 * self.u[1:-1] + self.u[:-2]) / self.dx ** 2

    def step(self, dt):
        self.u[1:-1] = self.u[1:-1] + self.nu * dt * self.laplacian()
        return self.u.sum()

    def energy(self, w=2.0):
        e = 0.0
        for i in range(self.u.shape[0]):     # a C-style loop over the state
            e += w * self.u[i] * self.u[i]
        return e

    def rename(self, s):
        self.label = s

    def read_log(self):
        return self.log


class CompiledRod(Rod):
    step = solvent.jit(Rod.step)


JITS = {b: solvent.jit(Rod.step, backend=b) for b in BACKENDS}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n,dtype,order", [(9, np.float64, "C"), (5, np.float32, "F"),
                                           (3, np.float64, "C")])
def test_a_decorated_method_updates_the_object_as_numpy(backend, n, dtype, order):
    mine, ref = Rod(n, dtype, order), Rod(n, dtype, order)
    step = JITS[backend].__get__(mine)
    for k in range(3):
        got, want = step(1e-3), ref.step(1e-3)
        assert type(got) is type(want) and np.allclose(got, want, rtol=1e-6)
        mine.history.append(mine.u.copy())     # never read by step: no recompilation
    assert mine.u.dtype == ref.u.dtype and np.allclose(mine.u, ref.u, rtol=1e-6)
    assert len(JITS[backend]._cache) >= 1


def test_the_class_attribute_form_and_unread_attributes_do_not_recompile():
    rod, ref = CompiledRod(7), Rod(7)
    for k in range(4):
        rod.step(1e-3)
        ref.step(1e-3)
        rod.history.append(k)          # grows; step never reads it
        rod.steps += 1                 # a number step never reads
    assert np.allclose(rod.u, ref.u)
    assert len(CompiledRod.step._cache) == 1


def test_jit_of_a_bound_method_and_a_default_argument():
    rod = Rod(6, np.float32)
    f = solvent.jit(rod.energy)
    assert np.isclose(f(), rod.energy(), rtol=1e-6)
    assert np.isclose(f(w=0.5), rod.energy(w=0.5), rtol=1e-6)


def test_assigning_an_attribute_is_refused_with_the_line():
    with pytest.raises(solvent.UnsupportedError, match=r"test_methods.py:\d+.*assigning an "
                       r"attribute of self"):
        solvent.jit(Rod(4).rename)("new")


def test_reading_an_attribute_compiled_code_cannot_hold_names_it():
    with pytest.raises(solvent.UnsupportedError, match=r"self.log \(a lock\) cannot be read"):
        solvent.jit(Rod(4).read_log)()


def test_two_attributes_holding_one_array_are_an_alias_error():
    rod = Rod(5)
    rod.v = rod.u        # one array under two names, one of them written

    def shift(self):
        self.u[1:] = self.v[:-1]
        return self.u

    with pytest.raises(solvent.UnsupportedError, match="'self.u' and 'self.v' share memory"):
        solvent.jit(shift, backend="native")(rod)


class Escapes:
    def __init__(self):
        self.a = np.ones(3)
        self.b = np.zeros(2)

    def uses(self):
        return self.a.sum() + helper(self)

    def reads(self):
        return self.a * 2


def helper(obj):
    return obj.b.sum()


def test_reads_are_known_from_the_source_unless_self_escapes():
    from solvent.frontend.self_reads import self_reads
    assert self_reads(Rod.step, Rod) == {"u", "nu", "laplacian", "dx"}
    assert self_reads(Escapes.reads, Escapes) == {"a"}
    assert self_reads(Escapes.uses, Escapes) is None     # passed whole: helper reads .b
    e = Escapes()
    assert solvent.jit(e.uses)() == e.uses()


class Damped:
    """Constants in the class body, read through self (Python finds them on the class)."""
    gamma = 0.5
    weights = np.array([1.0, 2.0, 3.0])

    def __init__(self):
        self.v = np.ones(3)

    def step(self, dt):
        self.v -= self.gamma * dt * self.v * self.weights
        return self.v.sum()


def test_class_attributes_are_read_on_every_call():
    d, ref = Damped(), Damped()
    f = solvent.jit(d.step, backend="native")
    assert np.isclose(f(0.1), ref.step(0.1))
    Damped.gamma = 2.0                 # the class changes between calls: seen on the next
    try:
        assert np.isclose(f(0.1), ref.step(0.1))
    finally:
        Damped.gamma = 0.5
    assert np.allclose(d.v, ref.v)


class Clock:
    def __init__(self):
        self.t = 0.0
        self.u = np.zeros(2)

    def tick(self, dt):
        self.u += dt              # in place on the object's array: fine
        self.t += dt              # rebinds a number attribute: refused
        return self.t


def test_an_augmented_number_attribute_is_refused_with_the_line():
    with pytest.raises(solvent.UnsupportedError, match=r"test_methods.py:\d+.*changing the "
                       "attribute 't' of self"):
        solvent.jit(Clock().tick)(0.5)
