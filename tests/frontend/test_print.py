"""``print`` inside a compiled function: the text on stdout is what plain Python and NumPy
print running the same source (the oracle), on every backend, in program order, and a
line after a failure is never printed (the error is the same as NumPy's)."""
import copy

import numpy as np
import pytest

import solvent
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.verifier import verify

BACKENDS = ["interp", "xla", "native", None]   # None: automatic choice


def progress(n, x):                        # a time loop that reports every other step
    for t in range(n):
        x = x * 0.5
        if t % 2 == 0:
            print("step", t, x.sum(), f"mean={x.mean():.3f} t={t!r} {x[0]!r}")
    print(x, sep="|", end="!\n")
    return x


def kinds(k, a, b):                        # Python scalars print as Python, NumPy's as NumPy
    s = float(a[0])
    print(k, k * 2, s, a[0], a.shape, b, sep=", ")
    print(f"{k:>4d}|{s:.2e}|{a[1]!r}|{b[0]!s}|{int(b.sum())}")
    print()
    return a


def fails_midway(A, idx):                  # NumPy prints two lines, then raises IndexError
    total = 0.0
    for i in range(idx.shape[0]):
        print("reading", idx[i])
        total += A[idx[i]]
    return total


def then_print(A, k):                      # the check fails before the print: no line
    v = A[k]
    print("got", v)
    return v


def dependent_sweep(u):                    # a Gauss-Seidel sweep that reports each row
    for i in range(1, u.shape[0]):
        u[i] = 0.5 * (u[i] + u[i - 1])
        print(i, u[i])
    return u


def independent(x):                        # data-parallel: stays an ordered loop
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i] * 2
        print(i, y[i])
    return y


def masked(z):                             # a value of run-time length
    print(z[z > 0.5])
    return z


def _stdout(fn, args, capsys):
    try:
        with np.errstate(all="ignore"):
            fn(*copy.deepcopy(args))
        err = None
    except Exception as e:
        err = e
    return capsys.readouterr().out, err


def _same(fn, args, backend, capsys):
    expected, err = _stdout(fn, args, capsys)
    jf = solvent.jit(fn, backend=backend)
    if err is not None:
        with pytest.raises(type(err)):
            jf(*copy.deepcopy(args))
    else:
        got = jf(*copy.deepcopy(args))
        assert capsys.readouterr().out == expected
        ref = fn(*copy.deepcopy(args))
        np.testing.assert_allclose(np.asarray(got), np.asarray(ref))
        capsys.readouterr()
        jf(*copy.deepcopy(args))   # a second call prints again
    assert capsys.readouterr().out == expected
    assert expected or err is not None     # the oracle printed something, or it raised


R = np.random.default_rng(5)
CASES = [
    (progress, (5, np.ones(4))),
    (progress, (0, np.arange(3.0))),
    (progress, (3, np.ones((2, 3), np.float32))),
    (kinds, (3, np.array([0.1, 0.2], np.float32), np.array([1, -2], np.int8))),
    (kinds, (-7, np.array([1e300, np.nan]), np.array([True, False]))),
    (fails_midway, (np.arange(4.0), np.array([1, 3, 9, 0]))),
    (fails_midway, (np.arange(4.0), np.array([-1, 2]))),
    (then_print, (np.arange(3.0), 7)),
    (then_print, (np.arange(3.0), -1)),
    (dependent_sweep, (R.standard_normal(6),)),
    (independent, (np.asfortranarray(R.standard_normal(5)),)),
]


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b or "auto")
@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in
                                                 enumerate(CASES)])
def test_printed_text_is_numpys(fn, args, backend, capsys):
    _same(fn, args, backend, capsys)


@pytest.mark.parametrize("backend", ["interp", "native", None], ids=lambda b: b or "auto")
def test_print_of_a_run_time_length_value(backend, capsys):
    _same(masked, (R.random(7),), backend, capsys)


def test_a_loop_that_prints_is_neither_raised_nor_parallel(monkeypatch, capsys):
    """Raising would print the whole array once, a parallel loop in any order: the IR keeps
    the loop, and every iteration's line comes out in order with threads forced on."""
    monkeypatch.setenv("SOLVENT_PARALLEL_THRESHOLD", "0")
    x = np.arange(64.0)
    text = solvent.jit(independent, backend="native").explain(x)
    final = text.split("## after")[-1]
    assert "loop.for" in final and "parallel = true" not in final
    _same(independent, (x,), "native", capsys)


def test_the_print_op_prints_and_parses_back():
    jf = solvent.jit(kinds, backend="interp")
    text = jf.explain(3, np.array([0.1, 0.2]), np.array([1, 2]))
    stage = text.split("## after dce", 1)[1].split("## after", 1)[0].strip()
    fn = parse_function(stage)
    verify(fn)
    assert "io.print" in stage and print_function(fn).strip() == stage


def test_dead_code_elimination_keeps_a_loop_that_only_prints(capsys):
    def count(n):
        for i in range(n):
            print(i)
    solvent.jit(count, backend="native")(3)
    assert capsys.readouterr().out == "0\n1\n2\n"


def _file_kw(x):
    import sys
    print(x, file=sys.stderr)


def _cond_print(x):
    return x[0] > 0 and print(x)


def test_unsupported_prints_name_the_line():
    with pytest.raises(solvent.UnsupportedError, match=r"test_print.py:\d+:\d+: print\(\.\.\., file"):
        solvent.jit(_file_kw)(np.ones(2))
    with pytest.raises(solvent.UnsupportedError, match="conditional expression"):
        solvent.jit(_cond_print)(np.ones(2))


def simulate(x, n):
    for t in range(n):
        x = np.sin(x) * 1.1
        print("t", t, x.sum())
    return (x ** 2).sum()


def settle(x, tol):
    k = 0
    while np.abs(x).max() > tol:
        x = x * 0.5
        k += 1
        print(f"iteration {k}: {np.abs(x).max():.4f}")
    return (x * x).sum()


@pytest.mark.parametrize("checkpoints", [None, 1, 2])
def test_a_gradient_prints_the_forward_sweep_once(checkpoints, capsys):
    """The reverse sweep recomputes trips (and checkpointing whole segments): the lines
    come out once, in the forward order, as running the function does."""
    x = np.linspace(0.1, 1, 5)
    simulate(x, 6)
    expected = capsys.readouterr().out
    kw = {} if checkpoints is None else {"checkpoints": checkpoints}
    v, g = solvent.value_and_grad(simulate, **kw)(x, 6)
    assert capsys.readouterr().out == expected
    assert np.isclose(v, simulate(x, 6))
    capsys.readouterr()
    h = 1e-6
    e = np.zeros(5)
    e[2] = h
    fd = (simulate(x + e, 6) - simulate(x - e, 6)) / (2 * h)
    capsys.readouterr()
    assert np.isclose(g[2], fd, rtol=1e-6)


def test_a_while_loop_gradient_prints_once(capsys):
    x = np.array([3.0, -1.5, 0.25])
    settle(x, 0.1)
    expected = capsys.readouterr().out
    g = solvent.grad(settle)(x, 0.1)
    assert capsys.readouterr().out == expected
    np.testing.assert_allclose(g, 2 * x * 0.5 ** (2 * expected.count("\n")))
