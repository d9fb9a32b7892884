"""Recursive smoothing across the bins of a real FFT spectrum, reporting the spectrum's
energy as it goes: a first-order filter over frequency written as the scalar loop a C port
writes (each bin reads the bin just smoothed, so the loop stays a loop), and an FFT that
keeps it on XLA. Category: sequential."""
import numpy as np


def kernel(signal, alpha):
    spectrum = np.fft.rfft(signal)
    energy = 0.0
    for k in range(1, spectrum.shape[0]):
        energy += abs(spectrum[k]) ** 2
        spectrum[k] = alpha * spectrum[k - 1] + (1.0 - alpha) * spectrum[k]
    return np.fft.irfft(spectrum, signal.shape[0]), energy


def make_args(n, rng):
    t = np.arange(n) * 0.01
    return (np.sin(2 * np.pi * 3.0 * t) + 0.3 * rng.standard_normal(n), 0.3)


SIZES = (16, 65)
BENCH_SIZE = 1 << 16
JAX_PORT = None
NUMBA_OK = False
