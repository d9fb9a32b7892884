"""Adler-32-style checksum over a byte buffer: two running sums modulo 65521, in uint32
arithmetic, one byte at a time (a sequential recurrence). Category: sequential."""
import numpy as np


def kernel(data):
    a = np.uint32(1)
    b = np.uint32(0)
    for i in range(data.shape[0]):
        a = (a + data[i]) % np.uint32(65521)
        b = (b + a) % np.uint32(65521)
    return (b << np.uint32(16)) | a


def make_args(n, rng):
    return (rng.integers(0, 256, n, dtype=np.uint8),)


SIZES = (7, 100)
BENCH_SIZE = 200000
JAX_PORT = None
NUMBA_OK = True
