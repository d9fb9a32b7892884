"""Great-circle (haversine) distances with sin/cos/sqrt/arctan2 (npbench arc_distance). Category: misc."""
import numpy as np


def kernel(theta_1, phi_1, theta_2, phi_2):
    temp = (np.sin((theta_2 - theta_1) / 2) ** 2
            + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2)
    distance_matrix = 2 * (np.arctan2(np.sqrt(temp), np.sqrt(1 - temp)))
    return distance_matrix


def make_args(n, rng):
    return (rng.random(n * n), rng.random(n * n), rng.random(n * n), rng.random(n * n))


SIZES = (8, 24)
BENCH_SIZE = 1000
JAX_PORT = "arc_distance"
NUMBA_OK = True
