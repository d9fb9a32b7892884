"""XLA:CPU options chosen for the host: the rule, its override, and XLA accepting them."""
import jax
import numpy as np
import pytest

import solvent
from solvent.backends import xla_host

ZEN = ("AuthenticAMD", frozenset({"avx2", "avx512f"}))
OLD_AMD = ("AuthenticAMD", frozenset({"avx2"}))
INTEL = ("GenuineIntel", frozenset({"avx2", "avx512f"}))


@pytest.fixture
def no_override(monkeypatch):
    monkeypatch.delenv(xla_host.ENV, raising=False)


@pytest.mark.parametrize("info, width", [(ZEN, "512"), (OLD_AMD, None), (INTEL, None),
                                         (("", frozenset()), None)])
def test_width_rule(no_override, info, width):
    assert xla_host.vector_width(info)[0] == width


@pytest.mark.parametrize("value, width", [("128", "128"), ("256", "256"), ("512", "512"),
                                          ("default", None)])
def test_environment_overrides_the_rule(monkeypatch, value, width):
    monkeypatch.setenv(xla_host.ENV, value)
    assert xla_host.vector_width(ZEN)[0] == width
    assert xla_host.vector_width(INTEL)[0] == width


def test_bad_override_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(xla_host.ENV, "1024")
    with pytest.raises(ValueError, match="SOLVENT_XLA_VECTOR_WIDTH='1024'"):
        xla_host.vector_width(ZEN)


def test_only_cpu_gets_cpu_options(monkeypatch):
    monkeypatch.setenv(xla_host.ENV, "512")
    monkeypatch.delenv(xla_host.COPY_ENV, raising=False)
    assert xla_host.compiler_options("gpu")[0] == {}
    assert xla_host.compiler_options("cpu")[0] == {"xla_cpu_prefer_vector_width": 512}
    monkeypatch.setenv(xla_host.COPY_ENV, "region")     # opt-in: it miscompiles
    assert xla_host.compiler_options("cpu")[0] == {
        "xla_cpu_prefer_vector_width": 512, "xla_cpu_copy_insertion_use_region_analysis": True}
    monkeypatch.setenv(xla_host.ENV, "default")
    monkeypatch.setenv(xla_host.COPY_ENV, "default")
    assert xla_host.compiler_options("cpu")[0] == {}


def stencil(T, A, B):
    for t in range(T):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[:-2, 1:-1] + A[2:, 1:-1]
                               + A[1:-1, :-2] + A[1:-1, 2:])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[:-2, 1:-1] + B[2:, 1:-1]
                               + B[1:-1, :-2] + B[1:-1, 2:])
    return np.max(A), np.sum(B)


@pytest.mark.skipif(jax.default_backend() != "cpu",
                    reason="vector width is an XLA:CPU option; other platforms keep XLA's defaults")
@pytest.mark.parametrize("value", ["128", "512", "default"])
def test_each_width_compiles_and_matches_numpy(monkeypatch, value):
    """XLA rejects an unknown option name, so this also checks the option reaches XLA."""
    monkeypatch.setenv(xla_host.ENV, value)
    rng = np.random.default_rng(1)
    A, B = rng.random((37, 53)), rng.random((37, 53))
    f = solvent.jit(stencil, backend="xla")   # small steps: the automatic choice is native
    A1, B1, A2, B2 = A.copy(), B.copy(), A.copy(), B.copy()
    got, want = f(5, A1, B1), stencil(5, A2, B2)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(A1, A2, rtol=1e-12)
    np.testing.assert_allclose(B1, B2, rtol=1e-12)
    note = f.compile((5, A, B)).executable.options_note
    assert f"{xla_host.ENV}={value}" in note
    assert "XLA options: " + note in f.explain(5, A.copy(), B.copy())
