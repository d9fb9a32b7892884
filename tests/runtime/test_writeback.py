"""Write-back into the caller's arrays: keyed by the caller's argument positions, and atomic.

Compile-time arguments (an int that decides a shape, None, a string, a tuple) have no IR
argument, so an IR argument index is not a caller position. These kernels put such
arguments before, between and after the arrays they write; every case is compared with
NumPy on the same source (``differential.check`` compares every argument after the call).
"""
import itertools
import linecache
import signal

import numpy as np
import pytest

import solvent
from differential import check


def copy_prefix(n, A, B):           # the issue's repro: A is never written
    B[:n] = A[:n]


def swap_loop(T, A, B):              # the README's time loop, step count first
    for t in range(T):
        B[1:-1] = 0.5 * (A[:-2] + A[2:])
        A, B = B, A


def test_issue_repro_compile_time_int_first(backend):
    check(copy_prefix, 2, np.arange(5.0), np.zeros(5), backend=backend)


@pytest.mark.parametrize("T", [0, 1, 2, 3])
def test_swap_loop_with_step_count_first(T, backend):
    check(swap_loop, T, np.arange(6.0), np.zeros(6), backend=backend)


# kernels with a compile-time argument `s` in every position among two arrays, one written
# and one only read; `s` is used so that it has to be compile-time (a slice length, a string
# branch, a None test, a tuple of lengths)
def _body_uses(kind):
    return {
        "int": "    W[:s] = R[:s] * 2.0\n",
        "none": "    if s is None:\n        W[:] = R + 1.0\n",
        "str": "    if s == 'add':\n        W[:] = W + R\n",
        "tuple": "    W[:s[0]] = R[:s[0]] - 1.0\n",
    }[kind]


_VALUES = {"int": 3, "none": None, "str": "add", "tuple": (2, 1)}


def _make(kind, order):
    params = ", ".join(order)
    src = f"def k({params}):\n" + _body_uses(kind)
    name = f"<writeback-{kind}-{'-'.join(order)}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)  # for inspect
    ns: dict = {}
    exec(compile(src, name, "exec"), ns)
    return ns["k"]


_CASES = [pytest.param(kind, order, id=f"{kind}-{'_'.join(order)}")
          for kind in _VALUES for order in itertools.permutations(["s", "W", "R"])]


@pytest.mark.parametrize("kind,order", _CASES)
def test_compile_time_argument_in_any_position(kind, order, backend):
    fn = _make(kind, order)
    vals = {"s": _VALUES[kind], "W": np.arange(5.0), "R": np.linspace(1.0, 2.0, 5)}
    check(fn, *[vals[p] for p in order], backend=backend)


def two_writes(s, A, t, B):
    A[:s] = 1.0
    B[:t] = 2.0


def test_two_compile_time_arguments_between_written_arrays(backend):
    check(two_writes, 2, np.zeros(4), 3, np.zeros(5), backend=backend)


# --- atomicity: nothing is written unless everything can be ------------------------------

def writes_both(s, A, B):
    A[:s] = 7.0
    B[:s] = 8.0


def test_read_only_second_array_leaves_first_untouched():
    A, B = np.zeros(4), np.zeros(4)
    B.flags.writeable = False
    with pytest.raises(ValueError, match="'B' is read-only"):
        solvent.jit(writes_both)(2, A, B)
    assert not A.any()


def test_aliasing_is_refused_before_any_write():
    base = np.zeros(8)
    A, B = base[:4], base[2:6]
    with pytest.raises(solvent.UnsupportedError, match="share memory"):
        solvent.jit(writes_both)(2, A, B)
    assert not base.any()


def test_interrupt_during_write_back_is_held_until_every_array_is_written(monkeypatch):
    """A SIGINT that lands between two copies is raised after the last one: the caller sees
    all updates or (had it come earlier) none."""
    import solvent.runtime.jit as rt
    real_copyto = np.copyto
    calls = []

    def copyto(dst, src, **kw):
        calls.append(1)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)   # arrives between the first and second copy
        real_copyto(dst, src, **kw)

    monkeypatch.setattr(rt.np, "copyto", copyto)
    A, B = np.zeros(4), np.zeros(4)
    with pytest.raises(KeyboardInterrupt):   # XLA's results are copied back; native
        solvent.jit(writes_both, backend="xla")(2, A, B)   # writes in place, no copies
    assert len(calls) == 2
    assert (A[:2] == 7.0).all() and (B[:2] == 8.0).all()
