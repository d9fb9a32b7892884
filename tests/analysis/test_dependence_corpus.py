"""The loop classifier over every corpus kernel: a classification for every loop, no crash,
and the execution oracle (loop_oracle.py) agrees with every ``independent`` and
``reduction`` it gives."""
import numpy as np
import pytest

from loop_oracle import MODES, run, same
import solvent
from solvent.analysis import CARRIED, INDEPENDENT, REDUCTION, analyze
from solvent.corpus import KERNELS


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_corpus_loops_classified(kernel):
    args = kernel.make_args(kernel.sizes[0], np.random.default_rng(0))
    compiled = solvent.jit(kernel.func).compile(args)
    fn = compiled.fn
    # the IR's parameters: the arguments that are not specialized away (a scalar that sets a
    # shape, like histogram_loops' leading nbins, is a constant of the IR)
    args = [args[i] for i in compiled.translation.arg_map]
    reports = analyze(fn)
    loops = [op for op in fn.walk() if op.name in ("loop.for", "loop.while")]
    assert [r.loop for r in reports] == loops
    baseline = run(fn, args) if reports else None
    for r in reports:
        assert r.kind in (INDEPENDENT, REDUCTION, CARRIED) and r.reason, r.line_text()
        if r.loop.name != "loop.for" or r.kind == CARRIED:
            continue
        for m in (MODES if r.kind == INDEPENDENT else ("reverse", "shuffle")):
            assert same(run(fn, args, r.loop, m), baseline, exact=r.kind == INDEPENDENT), \
                f"{kernel.name}: {r.line_text()} differs when run {m}"
