"""solvent.kernel against Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), run in a
subprocess so that this process's numba.cuda stays the real one."""
import json
import os
import subprocess
import sys

import numpy as np

import solvent
from solvent.corpus_simt import all_cases

SIMULATED = ["matmul_tiled", "reduce_sum", "scan_blelloch", "histogram_shared",
             "softmax_rows", "backprop_layer", "poly_eval"]
N = 3

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


def test_same_as_numba_simulator():
    # one simulator process for all kernels (it runs every thread as a Python thread)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    r = subprocess.run([sys.executable, "-c", SCRIPT] + SIMULATED, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    simulated = json.loads(r.stdout.strip().splitlines()[-1])
    assert sorted(simulated) == sorted(SIMULATED)
    for case in all_cases():
        if case.name not in SIMULATED:
            continue
        args = list(case.make_args(N, np.random.default_rng(1)))
        grid, block = case.config(N)
        solvent.kernel(case.kernel)[grid, block](*args)
        for i in case.outputs:
            np.testing.assert_allclose(args[i], np.array(simulated[case.name][str(i)]),
                                       rtol=1e-9, err_msg=case.name)
