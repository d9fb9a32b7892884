"""Generated nests for the loop interchange (batching.Batch.inner_loop): a sequential loop
inside an independent one, written the ways code ported from C writes it (the recurrence
in a scalar, in the output row, in a scratch array; a trip count from a shape, a constant
or a scalar argument placed before the arrays; float32, int8 and Fortran-ordered or
strided arguments). Each is run by NumPy and by solvent on every backend; explain must say
the outer loop was raised into a loop (or why not), and the results must be NumPy's."""
import copy
import importlib.util
import random

import numpy as np
import pytest

import solvent
from solvent.analysis.explain import explain_loops
from solvent.frontend.translator import translate
from solvent.passes import pipeline

STEP = [  # the recurrence: t is the carried scalar, a the element read at (i, s)
    "t = t * 0.5 + a",
    "t = max(t, a) - 0.25",
    "t = np.sin(t) + a * 0.1",
    "t = t + a if a > 0 else t - a",
    "t = np.sqrt(t * t + a * a)",
]
TRIPS = ["A.shape[1]", "A.shape[1] - 1", "3", "q"]


def _source(rng: random.Random) -> str:
    step = rng.choice(STEP)
    trips = rng.choice(TRIPS)
    store = rng.choice(["scalar", "row", "scratch"])
    lines = ["import numpy as np", "", "", "def kernel(q, A, out):",
             "    for i in range(A.shape[0]):", "        t = A[i, 0] * 1.0"]
    if store == "scratch":
        lines.append("        w = np.zeros(2)")
    lines += [f"        for s in range(1, {trips}):", "            a = A[i, s] * 1.0",
              f"            {step}"]
    if store == "row":
        lines.append("            out[i, s] = t")
    elif store == "scratch":
        lines.append("            w[0] = w[1] + t")
        lines.append("            w[1] = t")
    tail = {"scalar": "out[i, 0] = t", "row": "out[i, 0] = -t",
            "scratch": "out[i, 0] = w[0] - w[1]"}[store]
    lines.append(f"        {tail}")
    return "\n".join(lines) + "\n"


def _args(rng: random.Random, nrng):
    n, m = rng.choice([(0, 3), (1, 1), (3, 4), (5, 7)])
    dtype = rng.choice([np.float64, np.float32, np.int8])
    A = (nrng.standard_normal((n, m + 2)) * 3).astype(dtype)
    layout = rng.choice(["C", "F", "strided"])
    if layout == "F":
        A = np.asfortranarray(A)
    elif layout == "strided":
        A = np.repeat(A, 2, axis=1)[:, ::2]
    out = np.zeros((n, m + 2))
    return [rng.randint(1, m + 2), A, out]


def _load(src: str, tmp_path, k: int):
    path = tmp_path / f"interchange_{k}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"interchange_{k}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.kernel


@pytest.mark.parametrize("seed", range(10))
def test_generated_interchanges_match_numpy(seed, tmp_path):
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    src = _source(rng)
    kernel = _load(src, tmp_path, seed)
    raised = eligible = 0
    for trial in range(3):
        args = _args(rng, nrng)
        want = copy.deepcopy(args)
        with np.errstate(all="ignore"):
            kernel(*want)
        fn = translate(kernel, tuple(args), frozenset()).fn
        for p in pipeline.build_pipeline():
            fn = p.run(fn)
        text = explain_loops(fn)
        raised += "loop i: raised" in text and ", loop," in text
        eligible += args[1].shape[0] > 0
        for backend in ("native", "xla", "interp"):
            got = copy.deepcopy(args)
            with np.errstate(all="ignore"):
                solvent.jit(kernel, backend=backend)(*got)
            tol = 1e-5 if args[1].dtype == np.float32 else 1e-12
            np.testing.assert_allclose(got[2], want[2], rtol=tol, atol=tol,
                                       err_msg=f"{backend}\n{src}\n{text}")
    # every nest with rows is interchanged (with range(1, q) the inner loop may run no
    # iteration and ``a`` leaks from one row into the next, but nothing reads it after)
    assert raised == eligible, src + text


def ragged_rows(q, A, lens, out):
    for i in range(A.shape[0]):
        t = 0.0
        for s in range(q):
            t = t * 0.5 + A[i, s + lens[i]]
        out[i] = t


@pytest.mark.parametrize("backend", ["native", "xla", "interp"])
def test_an_index_error_inside_the_interchanged_loop_is_pythons_first(backend):
    """Rows 1 and 3 read past the end (at 5 and at 6): Python stops at row 1 with index 5;
    the interchanged nest checks every row at once and must report that same first one,
    leaving ``out`` untouched. Rows that stay in bounds give NumPy's values."""
    A = np.arange(20.0).reshape(4, 5)
    lens = np.array([0, 3, 1, 6])
    out = np.zeros(4)
    fn = translate(ragged_rows, (3, A, lens, out), frozenset()).fn
    for p in pipeline.build_pipeline():
        fn = p.run(fn)
    assert "loop i: raised" in explain_loops(fn), explain_loops(fn)
    with pytest.raises(IndexError) as want:
        ragged_rows(3, A, lens, out.copy())
    with pytest.raises(IndexError) as got:
        solvent.jit(ragged_rows, backend=backend)(3, A, lens, out)
    # solvent's message starts with the source line of the read
    assert str(got.value).endswith(": " + str(want.value)), (str(got.value), str(want.value))
    assert not out.any()
    ok = np.array([0, 1, 2, 0])
    want_out, got_out = np.zeros(4), np.zeros(4)
    ragged_rows(3, A, ok, want_out)
    solvent.jit(ragged_rows, backend=backend)(3, A, ok, got_out)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-12)
