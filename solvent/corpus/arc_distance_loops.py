"""Loop twin of arc_distance: the haversine formula per element with math.sin/cos/sqrt/atan2. Category: misc."""
import math

import numpy as np

from .arc_distance import make_args  # noqa: F401

TWIN_OF = "arc_distance"


def kernel(theta_1, phi_1, theta_2, phi_2):
    n = theta_1.shape[0]
    out = np.empty(n)
    for i in range(n):
        a = math.sin((theta_2[i] - theta_1[i]) / 2)
        b = math.sin((phi_2[i] - phi_1[i]) / 2)
        temp = a * a + math.cos(theta_1[i]) * math.cos(theta_2[i]) * b * b
        out[i] = 2 * math.atan2(math.sqrt(temp), math.sqrt(1 - temp))
    return out


SIZES = (3, 6)
BENCH_SIZE = 1000
JAX_PORT = None
NUMBA_OK = True
