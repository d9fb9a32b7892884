"""Threads innermost in per-thread loops over coalesced accesses.

Flattened (flatten.py), a barrier-free kernel runs each thread's loops inside the loop over
threads: ``for j: for k: s += inp[k] * w[k, j]`` strides across the rows of ``w`` at every
step of ``k``. On a GPU that access is coalesced: neighbouring threads of a warp read
neighbouring elements ``w[k, j]``, ``w[k, j + 1]``. A CPU gets the same locality with the
thread loop inside the ``k`` loop, ``for k: for tx: s[tx] += inp[k] * w[k, j0 + tx]``: a
contiguous, vectorizable inner loop. That is what fission.py makes of a loop whose body ends
with a barrier: the loop runs once per block and the threads run inside every iteration,
per-thread values (``s``) kept in per-thread arrays.

``coalesce`` ends the body of such a loop with a barrier of its own (not one of the user's:
explain lists the loops, not barriers) when:

- the kernel has no barrier, shared array or atomic update left (the flattened kind);
- the loop is a ``for name in range(...)`` at the top level of the kernel, its bounds the
  same in every thread of a block (analysis.varying), its body free of ``return``, ``break``
  and ``continue``;
- an array access in its body has the loop variable in one subscript and a value that
  differs between threads in the last subscript (the coalesced form), and the block has more
  than one thread along x;
- no thread touches an element of an array that another thread writes, anywhere in the
  kernel (barriers.conflict of the whole body with itself).

Identity: when no thread touches an element that another thread writes, every interleaving
of the threads' statements gives the same result; a barrier only selects interleavings.
"""
from __future__ import annotations

import ast

from .analysis import accesses, has_barrier, names_read
from .barriers import conflict
from .intrinsics import BARRIER


def coalesce(body: list, arrays: set[str], vary: set[str], inj, config,
             line_offset: int) -> tuple[list, list[int]]:
    """(body with a barrier at the end of each loop above, the loops' source lines)."""
    if config.block[0] < 2 or any(has_barrier(s) for s in body):
        return body, []
    picked = [s for s in body if _coalesced_loop(s, arrays, vary)]
    if not picked or conflict(body, body, arrays, inj) is not None:
        return body, []
    for s in picked:
        sync = ast.Expr(ast.Call(ast.Name(BARRIER, ast.Load()), [], []))
        s.body.append(ast.fix_missing_locations(ast.copy_location(sync, s.body[-1])))
    return body, [s.lineno + line_offset for s in picked]


def _coalesced_loop(s, arrays: set[str], vary: set[str]) -> bool:
    if not (isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse
            and isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name)
            and s.iter.func.id == "range" and 1 <= len(s.iter.args) <= 3
            and not s.iter.keywords):
        return False
    if names_read(s.iter) & vary or s.target.id in vary:
        return False
    if any(isinstance(n, (ast.Return, ast.Break, ast.Continue))
           for n in ast.walk(ast.Module(s.body, []))):
        return False
    k = s.target.id
    for a in accesses(s.body, arrays):
        if a.key is None or len(a.key) < 2:
            continue
        if names_read(a.key[-1]) & vary and any(k in names_read(c) for c in a.key[:-1]):
            return True
    return False
