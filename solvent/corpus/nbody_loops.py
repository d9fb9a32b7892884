"""Loop twin of nbody: all-pairs accelerations with scalar dx/dy/dz accumulators, the updates
as component loops, and the kinetic energy by a double loop; scalars first. Category: nbody."""
import numpy as np

from .nbody import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "nbody"
TWIN_ARGS = (6, 3, 4, 5, 0, 1, 2)  # (steps, G, dt, softening, pos, vel, mass)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def kernel(steps, G, dt, softening, pos, vel, mass):
    n = pos.shape[0]
    acc = np.zeros((n, 3))
    for s in range(steps):
        for i in range(n):
            ax = 0.0
            ay = 0.0
            az = 0.0
            for j in range(n):
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + softening ** 2
                f = r2 ** -1.5 * mass[j]
                ax += dx * f
                ay += dy * f
                az += dz * f
            acc[i, 0] = G * ax
            acc[i, 1] = G * ay
            acc[i, 2] = G * az
        for i in range(n):
            for c in range(3):
                vel[i, c] += dt * acc[i, c]
        for i in range(n):
            for c in range(3):
                pos[i, c] += dt * vel[i, c]
    ke = 0.0
    for i in range(n):
        v2 = 0.0
        for c in range(3):
            v2 += vel[i, c] ** 2
        ke += mass[i] * v2
    return 0.5 * ke


SIZES = (3, 5)
BENCH_SIZE = 300
JAX_PORT = None
NUMBA_OK = True
