"""XLA:CPU code-generation options chosen for the host CPU.

XLA:CPU vectorizes loops for 256-bit registers by default, because 512-bit AVX-512 code
lowers the clock of Intel's Skylake-era server chips. AMD's Zen 4 and later, the first AMD
cores with AVX-512, run 512-bit vectors at full clock, so solvent asks XLA for 512-bit
vectors there (``xla_cpu_prefer_vector_width``). Measured on a 2-core AMD Zen 5 (EPYC,
family 26), each corpus kernel compiled both ways and run alternately in one process
(``benchmarks/corpus_ab.py vector-width``, XLA default vs 512, ms per call):
mandelbrot_vec 8.2 -> 5.1, laplace_converge 10.0 -> 7.6, softmax 10.4 -> 7.9, blur_f32
2.2 -> 1.8, heat_3d 1.8 -> 1.5, jacobi_2d 1.9 -> 1.6, jacobi_1d 8.6 -> 7.7; 15 kernels faster
by more than 2%, 28 within 2%, two 3% slower (dft, go_fast: 0.97x, inside this machine's
run-to-run noise). Intel hosts keep XLA's default: the clock penalty there depends on the
chip, and it has not been measured.

``SOLVENT_XLA_VECTOR_WIDTH=128|256|512`` overrides the choice; ``default`` leaves it to XLA.

Copy insertion. XLA:CPU's copy insertion orders the instructions of a while body by their
data dependences only (without ``xla_cpu_copy_insertion_use_region_analysis``). Fusion
duplicates a cheap element read into every consumer, so in a loop body like
``s += x[k]; x[k] = v`` the fusion computing ``s`` reads the whole ``x`` and nothing orders
it before the in-place update of ``x``: XLA then copies ``x`` once or twice per iteration,
and the loop is quadratic in the array size (a solvent loop of that shape over 32768 float64:
548 ms; an FFT low-pass loop over 32769 bins: 1.44 s). The region-based live-range analysis
XLA offers as an option sees that the read comes first and removes those copies (0.2 ms and
1.5 ms). But it miscompiles: a nested search loop that writes ``out[0] = i`` and breaks out
of both loops with a flag came back with ``i + 1`` (jax 0.10.2;
tests/backends/test_xla_loop_copies.py keeps the reproducer as a strict xfail). So it is
off by default, and solvent's lowering orders such reads before the update itself
(xla_ordered_reads.py: each read in a lax.cond that the update's index depends on), which
removes those copies under the default analysis (spectral_smooth 1.7 s -> 11 ms at 65536
samples); ``SOLVENT_XLA_COPY_ANALYSIS=region`` turns the option on, at the user's risk, for a
loop of that shape (A/B: ``benchmarks/corpus_ab.py copy-analysis``). It does not remove the copy in a gradient's
reverse loop over such an update: there the cotangent element read before the update's VJP
zeroes it is used by updates that come after the zeroing, so the read really follows the
write once XLA fuses it into them (spectral_smooth's gradient still copies).
"""
from __future__ import annotations

import functools
import os

_WIDTHS = ("128", "256", "512")
ENV = "SOLVENT_XLA_VECTOR_WIDTH"
COPY_ENV = "SOLVENT_XLA_COPY_ANALYSIS"
_COPY_CHOICES = ("region", "default")


@functools.lru_cache(maxsize=1)
def _cpu_info() -> tuple[str, frozenset]:
    """(vendor, flags) of the first CPU in /proc/cpuinfo; ('', {}) where there is none."""
    vendor, flags = "", frozenset()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "vendor_id" and not vendor:
                    vendor = value.strip()
                elif key == "flags" and not flags:
                    flags = frozenset(value.split())
                if vendor and flags:
                    break
    except OSError:
        pass
    return vendor, flags


def vector_width(cpu_info=None) -> tuple[str | None, str]:
    """(preferred vector width in bits or None for XLA's default, why)."""
    forced = os.environ.get(ENV, "").strip()
    if forced:
        if forced == "default":
            return None, f"{ENV}=default"
        if forced not in _WIDTHS:
            raise ValueError(f"{ENV}={forced!r}: use one of {', '.join(_WIDTHS)} or 'default'")
        return forced, f"{ENV}={forced}"
    vendor, flags = cpu_info if cpu_info is not None else _cpu_info()
    if vendor == "AuthenticAMD" and "avx512f" in flags:
        return "512", "AMD CPU with AVX-512 (Zen 4 or later): full clock at 512 bits"
    return None, "XLA's default (256 bits on AVX2/AVX-512 hosts)"


def region_copy_analysis() -> bool:
    """Whether XLA:CPU's copy insertion uses its region-based analysis (see the module
    docstring): only with ``SOLVENT_XLA_COPY_ANALYSIS=region`` (it miscompiles)."""
    forced = os.environ.get(COPY_ENV, "").strip() or "default"
    if forced not in _COPY_CHOICES:
        raise ValueError(f"{COPY_ENV}={forced!r}: use one of {', '.join(_COPY_CHOICES)}")
    return forced == "region"


def compiler_options(platform: str) -> tuple[dict, str]:
    """Options for ``jax.jit(..., compiler_options=...)`` on ``platform``, and a one-line
    account of them for ``explain``."""
    if platform != "cpu":
        return {}, f"XLA defaults for {platform}"
    options, notes = {}, []
    width, why = vector_width()
    if width is None:
        notes.append(f"XLA's default vector width ({why})")
    else:
        options["xla_cpu_prefer_vector_width"] = int(width)
        notes.append(f"xla_cpu_prefer_vector_width={width} ({why})")
    if region_copy_analysis():
        options["xla_cpu_copy_insertion_use_region_analysis"] = True
        notes.append(f"xla_cpu_copy_insertion_use_region_analysis ({COPY_ENV}=region: no "
                     "per-iteration copy of an array a loop reads and updates; known to "
                     "miscompile nested search loops)")
    else:
        notes.append(f"XLA's default copy insertion ({COPY_ENV}=region removes per-iteration "
                     "copies but miscompiles)")
    return options, "; ".join(notes)
