"""The command line: `solvent demo` and `solvent explain FILE:FUNC`."""
import solvent.corpus.jacobi_2d as jacobi_module
from solvent.cli import main


def test_demo_runs_checks_and_times(capsys):
    assert main(["demo", "--kernels", "heat_2d_slices,gemm", "--scale", "0.05",
                 "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "heat_2d_slices" in out and "gemm" in out
    assert out.count(" yes ") == 2  # both match NumPy


def test_explain_prints_every_stage_and_backend(capsys):
    assert main(["explain", f"{jacobi_module.__file__}:kernel", "--size", "8"]) == 0
    out = capsys.readouterr().out
    for stage in ("frontend", "functionalize", "cse", "if_to_select", "dce"):
        assert f"## after {stage}" in out
    assert "array.write" in out          # array level before functionalization
    # 8 x 8 time steps: the automatic choice is native (backends/choice.py STEP_WORK)
    assert "loop.for" in out and "## backend: native" in out and "iterations write at most" in out


def test_explain_with_explicit_args(capsys, tmp_path):
    src = tmp_path / "k.py"
    src.write_text("def scale(x, a):\n    x *= a\n    return x.sum()\n")
    assert main(["explain", f"{src}:scale", "--args", "np.ones(4), 2.0"]) == 0
    out = capsys.readouterr().out
    assert "func @scale(%x: ref<4xf64>, %a: f64)" in out
    assert "writeback [none, 0]" in out
