"""All-pairs gravitational n-body with broadcasting, softening and a leapfrog-style time loop. Category: nbody."""
import numpy as np


def kernel(pos, vel, mass, G, dt, softening, steps):
    for s in range(steps):
        d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
        r2 = np.sum(d * d, axis=2) + softening ** 2
        inv_r3 = r2 ** -1.5
        acc = G * np.sum(d * (inv_r3 * mass[np.newaxis, :])[:, :, np.newaxis], axis=1)
        vel += dt * acc
        pos += dt * vel
    ke = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
    return ke


def make_args(n, rng):
    return (rng.standard_normal((n, 3)), rng.standard_normal((n, 3)) * 0.1, rng.random(n) / n + 0.1 / n,
            1.0, 0.01, 0.1, 10)


SIZES = (8, 24)
BENCH_SIZE = 300
JAX_PORT = "nbody"
NUMBA_OK = True
