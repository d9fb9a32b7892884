"""docs/COVERAGE.md is generated from the frontend's tables (solvent/coverage.py): it must
equal what `solvent coverage` prints now, and what it lists must be what the frontend does
(every listed array method compiles and matches NumPy; every refused function is refused with
the line)."""
import pathlib
import re

import numpy as np
import pytest

import solvent
from solvent.coverage import count_numpy_functions, generate
from solvent.frontend import npapi_math, npapi_methods
from differential import check

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "COVERAGE.md"


def test_the_document_is_what_the_code_generates():
    assert DOC.read_text() == generate(), (
        "docs/COVERAGE.md is stale: regenerate it with `solvent coverage > docs/COVERAGE.md`")
    assert count_numpy_functions(generate()) >= 200  # 204 when written: a table lost rows


# one call per listed method (arguments where the method needs them)
def m_sum(x): return x.sum()
def m_prod(x): return x.prod()
def m_max(x): return x.max()
def m_min(x): return x.min()
def m_mean(x): return x.mean()
def m_argmax(x): return x.argmax()
def m_argmin(x): return x.argmin()
def m_any(x): return x.any()
def m_all(x): return x.all()
def m_std(x): return x.std()
def m_var(x): return x.var()
def m_cumsum(x): return x.cumsum()
def m_cumprod(x): return x.cumprod()
def m_dot(x): return x.dot(x.T)
def m_clip(x): return x.clip(0.2, 0.7)
def m_round(x): return x.round()
def m_ravel(x): return x.ravel()
def m_squeeze(x): return x[:1].squeeze()
def m_repeat(x): return x.repeat(2)
def m_trace(x): return x.trace()
def m_conj(x): return x.conj()
def m_conjugate(x): return x.conjugate()
def m_argsort(x): return x.argsort()
def m_diagonal(x): return x.diagonal(1)
def m_swapaxes(x): return x.swapaxes(0, 1)
def m_nonzero(x): return x.nonzero()
def m_sort(x):
    x.sort()
def m_reshape(x): return x.reshape(-1)
def m_transpose(x): return x.transpose()
def m_copy(x): return x.copy()
def m_flatten(x): return x.flatten()
def m_astype(x): return x.astype(np.float32)
def m_fill(x):
    x.fill(3.0)
def m_item(x): return x.item(1) + x.item(2, 3) + x[0].item(2)


METHODS = sorted(list(npapi_methods.METHOD_FUNCTIONS) + list(npapi_methods.OWN_METHODS))


def test_every_listed_method_has_a_test_here():
    assert sorted(k[2:] for k in globals() if k.startswith("m_")) == METHODS


@pytest.mark.parametrize("name", METHODS)
def test_every_listed_method_compiles_and_matches_numpy(name):
    x = np.random.default_rng(3).random((3, 4))
    check(globals()["m_" + name], x, backend="native" if name == "nonzero" else "xla")


@pytest.mark.parametrize("name", sorted(f.__name__ for f in npapi_math.REFUSED))
def test_every_refused_function_is_refused_with_the_line(name):
    with pytest.raises(solvent.UnsupportedError, match=rf"test_coverage_doc.py:\d+.*{name}"):
        solvent.jit(_REFUSED_KERNELS[name])(np.arange(4.0))


def k_nonzero(x): return np.nonzero(x)
def k_flatnonzero(x): return np.flatnonzero(x)
def k_argwhere(x): return np.argwhere(x)


_REFUSED_KERNELS = {k[2:]: v for k, v in globals().items() if k.startswith("k_")}


def noisy(x):
    return x + np.random.standard_normal(x.shape)


def test_np_random_inside_is_refused_with_the_line_as_the_document_says():
    assert "`np.random.*` inside a compiled function is refused" in generate()
    with pytest.raises(solvent.UnsupportedError, match=r"test_coverage_doc.py:\d+.*np.random"):
        solvent.jit(noisy)(np.arange(4.0))


README = DOC.parents[1] / "README.md"


def test_the_readme_keeps_no_hand_written_list_and_points_at_the_document():
    """The README's 'Supported Python and NumPy' section defers to docs/COVERAGE.md: it may
    not list NumPy names or Python constructs itself (such lists drifted from the code)."""
    text = README.read_text()
    section = text.split("## Supported Python and NumPy", 1)[1].split("\n## ", 1)[0]
    assert "docs/COVERAGE.md" in section
    head = section.split("NumPy's scalar and error semantics hold", 1)[0]
    listed = set(re.findall(r"`(np\.[\w.]+|\w+)`", head)) - {"solvent.UnsupportedError"}
    assert not listed - {"coverage", "fallback"}, (
        f"the README lists {sorted(listed)} by hand: put them in docs/COVERAGE.md's tables")
