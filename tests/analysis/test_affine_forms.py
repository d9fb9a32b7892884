"""Affine forms of index expressions, on the IR the compiler produces."""
import inspect

import numpy as np
import pytest

import dep_kernels as K
from solvent.analysis import Affine, LoopInfo, tensor_ir

N = 12


@pytest.fixture(scope="module")
def probe():
    fn = tensor_ir(K.probes, np.arange(N, dtype=np.float64), np.ones((5, 5)),
                   np.array([0, 2, 4, 6]), np.zeros(9))
    info = LoopInfo(fn)
    lines, first = inspect.getsourcelines(K.probes)
    by_marker = {}
    for k, text in enumerate(lines):
        if "B[" in text and "] = " in text:
            by_marker[text.split("]")[0].strip() + "]"] = first + k
    reads = {}
    for op in fn.walk():
        if op.name == "tensor.slice" and op.loc is not None and \
                info.array_name(op.operands[0]) in ("x", "A"):
            reads[op.loc.line] = op
    outer, inner = [lp for lp in info.loops]
    return info, by_marker, reads, LoopInfo.iv(outer), LoopInfo.iv(inner), inner


def _form(probe, marker, dim=0):
    info, by_marker, reads, _, _, _ = probe
    op = reads[by_marker[marker]]
    spec = op.attrs["spec"]
    return info.affine(op.operands[1 + spec[dim][1]])


def _evaluate(form, env):
    total = form.const
    for v, c in form.terms.items():
        total += c * env[v]
    return total


@pytest.mark.parametrize("marker,expr,text", [
    ("B[0]", lambda i, j: 2 * i + 1, "2*i+1"),
    ("B[2]", lambda i, j: N - 1 - i, f"{N - 1}-i"),
    ("B[7]", lambda i, j: -i - 1, "-i-1"),
    ("B[8]", lambda i, j: 3 * i + j, "3*i+j"),
])
def test_affine_index_forms(probe, marker, expr, text):
    info, _, _, iv_i, iv_j, inner = probe
    form = _form(probe, marker)
    assert set(form.terms) <= {iv_i, iv_j}
    for i in range(1, 4):
        for j in range(i):
            assert _evaluate(form, {iv_i: i, iv_j: j}) == expr(i, j)
    assert info.render(form) == text
    assert info.nonaffine_reasons(form, inner) == []


def test_difference_of_loop_variables(probe):
    info, _, _, iv_i, iv_j, inner = probe
    form = _form(probe, "B[1]", dim=0)
    assert form.terms == {iv_i: 1, iv_j: -1} and form.const == 0
    assert info.render(form) == "i-j"
    assert info.bounds(form) == (1, 3)  # exact over the triangle j < i


def test_non_affine_indices(probe):
    info, _, _, iv_i, iv_j, inner = probe
    for marker, reason in (("B[3]", "product of two non-constant values"),
                           ("B[4]", "value read from an array"),
                           ("B[5]", "floor division"), ("B[6]", "modulo")):
        form = _form(probe, marker)
        assert [r for _, r in info.nonaffine_reasons(form, info.loops[0])] == [reason], marker
    assert info.name(next(iter(_form(probe, "B[4]").terms))) == "idx[i]"
    assert info.name(next(iter(_form(probe, "B[3]").terms))) == "(i*j)"


def test_opaque_value_is_a_symbol_only_outside_its_loop(probe):
    """``idx[i]`` changes with ``i``, so it is non-affine for the ``i`` loop; for the ``j``
    loop it is non-affine exactly when it is computed inside that loop."""
    info, _, _, iv_i, iv_j, inner = probe
    for marker in ("B[4]", "B[3]"):
        form = _form(probe, marker)
        (atom,) = form.terms
        assert bool(info.nonaffine_reasons(form, inner)) == info.inside(atom, inner)
    (prod,) = _form(probe, "B[3]").terms
    assert info.inside(prod, inner)  # i*j depends on j: it cannot leave the j loop


def test_triangular_bound_is_an_affine_form(probe):
    info, _, _, iv_i, iv_j, inner = probe
    lb, ub, step = info.loop_bounds(inner)
    assert lb.is_const and lb.const == 0 and step == 1
    assert ub.terms == {iv_i: 1} and ub.const == 0
    assert info.trip_max(inner) == 3
    assert info.bounds(Affine.atom(iv_j)) == (0, 2)


def test_affine_arithmetic():
    a = Affine(1, {"i": 2})
    b = Affine(-1, {"i": 2, "j": 1})
    d = a - b
    assert d.const == 2 and d.terms == {"j": -1}
    assert (a + b).scale(2).terms == {"i": 8, "j": 2}
    assert a.substitute("i", Affine(3)).const == 7
