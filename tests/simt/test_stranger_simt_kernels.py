"""solvent.kernel on stranger-style numba.cuda kernels (tests/simt/stranger_kernels.py),
on the CPU and raised onto XLA (``.on("xla")``), against Numba's CUDA simulator
(NUMBA_ENABLE_CUDASIM=1, one subprocess so that this process's numba.cuda stays the real
one). The simulator gets C-contiguous copies of the arguments (it cannot take strided
ones); solvent gets them as the caller made them."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import solvent

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
import stranger_kernels as sk  # noqa: E402

SCRIPT = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from numba import cuda
import stranger_kernels as sk
out = {}
for name, k, cfg, mk, outs in list(sk.cases()) + list(sk.cases2()):
    args = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in mk()]
    cuda.jit(k)[cfg](*args)
    out[name] = {i: [np.asarray(args[i]).real.tolist(), np.asarray(args[i]).imag.tolist()]
                 for i in outs}
print(json.dumps(out))
"""

CASES = list(sk.cases()) + list(sk.cases2())


@pytest.fixture(scope="module")
def simulated():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    r = subprocess.run([sys.executable, "-c", SCRIPT, HERE], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("on", [None, "xla"], ids=["cpu", "xla"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_as_numba_simulator(case, on, simulated):
    name, kernel, cfg, make_args, outs = case
    args = make_args()
    launch = solvent.kernel(kernel)[cfg]
    (launch.on(on) if on else launch)(*args)
    for i in outs:
        re, im = simulated[name][str(i)]
        expected = np.array(re) + 1j * np.array(im) if np.iscomplexobj(args[i]) else \
            np.array(re)
        got = np.asarray(args[i])
        assert got.dtype == make_args()[i].dtype, (name, i, got.dtype)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, err_msg=f"{name}[{i}]")
