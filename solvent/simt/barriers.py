"""Barrier elimination: a ``cuda.syncthreads()`` is removed where the code before and after
it cannot conflict, so fission (fission.py) makes fewer, larger thread loops.

Within one statement list, the code between barriers (a run) executes as one thread loop
after fission. Removing the barrier between runs X and Y merges them; that is exact when no
element of an array is written by one thread in X and touched by another in Y (or read in X
and written in Y): every access of such an array in X and Y goes through an index that is
one-to-one in the thread index (analysis.Injectivity.private). A barrier with no run on one
side (first or last in its list, next to another barrier, or next to a loop that itself
holds barriers, which fission separates anyway) orders nothing and is removed; not so next
to an ``if`` holding barriers, or first in an ``if``'s body: an ``if`` whose condition is
known at compile time (``x.shape[0] > 0``) is gone after the frontend, and on the IR path
(nest.py) the code before it and inside it would run in one thread loop. The last
barrier of a loop or if body is kept: it decides that the body is interchanged with the
thread loop.

Identity: removing a barrier between two runs whose accesses cannot conflict leaves every
thread's reads seeing the same writes.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..frontend.scopes import assigned_names
from .analysis import Injectivity, accesses, has_barrier, is_barrier


@dataclass
class BarrierNote:
    line: int
    kept: bool
    reason: str


def eliminate(body: list, arrays: set[str], inj: Injectivity, line_offset: int):
    """(body without the removable barriers, [BarrierNote])."""
    notes: list[BarrierNote] = []
    out = _level(body, arrays, inj, line_offset, notes, top=True)
    notes.sort(key=lambda n: n.line)
    return out, notes


def _level(stmts, arrays, inj, off, notes, top, in_if=False):
    # recurse into compound statements first
    stmts = [_inner(s, arrays, inj, off, notes) for s in stmts]
    total = sum(1 for s in stmts if is_barrier(s) or has_barrier(s))
    items: list = []  # ("run", [stmts]) | ("barrier", node) | ("compound", node)
    for s in stmts:
        if is_barrier(s):
            items.append(("barrier", s))
        elif has_barrier(s):
            items.append(("compound", s))
        elif items and items[-1][0] == "run":
            items[-1][1].append(s)
        else:
            items.append(("run", [s]))
    out: list = []
    kept_here = total
    for k, (kind, x) in enumerate(items):
        if kind != "barrier":
            if kind == "run" and out and out[-1][0] == "run":
                out[-1] = ("run", out[-1][1] + x)
            else:
                out.append((kind, x))
            continue
        line = x.lineno + off
        prev = out[-1] if out else None
        nxt = items[k + 1] if k + 1 < len(items) else None
        last_one = not top and kept_here == 1
        if last_one:
            notes.append(BarrierNote(line, True, "the last barrier of its loop/if body"))
            out.append((kind, x))
            continue
        if prev is None or prev[0] != "run" or nxt is None or nxt[0] != "run":
            unsafe = prev is None and in_if
            for n, first in ((prev, False), (nxt, True)):
                if n is not None and n[0] == "compound" and isinstance(n[1], ast.If):
                    other = nxt if first else prev
                    edge = _if_edge(n[1], first)
                    unsafe |= edge is None or (other is not None and other[0] == "run" and (
                        conflict(edge, other[1], arrays, inj, off) if first else
                        conflict(other[1], edge, arrays, inj, off)) is not None)
            if not unsafe:
                why = ("nothing before it" if prev is None else "nothing after it" if nxt is None
                       else "next to another barrier or a loop fission separates anyway")
                notes.append(BarrierNote(line, False, why))
                kept_here -= 1
                continue
            # an if whose condition is known when the kernel compiles (x.shape[0] > 0, a
            # constant) is gone after solvent's frontend: it separates nothing there
            notes.append(BarrierNote(line, True, "next to an if, which may be decided at "
                                     "compile time and then separates nothing"))
            out.append((kind, x))
            continue
        clash = conflict(prev[1], nxt[1], arrays, inj, off)
        if clash is None:
            notes.append(BarrierNote(line, False, "no conflicting accesses around it"))
            kept_here -= 1
            continue
        notes.append(BarrierNote(line, True, clash))
        out.append((kind, x))
    flat: list = []
    for kind, x in out:
        flat.extend(x if kind == "run" else [x])
    return flat


def _if_edge(s: ast.If, first: bool) -> list | None:
    """The statements of ``s`` that run before its first barrier (``first``) or after its
    last one, in either branch; None when a branch holds no barrier (then the code around
    the ``if`` may meet across it)."""
    out = []
    for branch in (s.body, s.orelse):
        if not any(has_barrier(x) for x in branch):
            return None
        for x in (branch if first else reversed(branch)):
            if is_barrier(x):
                break
            if has_barrier(x):
                if isinstance(x, ast.If):
                    inner = _if_edge(x, first)
                    if inner is None:
                        return None
                    out.extend(inner)
                break
            out.append(x)
    return out


def _inner(s, arrays, inj, off, notes):
    if not has_barrier(s) or is_barrier(s):
        return s
    if isinstance(s, (ast.For, ast.While)):
        s.body = _level(s.body, arrays, inj, off, notes, top=False)
    elif isinstance(s, ast.If):
        s.body = _level(s.body, arrays, inj, off, notes, top=False, in_if=True)
        s.orelse = _level(s.orelse, arrays, inj, off, notes, top=False, in_if=True)
    return s


def conflict(before: list, after: list, arrays: set[str], inj: Injectivity,
             off: int = 0) -> str | None:
    """Why threads may conflict across a barrier between ``before`` and ``after``, or None."""
    a, b = accesses(before, arrays), accesses(after, arrays)
    assigned = set(assigned_names(before)) | set(assigned_names(after))
    for name in sorted({x.array for x in a + b}):
        xa = [x for x in a if x.array == name]
        xb = [x for x in b if x.array == name]
        wa, wb = any(x.write for x in xa), any(x.write for x in xb)
        if not ((wa and xb) or (wb and xa)):
            continue
        if not inj.private([x.key for x in xa + xb], assigned):
            first = next(x for x in xa + xb if x.write)
            return (f"{name!r} is written on one side (line {getattr(first.node, 'lineno', 0) + off}) "
                    "and threads may touch the same element on the other")
    return None
