"""Kernels from simulations and learning: n-body with shared tiles, a back-propagation
layer, path-finding dynamic programming launched in a host loop."""
import math

import numpy as np
from numba import cuda, float64

from . import Case

NB = 64  # bodies per tile
LAYER = 32
PF = 128


@cuda.jit
def nbody_accel(pos, mass, acc, eps2):
    tile = cuda.shared.array((NB, 3), dtype=float64)
    tm = cuda.shared.array(NB, dtype=float64)
    i = cuda.grid(1)
    tx = cuda.threadIdx.x
    n = pos.shape[0]
    xi = 0.0
    yi = 0.0
    zi = 0.0
    if i < n:
        xi = pos[i, 0]
        yi = pos[i, 1]
        zi = pos[i, 2]
    ax = 0.0
    ay = 0.0
    az = 0.0
    for t in range((n + NB - 1) // NB):
        j = t * NB + tx
        if j < n:
            tile[tx, 0] = pos[j, 0]
            tile[tx, 1] = pos[j, 1]
            tile[tx, 2] = pos[j, 2]
            tm[tx] = mass[j]
        else:
            tile[tx, 0] = 0.0
            tile[tx, 1] = 0.0
            tile[tx, 2] = 0.0
            tm[tx] = 0.0
        cuda.syncthreads()
        for k in range(NB):
            dx = tile[k, 0] - xi
            dy = tile[k, 1] - yi
            dz = tile[k, 2] - zi
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = tm[k] / (r2 * math.sqrt(r2))
            ax += dx * inv
            ay += dy * inv
            az += dz * inv
        cuda.syncthreads()
    if i < n:
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@cuda.jit(device=True)
def sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


@cuda.jit
def backprop_layer(inp, w, bias, out, delta_out, grad_w):
    # forward: out = sigmoid(inp @ w + bias); backward: grad_w = outer(inp, delta)
    # with delta = delta_out * out * (1 - out). One thread per output unit.
    j = cuda.grid(1)
    n_in = w.shape[0]
    n_out = w.shape[1]
    if j >= n_out:
        return
    s = bias[j]
    for k in range(n_in):
        s += inp[k] * w[k, j]
    o = sigmoid(s)
    out[j] = o
    d = delta_out[j] * o * (1.0 - o)
    for k in range(n_in):
        grad_w[k, j] = inp[k] * d


@cuda.jit
def pathfinder_step(wall, row, prev, cur):
    # one row of the Rodinia path-finder DP: cur[i] = wall[row, i] + min of 3 neighbours
    i = cuda.grid(1)
    m = prev.size
    if i < m:
        best = prev[i]
        if i > 0:
            best = min(best, prev[i - 1])
        if i < m - 1:
            best = min(best, prev[i + 1])
        cur[i] = wall[row, i] + best


def _np_nbody(pos, mass, acc, eps2):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d ** 2).sum(-1) + eps2
    acc[...] = (d * (mass[None, :] / (r2 * np.sqrt(r2)))[:, :, None]).sum(1)


def _np_backprop(inp, w, bias, out, delta_out, grad_w):
    o = 1.0 / (1.0 + np.exp(-(inp @ w + bias)))
    out[...] = o
    grad_w[...] = np.outer(inp, delta_out * o * (1.0 - o))


def _np_pathfinder(wall, rows, prev, cur):
    p = prev.copy()
    for r in range(1, rows):
        q = p.copy()
        q[1:] = np.minimum(q[1:], p[:-1])
        q[:-1] = np.minimum(q[:-1], p[1:])
        p = wall[r] + q
    cur[...] = p


def _launch_pathfinder(launcher, args):
    wall, rows, prev, cur = args
    a, b = prev, cur
    for r in range(1, rows):
        launcher(wall, r, a, b)
        a, b = b, a
    if a is not cur:
        cur[...] = a


def _jit_pathfinder(step):
    """The host loop as a solvent.jit function: its launches become one program."""
    import solvent

    @solvent.jit
    def host(wall, rows, prev, cur):
        for r in range(1, rows):
            if r % 2 == 1:
                step(wall, r, prev, cur)
            else:
                step(wall, r, cur, prev)
        if rows % 2 == 1:
            cur[:] = prev
    return host


CASES = [
    Case("nbody_tiled", nbody_accel, lambda n: ((4 * n + NB - 1) // NB, NB),
         lambda n, r: (r.standard_normal((4 * n, 3)), r.random(4 * n) + 0.5,
                       np.zeros((4 * n, 3)), 0.01), _np_nbody, (2,), rtol=1e-8),
    Case("backprop_layer", backprop_layer, lambda n: ((8 * n + LAYER - 1) // LAYER, LAYER),
         lambda n, r: (r.standard_normal(4 * n), r.standard_normal((4 * n, 8 * n)) * 0.1,
                       r.standard_normal(8 * n), np.zeros(8 * n), r.standard_normal(8 * n),
                       np.zeros((4 * n, 8 * n))), _np_backprop, (3, 5)),
    Case("pathfinder", pathfinder_step, lambda n: ((8 * n + PF - 1) // PF, PF),
         lambda n, r: (r.integers(0, 10, (n, 8 * n)).astype(np.int64), n,
                       r.integers(0, 10, 8 * n).astype(np.int64),
                       np.zeros(8 * n, np.int64)),
         _np_pathfinder, (3,), launch=_launch_pathfinder, jit_host=_jit_pathfinder),
]
