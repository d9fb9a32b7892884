"""A barrier next to an ``if`` that holds barriers must stay when the ``if``'s condition is
known at compile time: solvent's frontend drops such an ``if``, and on the IR path
(simt/nest.py) the code before it and inside it then ran in one thread loop, with no barrier
between a shared-memory write and a neighbour's read (s26 probe: every output was 0.0)."""
import numpy as np
from numba import cuda

import solvent

TPB = 32


def rotate_under_static_ifs(x, out):
    sm = cuda.shared.array(TPB, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i]
    cuda.syncthreads()
    if x.shape[0] > 0:
        if x.shape[0] > 1:
            v = sm[(t + 1) % TPB]
            cuda.syncthreads()
            sm[t] = v
    out[i] = sm[t]


def rotate_first_in_static_if(x, out):
    sm = cuda.shared.array(TPB, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i]
    if x.shape[0] > 0:
        cuda.syncthreads()
        v = sm[(t + 1) % TPB]
        cuda.syncthreads()
        sm[t] = v
    out[i] = sm[t]


def test_barrier_next_to_an_if_decided_at_compile_time():
    x = np.arange(64.0)
    want = np.concatenate([np.roll(b, -1) for b in x.reshape(2, TPB)])
    for k in (rotate_under_static_ifs, rotate_first_in_static_if):
        for on in (None, "xla"):
            out = np.full(64, -1.0)
            launch = solvent.kernel(k)[2, TPB]
            launch.on(on)(x, out)
            np.testing.assert_array_equal(out, want, err_msg=f"{k.__name__} {on}")
