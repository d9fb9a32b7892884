"""Kernels written with numba.cuda's API, as users write them, for solvent.kernel.

Each module holds ``@cuda.jit`` kernels and ``CASES``: a ``Case`` per kernel with its launch
configuration, arguments of a given size and a plain NumPy implementation of the same
computation (the reference of the tests and the competitor of benchmarks/simt.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass
class Case:
    name: str
    kernel: object  # the @cuda.jit dispatcher
    config: Callable  # size -> (grid, block)
    make_args: Callable  # (size, rng) -> tuple of arguments
    numpy: Callable  # (*args) -> None: does to args what the kernel does, with NumPy
    outputs: tuple  # argument positions the kernel writes
    steps: int = 1  # launches per run (a host-side time loop)
    launch: Callable | None = None  # (launcher, args) -> None, for host loops; default 1 call
    # (solvent launch) -> a solvent.jit function of the args running the same host loop
    jit_host: Callable | None = None
    rtol: float = 1e-9


def all_cases() -> list[Case]:
    from . import basic, shared, atomics, physics
    return basic.CASES + shared.CASES + atomics.CASES + physics.CASES
