"""Fixed-seed differential fuzzing in CI: 100 generated kernels, NumPy vs solvent on each backend.

Each seed is one generated program (tests/fuzz/gen.py) run by tests/fuzz/driver.py: NumPy's
result and in-place effects must equal solvent's on xla and interp, or solvent must refuse with
``UnsupportedError``; where NumPy raises, solvent must raise the same class. Seeds whose
mismatch is a known, not yet fixed bug are listed in ``KNOWN`` with their reproducer under
tests/fuzz/regressions/; they are xfail(strict=True), so fixing the bug makes the test say so
(then delete the entry). The long run is ``benchmarks/fuzz.py``.
"""
import pytest

import driver
import gen

SEEDS = range(70)   # the suite's time budget; benchmarks/fuzz.py runs thousands

# seed -> reproducer file of the open bug (tests/fuzz/regressions/)
KNOWN: dict = {}


def _param(seed):
    if seed in KNOWN:
        return pytest.param(seed, marks=pytest.mark.xfail(
            strict=True, reason=f"known bug, reproducer {KNOWN[seed]}"))
    return seed


@pytest.mark.parametrize("seed", [_param(s) for s in SEEDS])
def test_fuzz_seed(seed):
    prog = gen.generate(seed)
    o = driver.run_program(prog)
    assert o.status in ("accepted", "refused") + driver.EXCUSES, \
        f"seed {seed}: {o.status} {o.cls}\n{prog.render()}\n{o.detail}"
