"""Containers passed in (frontend/arg_trees.py): dicts of parameters, dataclasses,
SimpleNamespace, namedtuples, lists and tuples of arrays, *args, **kwargs and keyword-only
parameters, called the way scientists' code calls them. NumPy on deep copies is the oracle,
the arrays inside included (writes into them must reach the caller's arrays)."""
from __future__ import annotations

import copy
import types
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest

import solvent
from differential import assert_same_value

BACKENDS = ["native", "xla", "interp", None]


@dataclass
class Params:
    dt: float
    nu: float
    steps: int
    scheme: str = "ftcs"


State = namedtuple("State", ["u", "v"])


def diffuse_dict(u, p):
    for _ in range(p["steps"]):
        u = u + p["dt"] * p["nu"] * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return u


def diffuse_object(u, p):
    out = u.copy()
    for _ in range(p.steps):
        if p.scheme == "ftcs":
            out[1:-1] += p.dt * p.nu * (out[:-2] - 2 * out[1:-1] + out[2:])
    return out


def dict_iteration(p):
    s = 0.0
    for k in p:
        if k != "skip":
            s += p[k]
    for k, v in p.items():
        s -= 0.5 * v
    return s, "dt" in p, "zz" not in p


def nested(cfg):
    g = cfg["grid"]
    return g["x"] * cfg["scale"] + g["offset"][0], cfg.get("missing", 2.5), len(cfg["grid"])


def update_state(s, k):
    s.u[:] = s.u + k * s.v          # in place, through the container
    return s[1].sum()


def list_of_arrays(xs, w):
    total = np.zeros_like(xs[0])
    for x, c in zip(xs, w):
        total += c * x
    return total, len(xs)


def star_args(scale, *arrays):
    s = 0.0
    for a in arrays:
        s += scale * a.sum()
    return s


def keyword_only(x, *, alpha=1.0, mode="add"):
    return x + alpha if mode == "add" else x * alpha


def star_kwargs(x, **opts):
    return x * opts["gain"] + opts.get("bias", 0.0)


def namespace_state(st):
    st.pos[:] += st.vel * st.dt
    return st.pos


_JITS: dict = {}


def _same_call(fn, backend, *args, **kwargs):
    a_np, k_np = copy.deepcopy(args), copy.deepcopy(kwargs)
    a_sv, k_sv = copy.deepcopy(args), copy.deepcopy(kwargs)
    want = fn(*a_np, **k_np)
    if (fn, backend) not in _JITS:     # one jit per kernel: versions are cached as users get
        _JITS[fn, backend] = solvent.jit(fn, backend=backend)
    got = _JITS[fn, backend](*a_sv, **k_sv)
    assert_same_value(got, want, f"{fn.__name__}[{backend}] result")
    _same_leaves(a_sv, a_np, fn.__name__)
    _same_leaves(k_sv, k_np, fn.__name__)
    return got


def _same_leaves(got, want, what):
    if isinstance(want, np.ndarray):
        assert_same_value(got, want, f"{what}: an array passed in, after the call")
    elif isinstance(want, dict):
        for k in want:
            _same_leaves(got[k], want[k], what)
    elif isinstance(want, (list, tuple)):
        for g, w in zip(got, want):
            _same_leaves(g, w, what)
    elif hasattr(want, "__dict__"):
        for k in vars(want):
            _same_leaves(getattr(got, k), getattr(want, k), what)


@pytest.mark.parametrize("backend", BACKENDS)
def test_parameter_dicts_and_dataclasses(backend):
    rng = np.random.default_rng(0)
    u = rng.random(16)
    _same_call(diffuse_dict, backend, u, {"dt": 0.1, "nu": 0.5, "steps": 3})
    _same_call(diffuse_object, backend, u, Params(0.1, 0.5, 4))
    _same_call(diffuse_object, backend, u[::2], Params(0.2, 0.25, 2, "none"))
    _same_call(nested, backend, {"grid": {"x": rng.random((2, 3)), "offset": (1.5, 2)},
                                 "scale": np.float32(2)})
    _same_call(dict_iteration, backend, {"dt": 0.1, "nu": rng.random(3), "skip": 7})


@pytest.mark.parametrize("backend", BACKENDS)
def test_new_parameter_values_are_used_and_keys_recompile(backend):
    f = solvent.jit(diffuse_dict, backend=backend)
    u = np.linspace(0.0, 1.0, 8) ** 2
    for p in ({"dt": 0.1, "nu": 0.5, "steps": 2}, {"dt": 0.3, "nu": 0.5, "steps": 2},
              {"dt": 0.1, "nu": 0.5, "steps": 5}, {"nu": 0.5, "dt": 0.1, "steps": 1}):
        assert_same_value(f(u, p), diffuse_dict(u, p), f"diffuse_dict {p}")
    with pytest.raises(KeyError):
        f(u, {"dt": 0.1, "steps": 1})


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_through_containers_reach_the_callers_arrays(backend):
    rng = np.random.default_rng(1)
    _same_call(update_state, backend, State(rng.random(5), rng.random(5)), 0.5)
    _same_call(update_state, backend, State(np.asfortranarray(rng.random((3, 2))),
                                            rng.random((3, 2)).astype(np.float32)), 2)
    st = types.SimpleNamespace(pos=rng.random(4), vel=rng.random(4), dt=0.01)
    _same_call(namespace_state, backend, st)
    keep = types.SimpleNamespace(pos=rng.random(4), vel=rng.random(4), dt=0.5)
    out = solvent.jit(namespace_state, backend=backend)(keep)
    assert out is keep.pos or np.shares_memory(out, keep.pos) or np.array_equal(out, keep.pos)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sequences_star_args_and_keywords(backend):
    rng = np.random.default_rng(2)
    xs = [rng.random(4), rng.random(4), rng.random(4)]
    _same_call(list_of_arrays, backend, xs, (0.5, -1, 2.0))
    _same_call(list_of_arrays, backend, tuple(x.astype(np.int8) for x in xs), [1, 2, 3])
    _same_call(star_args, backend, 2.0, rng.random(3), rng.random((2, 2)))
    _same_call(star_args, backend, 2.0)
    _same_call(keyword_only, backend, rng.random(3))
    _same_call(keyword_only, backend, rng.random(3), alpha=3.0, mode="mul")
    _same_call(star_kwargs, backend, rng.random(3), gain=2.0)
    _same_call(star_kwargs, backend, rng.random(3), gain=np.float32(2), bias=rng.random(3))


def changes_dict(p):
    p["dt"] = 0.5
    return p["dt"]


def changes_attribute(p):
    p.dt = 0.5
    return p.dt


def appends(xs):
    xs.append(np.zeros(2))
    return len(xs)


def sets_item(xs):
    xs[0] = np.ones(2)
    return xs[0]


def extends_in_place(xs):
    xs += [np.ones(2)]
    return len(xs)


def updates(p):
    p.update({"dt": 1.0})
    return p["dt"]


@pytest.mark.parametrize("fn, arg", [
    (changes_dict, {"dt": 0.1}), (changes_attribute, Params(0.1, 0.2, 1)),
    (appends, [np.zeros(2)]), (sets_item, [np.zeros(2)]), (extends_in_place, [np.zeros(2)]),
    (updates, {"dt": 0.1})])
def test_changing_a_container_passed_in_is_refused_with_the_line(fn, arg):
    with pytest.raises(solvent.UnsupportedError,
                       match=r"test_container_arguments.py:\d+.*would not reach the caller"):
        solvent.jit(fn)(copy.deepcopy(arg))


def reads(p):
    return p["a"]


def test_an_item_of_another_type_is_named():
    with pytest.raises(solvent.UnsupportedError, match=r"argument p\['b'\] \(a object\)"):
        solvent.jit(reads)({"a": np.zeros(2), "b": object()})
    with pytest.raises(solvent.UnsupportedError, match=r"p\['b'\]\['c'\] \(a set\)"):
        solvent.jit(reads)({"a": np.zeros(2), "b": {"c": {1, 2}}})


def test_fallback_python_gets_the_call_as_it_was():
    f = solvent.jit(keyword_only, fallback="python")
    assert_same_value(f(np.arange(3.0), alpha=2.0), keyword_only(np.arange(3.0), alpha=2.0),
                      "keyword_only")


def shape_from_dict(p):
    return np.zeros(p["n"]) + p["v"]


@pytest.mark.parametrize("backend", ["native", "xla"])
def test_an_int_inside_that_decides_a_shape_specializes(backend):
    f = solvent.jit(shape_from_dict, backend=backend)
    for n in (3, 5, 3):
        assert_same_value(f({"n": n, "v": 1.5}), shape_from_dict({"n": n, "v": 1.5}), "shape")
    assert "compile-time arguments: p['n']=3" in f.explain({"n": 3, "v": 1.5})


def heat_loss(u, p):
    for _ in range(p["steps"]):
        u = u + p["dt"] * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return (u * u).sum()


def test_gradients_with_a_parameter_dict():
    rng = np.random.default_rng(5)
    u, p = rng.random(8), {"dt": 0.1, "steps": 3}
    g = solvent.grad(heat_loss)(u, p)
    eps = 1e-6
    fd = np.array([(heat_loss(u + eps * e, p) - heat_loss(u - eps * e, p)) / (2 * eps)
                   for e in np.eye(8)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)
    with pytest.raises(solvent.DifferentiationError, match="argument 'p': it is a dict"):
        solvent.grad(heat_loss, argnums=1)(u, p)


def rows_from_list(xs):
    out = np.zeros((len(xs), xs[0].shape[0]))
    for i in range(len(xs)):          # xs[i] with a run-time i: read from a stacked copy
        out[i] = xs[i]
    return out


def pick(xs, k):
    return xs[k]


def local_table(x, k):
    weights = [0.25, 0.5, 0.25]
    return x * weights[k]


def write_through_pick(xs, k):
    y = xs[k]
    y[0] = 5.0
    return xs[0].sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_lists_indexed_at_run_time(backend):
    rng = np.random.default_rng(6)
    xs = [rng.random(3), np.asfortranarray(rng.random(3)), rng.random(3)]
    _same_call(rows_from_list, backend, xs)
    for k in (0, 2, -1, -3):
        _same_call(pick, backend, xs, k)
        _same_call(pick, backend, (np.int8(1), np.int8(-2), np.int8(3)), k)
        _same_call(local_table, backend, rng.random(2).astype(np.float32), k)
    f = solvent.jit(pick, backend=backend)
    for k in (3, -4):
        with pytest.raises(IndexError):
            f(xs, k)
    with pytest.raises(solvent.UnsupportedError, match="one type|compile-time"):
        f([1.5, 2, 3], 1)          # the item's Python type would follow the index
    with pytest.raises(solvent.UnsupportedError, match="writing into a list's array"):
        solvent.jit(write_through_pick, backend=backend)(copy.deepcopy(xs), 1)
