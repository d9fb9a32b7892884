"""The benchmark scripts the closing notes quote stay runnable: each one compiles, and the
per-op table's documented reasons name ops it measures (a commit once replaced
ops_vs_numpy.py by 116,000 lines that did not parse, and no test noticed)."""
import importlib.util
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(BENCH.glob("*.py"))


def test_there_are_benchmark_scripts():
    assert len(SCRIPTS) >= 10, SCRIPTS


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_script_compiles(path):
    compile(path.read_text(), str(path), "exec")


def test_known_slow_ops_are_measured_ops():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("ops_vs_numpy", BENCH / "ops_vs_numpy.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCH))
    from solvent.ir.registry import REGISTRY
    measured = set(mod.CALLS) | set(mod.elementwise_calls())
    assert measured and all(k.split("+")[0] in REGISTRY for k in measured)
    assert mod.KNOWN_SLOW, "the table documents its slow ops"
    unmeasured = sorted(set(mod.KNOWN_SLOW) - measured)
    assert not unmeasured, f"KNOWN_SLOW names ops the table does not measure: {unmeasured}"
