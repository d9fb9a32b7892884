"""Low-pass filter through the real FFT: zero the spectrum above a cutoff frequency, transform
back, and report the removed energy (a signal-processing step written the daily way).
Category: misc."""
import numpy as np


def kernel(signal, dt, cutoff):
    spectrum = np.fft.rfft(signal)
    freqs = np.fft.rfftfreq(signal.shape[0], dt)
    removed = 0.0
    for k in range(freqs.shape[0]):          # the loop a C port writes; the mask a NumPy one
        if freqs[k] > cutoff:
            removed += abs(spectrum[k]) ** 2
            spectrum[k] = 0.0
    smooth = np.fft.irfft(spectrum, signal.shape[0])
    return smooth, removed


def make_args(n, rng):
    t = np.arange(n) * 0.01
    sig = np.sin(2 * np.pi * 1.5 * t) + 0.3 * rng.standard_normal(n)
    return (sig, 0.01, 5.0)


SIZES = (16, 64)
BENCH_SIZE = 1 << 16
JAX_PORT = None
NUMBA_OK = False
