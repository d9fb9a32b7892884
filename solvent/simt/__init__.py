"""CUDA-style kernels written with the numba.cuda API, run on a CPU through solvent.

``solvent.kernel(fn)`` and ``k[grid, block](*args)``: launch.py. The kernel's source is
rewritten for the launch (intrinsics.py), its barriers are removed where the code around them
cannot conflict (barriers.py), and it is lowered to a loop over blocks of a nest of loops
over threads holding the remaining barriers (nest.py), which passes/lower_barriers.py lowers
on the IR (fission, interchange); a kernel that path does not take is lowered to plain loops
with loop fission on its AST instead (fission.py); solvent.jit compiles the result. When
blocks write disjoint elements (analysis.Injectivity) the block loop says ``disjoint = true``
and the native backend runs it on its thread pool; atomics on array arguments then go to
partial arrays per group of blocks (privatize.py). A kernel left with no barrier, no shared
memory and no atomics is flattened instead (flatten.py): one loop per grid dimension over
global thread indices, guards turned into loop bounds, the contiguous dimension innermost;
on XLA (``k[grid, block].on("xla")``) such loops raise whole into tensor programs.
"""
from .launch import KernelFunction, Launch, kernel

__all__ = ["kernel", "KernelFunction", "Launch"]
