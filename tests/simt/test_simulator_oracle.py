"""solvent.kernel against Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), run in a
subprocess so that this process's numba.cuda stays the real one."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import solvent
from solvent.corpus_simt import all_cases

SIMULATED = ["matmul_tiled", "reduce_sum", "transpose_tiled", "histogram_shared",
             "softmax_rows", "backprop_layer"]
N = 5

SCRIPT = r"""
import json, sys
import numpy as np
from solvent.corpus_simt import all_cases
out = {}
for c in all_cases():
    if c.name not in sys.argv[1:]:
        continue
    args = list(c.make_args(%d, np.random.default_rng(1)))
    grid, block = c.config(%d)
    c.kernel[grid, block](*args)
    out[c.name] = {i: np.asarray(args[i]).tolist() for i in c.outputs}
print(json.dumps(out))
""" % (N, N)


@pytest.fixture(scope="module")
def simulated():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    r = subprocess.run([sys.executable, "-c", SCRIPT] + SIMULATED, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", SIMULATED)
def test_same_as_numba_simulator(simulated, name):
    case = next(c for c in all_cases() if c.name == name)
    args = list(case.make_args(N, np.random.default_rng(1)))
    grid, block = case.config(N)
    solvent.kernel(case.kernel)[grid, block](*args)
    for i in case.outputs:
        np.testing.assert_allclose(args[i], np.array(simulated[name][str(i)]), rtol=1e-9)
