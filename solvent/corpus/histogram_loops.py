"""Loop twin of histogram: the bin index computed per sample with math.floor inside the loop;
the bin count and range first. Category: scalar-loop."""
import math

import numpy as np

from .histogram import make_args as _vectorized_args
from .twin_args import reordered

TWIN_OF = "histogram"
TWIN_ARGS = (1, 2, 3, 0)  # (nbins, lo, hi, x)
make_args = reordered(_vectorized_args, TWIN_ARGS)


def kernel(nbins, lo, hi, x):
    counts = np.zeros(nbins, dtype=np.int64)
    scale = nbins / (hi - lo)
    for i in range(x.shape[0]):
        b = math.floor((x[i] - lo) * scale)
        if b >= 0 and b < nbins:
            counts[b] += 1
    return counts


SIZES = (3, 6)
BENCH_SIZE = 300
JAX_PORT = None
NUMBA_OK = True
