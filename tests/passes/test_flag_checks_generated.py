"""Generated per-element recurrences with checked math on the carried scalar (the nests
flag_checks takes), written the way code ported from C looks: scalars before or after the
arrays, 1-D and 2-D element loops, an index array read in the nest, C / Fortran / strided
arguments; inputs that make a check fail at some element and step, or an index fail, or
both. Plain Python is the oracle: the same result, or the same exception type raised at a
line of the generated file, and the arguments untouched after a failure."""
import importlib.util
import math
import random

import numpy as np
import pytest

import solvent

from differential import copy_keep_layout

# (update of v, what can fail): each reads the carried v and checks it
STEPS = [
    ("v = v - c * math.sqrt(v)", "sqrt of a negative"),
    ("v = math.log(v * v + c) + 0.5 * v", "log of 0 (v = 0, c = 0)"),
    ("v = v - 2.0 * math.pi * math.floor(v / (2.0 * math.pi)) + c", "floor of nan/inf"),
    ("v = 0.5 * v + math.sqrt(abs(v)) - c", None),
    ("v = float(int(v * 4.0)) / 4.0 + c", "int of nan/inf"),
    ("v = math.exp(-v * v) + c * v", None),
    ("v = math.log(abs(v) + 1e-3) - c", None),
]


def _source(k, rng):
    steps = rng.sample(STEPS, rng.randint(1, 2))
    two_d = rng.random() < 0.4
    gather = rng.random() < 0.4
    scalars_first = rng.random() < 0.5
    params = ["T", "c", "x", "idx", "out"] if scalars_first else ["x", "idx", "out", "T", "c"]
    read = ("x[idx[i], j]" if two_d else "x[idx[i]]") if gather else \
        ("x[i, j]" if two_d else "x[i]")
    body = "\n".join(" " * (12 if two_d else 8) + "    " + s for s, _ in steps)
    if two_d:
        loops = ("    for i in range(out.shape[0]):\n"
                 "        for j in range(out.shape[1]):\n"
                 f"            v = {read}\n"
                 "            for t in range(T):\n"
                 f"{body}\n"
                 "            out[i, j] = v\n")
    else:
        loops = ("    for i in range(out.shape[0]):\n"
                 f"        v = {read}\n"
                 "        for t in range(T):\n"
                 f"{body}\n"
                 "        out[i] = v\n")
    src = f"def kernel{k}({', '.join(params)}):\n{loops}"
    return src, params, two_d


def _args(params, two_d, rng, case, layout, m, n):
    shape = (m, n) if two_d else (m,)
    x = np.array([[rng.uniform(0.5, 3.0) for _ in range(n)] for _ in range(m)]).reshape(m, n)
    x = x if two_d else x[:, 0].copy()
    idx = np.array([rng.randrange(m) for _ in range(m)], dtype=np.int64)
    if case in ("value", "both") and m:
        pos = (rng.randrange(m),) + ((rng.randrange(n),) if two_d else ())
        x[pos] = rng.choice([-1.0, 0.0, np.nan, np.inf, -np.inf, 1e300])
    if case in ("index", "both") and m:
        idx[rng.randrange(m)] = rng.choice([m, m + 3, -m - 1])
    if layout == "F" and two_d:
        x = np.asfortranarray(x)
    elif layout == "strided":
        big = np.zeros((2 * m,) + shape[1:])
        big[::2] = x
        x = big[::2]
    out = np.zeros(shape)
    vals = {"T": rng.randint(0, 4), "c": rng.choice([0.0, 0.25, 1.0]), "x": x, "idx": idx,
            "out": out}
    return [vals[p] for p in params]


def _outcome(fn, args):
    try:
        fn(*args)
        return None
    except Exception as e:   # the oracle's exception, compared by type
        return e


@pytest.mark.parametrize("seed", range(12))
def test_generated_recurrences_match_python(seed, tmp_path):
    rng = random.Random(seed)
    src, params, two_d = _source(seed, rng)
    path = tmp_path / f"gen_flag_{seed}.py"
    path.write_text("import math\n\n\n" + src)
    spec = importlib.util.spec_from_file_location(f"gen_flag_{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, f"kernel{seed}")
    jitted = solvent.jit(fn, backend="native")
    m, n = rng.randint(0, 5), rng.randint(1, 4)   # one shape a program: one compile
    for case in ("none", "value", "index", "both"):
        for layout in ("C", "F", "strided"):
            args = _args(params, two_d, rng, case, layout, m, n)
            py = [copy_keep_layout(a) for a in args]
            sv = [copy_keep_layout(a) for a in args]
            want = _outcome(fn, py)
            if want is not None:
                with pytest.raises(type(want)) as got:
                    jitted(*sv)
                assert path.name + ":" in str(got.value), (src, str(got.value))
                for a, b in zip(sv, args):
                    if isinstance(a, np.ndarray):
                        np.testing.assert_array_equal(a, b)
                continue
            try:
                jitted(*sv)
            except OverflowError as e:   # int() of 1e300: Python's big int, solvent refuses
                assert "solvent's integers are 64-bit" in str(e) and \
                    ("int(" in src or "floor(" in src)
                continue
            for a, b in zip(sv, py):
                if isinstance(a, np.ndarray):
                    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=src)
