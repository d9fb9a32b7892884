"""Every rewrite pattern is validated: it fires on its sample, and the interpreter gives the
same results before and after on random inputs of edge shapes (size 0, size 1, non-square);
a deliberately wrong pattern is caught by the same check."""
import copy

import numpy as np
import pytest

import solvent  # noqa: F401
from solvent.backends.interp import run
from solvent.ir.parser import parse_function
from solvent.ir.printer import print_function
from solvent.ir.rewrite import Pattern, apply_patterns
from solvent.ir.types import np_dtype
from solvent.ir.verifier import verify
from solvent.passes.patterns import ALL
from solvent.passes.patterns.algebra import GRADIENT_ONLY
from solvent.passes.patterns.split_products import NATIVE_SPLIT
from solvent.passes.patterns.updates import SINK_UPDATES
from solvent.passes.patterns.window_chains import WINDOW_CHAINS
from solvent.passes.patterns._samples import unary_chain
from solvent.backends.native.reread_updates import REREAD_UPDATES
from tests.differential import check, function_from_source

SHAPES = [(0, 3), (1, 1), (3, 5), (4, 2)]


def _inputs(fn, rng):
    out = []
    for a in fn.args:
        dt = np_dtype(a.type.dtype)
        if dt.kind == "b":
            out.append(rng.random(a.type.shape) > 0.5)
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            out.append(rng.integers(max(info.min, -100), min(info.max, 100), a.type.shape,
                                    dtype=dt))
        else:
            v = rng.standard_normal(a.type.shape) * 3
            flat = v.reshape(-1)
            special = np.array([np.nan, -0.0, np.inf, -np.inf])[:flat.size]
            flat[:special.size] = special
            imag = v[::-1] if np.ndim(v) else v   # (a complex scalar argument: one value)
            out.append(v.astype(dt) if dt.kind == "f" else (v + 1j * imag).astype(dt))
    return out


def validate(pattern, shape):
    """(fired, before results, after results) on the sample at ``shape``."""
    fn = pattern.sample(shape)
    verify(fn)
    before_fn = parse_function(print_function(fn))
    fired = apply_patterns(fn, [pattern])
    verify(fn)
    rng = np.random.default_rng(sum(shape))
    results = []
    for _ in range(3):
        args = _inputs(fn, rng)
        results.append((run(before_fn, copy.deepcopy(args)), run(fn, copy.deepcopy(args))))
    return fired, results


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and (
        np.array_equal(a, b, equal_nan=True) if a.dtype.kind in "fc" else np.array_equal(a, b))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("pattern", ALL + GRADIENT_ONLY + SINK_UPDATES + WINDOW_CHAINS +
                         REREAD_UPDATES + NATIVE_SPLIT, ids=lambda p: p.name)
def test_pattern_fires_and_keeps_results(pattern, shape):
    assert pattern.doc and pattern.sample is not None, f"{pattern.name}: identity and sample"
    fired, results = validate(pattern, shape)
    assert fired >= 1, f"{pattern.name} did not fire on its sample"
    for before, after in results:
        assert len(before) == len(after)
        for x, y in zip(before, after):
            assert _same(x, y), f"{pattern.name} changed a result at {shape}:\n{x}\n{y}"


def _wrong_sub(op, rw):
    rw.replace_op(op, [rw.one("tensor.add", op.operands[0], op.operands[1])])
    return True


WRONG = Pattern("sub-is-add", "tensor.sub", _wrong_sub, "x - y -> x + y (WRONG)",
                sample=unary_chain(lambda b, x: b.one("tensor.sub", x,
                                                      b.one("tensor.neg", x)), "f64"))


def test_a_wrong_pattern_is_caught():
    fired, results = validate(WRONG, (3, 5))
    assert fired >= 1
    assert any(not _same(x, y) for before, after in results for x, y in zip(before, after))


def test_pattern_names_are_unique_and_rows_compose():
    from solvent.passes.patterns import (ALGEBRA, MASKS, NESTED_UPDATES, PRODUCTS,
                                         READ_AFTER_UPDATE, SHAPES, SPLIT_PRODUCTS)
    names = [p.name for p in ALL + GRADIENT_ONLY + SINK_UPDATES + WINDOW_CHAINS + NATIVE_SPLIT]
    assert len(names) == len(set(names))
    assert ALL == ALGEBRA + SHAPES + READ_AFTER_UPDATE + NESTED_UPDATES + PRODUCTS + \
        SPLIT_PRODUCTS + MASKS


def test_int_range_bounds_and_refusals():
    """int_range: clip chains, selects and shifted iotas give bounds; a float, a conversion
    from float, an add that could wrap and an iota longer than its dtype give none."""
    from solvent.ir.types import TensorType
    from solvent.passes.patterns.algebra import int_range
    from solvent.passes.patterns._samples import _function

    found = {}

    def body(b, x):
        i8 = b.one("tensor.iota", dim=0, dtype="i8", shape=[300])
        clipped = b.one("tensor.min", b.one("tensor.max", x, b.constant(-2, "i64")),
                        b.constant(9, "i64"))
        found["clip"] = clipped
        found["half"] = b.one("tensor.max", x, b.constant(4, "i64"))
        found["shift"] = b.one("tensor.add", clipped, b.constant(10, "i64"))
        found["select"] = b.one("tensor.select", b.one("tensor.gt", x, x), clipped,
                                b.one("tensor.broadcast_to", b.constant(40, "i64"),
                                      shape=[5]))
        found["wrap"] = b.one("tensor.add", found["half"], b.constant(2 ** 62, "i64"))
        found["iota_i8"] = i8
        found["float"] = b.one("tensor.convert", x, dtype="f64")
        return clipped
    _function("ranges", [TensorType((5,), "i64")], body)
    assert int_range(found["clip"]) == (-2, 9)
    assert int_range(found["half"]) == (4, None)
    assert int_range(found["shift"]) == (8, 19)
    assert int_range(found["select"]) == (-2, 40)
    assert int_range(found["wrap"]) is None
    assert int_range(found["iota_i8"]) is None
    assert int_range(found["float"]) is None


def test_int64_round_trip_keeps_signs_and_the_cast_of_nan_and_huge_values():
    """float(int64(floor(x))) and its rewrite agree bit for bit (``_same`` would take -0.0
    for 0.0): a floor of -0.0 gives +0.0 through int64, NaN, inf and |x| >= 2**63 give
    int64's minimum."""
    pattern = next(p for p in ALL if p.name == "int64-round-trip")
    fn = pattern.sample((2, 6))
    before = parse_function(print_function(fn))
    assert apply_patterns(fn, [pattern]) == 1
    x = np.array([[-0.0, -0.5, 0.5, np.nan, np.inf, -np.inf],
                  [2.0 ** 63, -2.0 ** 63, 2.0 ** 63 - 1024, -1e19, 1e300, -3.5]])
    (want,), (got,) = run(before, [x]), run(fn, [x])
    assert np.array_equal(np.signbit(want), np.signbit(got))
    np.testing.assert_array_equal(got, want)


def _code_chain(b, x, depth=24):
    """c_{k+1} = select((x > k) & (c_k == 0), k, c_k): each code read by the next one twice
    (the raised checks of a loop body with many failing operations), gathered at one index."""
    code = b.one("tensor.broadcast_to", b.constant(0, "i32"), shape=list(x.type.shape))
    zero = b.constant(0, "i32")
    for k in range(1, depth + 1):
        hit = b.one("tensor.and", b.one("tensor.gt", x, b.constant(float(k), x.type.dtype)),
                    b.one("tensor.eq", code, zero))
        code = b.one("tensor.select", hit, b.constant(k, "i32"), code)
    at = b.one("tensor.broadcast_to", b.constant(1, "i64"), shape=[1])
    return b.one("tensor.gather", code, at, axes=[0], front=True, unchecked=True)


def test_reads_pushed_through_a_dag_do_not_copy_it_per_path():
    """A read pushed through elementwise ops whose values are read along two paths each must
    read each value once: copying per path turns the DAG into a tree, 2**depth ops (24 deep:
    the rewrite budget runs out; ufunc_mix_loops' checks grew from 151 ops to 12,778)."""
    fn = unary_chain(_code_chain, "f64")((5,))
    before = parse_function(print_function(fn))
    n0 = sum(1 for _ in fn.walk())
    assert apply_patterns(fn, ALL) > 0
    verify(fn)
    assert sum(1 for _ in fn.walk()) <= 2 * n0
    x = np.random.default_rng(0).uniform(0, 30, 5)
    assert _same(run(before, [x]), run(fn, [x]))


def _unrolled(n_statements, slots):
    """Straight-line code as generated or hand-unrolled: every statement reads one slot of
    ``b`` and of ``a`` and writes a slot of ``b``."""
    lines = ["def unrolled(a, b):"] + [
        f"    b[{i % slots}] = b[{i % slots}] + a[{(i * 7) % slots}] * {i % 5 + 1}.0"
        for i in range(n_statements)] + ["    return b"]
    return function_from_source("\n".join(lines) + "\n", "unrolled",
                                f"unrolled-{n_statements}-{slots}")


@pytest.mark.parametrize("backend", ["interp", "native"])
def test_long_straight_line_code_compiles_and_matches_numpy(backend):
    """300 unrolled statements over 40 slots: each read of b moves back past up to 39
    updates of other slots. One rewrite per update passed was ~11,000 rewrites, beyond the
    driver's budget of 10,000 (IRError), and 1500 statements took 75 s; the whole chain is
    one rewrite now."""
    fn = _unrolled(300, 40)
    rng = np.random.default_rng(0)
    check(fn, rng.random(40), rng.random(40), backend=backend)


def _elif_chain(branches):
    """A lookup written as a chain of elifs, as code ported from C's else-if ladders."""
    src = ("def ladder(x, out):\n    for i in range(x.shape[0]):\n        v = x[i]\n"
           "        if v < 0.0:\n            out[i] = -1.0\n" +
           "".join(f"        elif v < {k / 100:.2f}:\n            out[i] = {k}.0\n"
                   for k in range(1, branches)) +
           "        else:\n            out[i] = 1000.0\n    return out\n")
    return function_from_source(src, "ladder", f"ladder-{branches}")


def test_a_long_elif_chain_compiles_and_matches_numpy():
    """150 elifs, each a level of nesting: 6.8 s to compile (the dependence test of every
    pair of the 150 writes, walks of every nested block once per level); now ~1 s."""
    x = np.random.default_rng(1).uniform(-0.1, 1.6, 300)
    check(_elif_chain(150), x, np.zeros(300), backend="interp")


def test_an_elif_chain_past_the_recursion_limit_is_refused_with_the_reason():
    """260 elifs reach Python's recursion limit in the frontend: an UnsupportedError that
    says so and what to do, not a RecursionError from inside the compiler."""
    fn = _elif_chain(260)
    x = np.zeros(4)
    with pytest.raises(solvent.UnsupportedError, match="nests blocks too deeply") as e:
        solvent.jit(fn, backend="interp")(x, np.zeros(4))
    assert "np.select" in str(e.value)
