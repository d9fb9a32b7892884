"""Random affine loop kernels: every ``independent`` and ``reduction`` verdict is checked by
the execution oracle (loop_oracle.py). A wrong "independent" is a silent wrong answer once
raising relies on it, so this test hunts for one over a few hundred generated loops."""
import copy

import numpy as np
import pytest

from loop_oracle import MODES, run, same
from random_kernels import N1, N2, generate
from solvent.analysis import CARRIED, INDEPENDENT, analyze, tensor_ir
from solvent.errors import UnsupportedError


def _args(kind, rng):
    if kind == "1d":
        return rng.random(N1) + 0.5, rng.random(N1) + 0.5, rng.integers(0, N1, N1)
    return rng.random((N2, N2)) + 0.5, rng.random((N2, N2)) + 0.5, rng.integers(0, N2, N2)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_random_kernels_against_oracle(seed, tmp_path):
    mod, kinds = generate(seed, 80, str(tmp_path))
    verdicts = {INDEPENDENT: 0, "reduction": 0, CARRIED: 0}
    checked = 0
    for name, kind in kinds.items():
        fn = getattr(mod, name)
        args = _args(kind, np.random.default_rng(seed))
        try:
            fn(*copy.deepcopy(args))
        except (IndexError, ValueError):
            continue  # NumPy rejects it: no result to preserve
        try:
            fn_ir = tensor_ir(fn, *args)
        except UnsupportedError:
            continue  # a shape solvent rejects at compile time (an empty dynamic slice)
        base = run(fn_ir, args)
        for r in analyze(fn_ir):
            verdicts[r.kind] += 1
            if r.kind == CARRIED:
                continue
            modes = MODES if r.kind == INDEPENDENT else ("reverse", "shuffle")
            for m in modes:
                assert same(run(fn_ir, args, r.loop, m), base, exact=r.kind == INDEPENDENT), \
                    f"{name} ({mod.__file__}): {r.line_text()} differs when run {m}"
                checked += 1
    # the generator must exercise the verdicts, or the test proves nothing
    assert verdicts[INDEPENDENT] >= 5 and verdicts[CARRIED] >= 5, verdicts
    assert verdicts["reduction"] >= 1 and checked > 0, verdicts
