"""Barrier elimination: a ``cuda.syncthreads()`` is removed where the code before and after
it cannot conflict, so fission (fission.py) makes fewer, larger thread loops.

Within one statement list, the code between barriers (a run) executes as one thread loop
after fission. Removing the barrier between runs X and Y merges them; that is exact when no
element of an array is written by one thread in X and touched by another in Y (or read in X
and written in Y): every access of such an array in X and Y goes through an index that is
one-to-one in the thread index (analysis.Injectivity.private). A barrier with no run on one
side (first or last in its list, next to another barrier, or next to a statement that itself
holds barriers, which fission separates anyway) orders nothing and is removed. The last
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


def _level(stmts, arrays, inj, off, notes, top):
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
            why = ("nothing before it" if prev is None else "nothing after it" if nxt is None
                   else "next to another barrier or a statement fission separates anyway")
            notes.append(BarrierNote(line, False, why))
            kept_here -= 1
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


def _inner(s, arrays, inj, off, notes):
    if not has_barrier(s) or is_barrier(s):
        return s
    if isinstance(s, (ast.For, ast.While)):
        s.body = _level(s.body, arrays, inj, off, notes, top=False)
    elif isinstance(s, ast.If):
        s.body = _level(s.body, arrays, inj, off, notes, top=False)
        s.orelse = _level(s.orelse, arrays, inj, off, notes, top=False)
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
