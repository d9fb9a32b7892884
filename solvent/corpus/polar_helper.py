"""Rotation in polar coordinates using plain Python helpers (one returns a tuple) and a time loop. Category: misc."""
import numpy as np


def to_polar(x, y):
    r = np.sqrt(x * x + y * y)
    th = np.arctan2(y, x)
    return r, th


def wrap_angle(a):
    return a - 2.0 * np.pi * np.floor((a + np.pi) / (2.0 * np.pi))


def kernel(x, y, omega, steps):
    r, th = to_polar(x, y)
    for s in range(steps):
        th = wrap_angle(th + omega * r)
    return r * np.cos(th), r * np.sin(th)


def make_args(n, rng):
    return (rng.standard_normal((n, n)), rng.standard_normal((n, n)), 0.3, 5)


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = "polar_helper"
NUMBA_OK = False  # numba: calls plain (non-jitted) Python helpers, which nopython mode cannot type
