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

- the kernel has no atomic update; the block has more than one thread along x;
- the loop is a ``for name in range(...)`` directly in a run (the barrier-free statements
  between two of the kernel's barriers, at the top level or in the body of a loop or ``if``
  that holds barriers; the whole kernel when it has none), its bounds the same in every
  thread of a block (analysis.varying), its body free of ``return``, ``break`` and
  ``continue``;
- an array access in its body has the loop variable in one subscript and a value that
  differs between threads in the last subscript (the coalesced form: ``sB[k, tx]`` of a
  tiled matmul's inner product over a shared tile);
- no thread touches an element of an array that another thread writes in that run
  (barriers.conflict of the run with itself).

Identity: when no thread touches an element that another thread writes in a run, every
interleaving of the threads' statements in that run gives the same result; a barrier only
selects interleavings. Each thread's own statements keep their order.
"""
from __future__ import annotations

import ast
import itertools

import numpy as np

from ..frontend.scopes import assigned_names
from .analysis import accesses, has_barrier, is_barrier, names_read
from .barriers import conflict
from .fission import COALESCED_ATTR
from .intrinsics import BARRIER


def coalesce(body: list, arrays: set[str], vary: set[str], inj, config,
             line_offset: int) -> tuple[list, list[int]]:
    """(body with a barrier at the end of each loop above, the loops' source lines)."""
    if config.block[0] < 2:
        return body, []
    body = _distribute(body, body, arrays, vary, itertools.count())
    picked = []
    for run in _runs(body):
        loops = [s for s in run if _coalesced_loop(s, arrays, vary, body)]
        if loops and conflict(run, run, arrays, inj) is None:
            picked += loops
    for n, s in enumerate(picked):
        if _own_variable(s, body):   # fission needs a name no thread assigns elsewhere
            _rename(s, f"__simt_i{n}")
        setattr(s, COALESCED_ATTR, True)
        sync = ast.Expr(ast.Call(ast.Name(BARRIER, ast.Load()), [], []))
        s.body.append(ast.fix_missing_locations(ast.copy_location(sync, s.body[-1])))
    return body, sorted(s.lineno + line_offset for s in picked)


def _distribute(stmts: list, whole: list, arrays, vary, counter) -> list:
    """``stmts`` with each barrier-free ``if`` that holds a loop ``_coalesced_loop`` picks
    (``if j < m: s = 0.0; for k in range(n): s += w[k, j]; out[j] = s``, the guard strangers
    write) distributed over its statements, so that the loop stands directly in its run:

        __simt_g0 = j < m
        if __simt_g0: s = 0.0
        for k in range(n):
            if __simt_g0: s += w[k, j]
        if __simt_g0: out[j] = s

    The condition is evaluated once, as before; a thread for which it is false runs no
    statement of the body but constant initializations of names the ``if`` alone uses
    (``s = 0.0`` above stays unguarded: the frontend needs ``s`` defined on every path). Only when the loop's range is the same in every thread and cannot
    fail (names, constants, ``+ - *``, array shapes), reads nothing the body assigns, and its
    variable is read nowhere else in the kernel (a thread that skipped the body now runs the
    empty loop); no ``return``, ``break``, ``continue`` or ``else`` in the ``if``."""
    out = []
    for s in stmts:
        if has_barrier(s):
            if isinstance(s, (ast.For, ast.While, ast.If)) and not is_barrier(s):
                s.body = _distribute(s.body, whole, arrays, vary, counter)
                s.orelse = _distribute(s.orelse, whole, arrays, vary, counter)
            out.append(s)
            continue
        out.extend(_guarded(s, whole, arrays, vary, counter) or [s])
    return out


def _guarded(s, whole, arrays, vary, counter) -> list | None:
    if not isinstance(s, ast.If) or s.orelse or any(
            isinstance(n, (ast.Return, ast.Break, ast.Continue)) for n in ast.walk(s)):
        return None
    body = _distribute(s.body, whole, arrays, vary, counter)
    loops = [x for x in body if _coalesced_loop(x, arrays, vary, whole)]
    if not loops:
        return None
    assigned = set(assigned_names(body))
    for x in loops:
        if names_read(x.iter) & assigned or not all(_safe_bound(a) for a in x.iter.args) or \
                not _own_variable(x, whole):
            return None
    g = f"__simt_g{next(counter)}"
    vary.add(g)
    out = [ast.Assign([ast.Name(g, ast.Store())], s.test)]
    outside = _names_outside(s, whole)
    for x in body:
        if _initializer(x, outside):
            out.append(x)   # defined in every thread, as the frontend needs
        elif any(x is y for y in loops):
            x.body = [ast.copy_location(ast.If(ast.Name(g, ast.Load()), x.body, []), x)]
            out.append(x)
        else:
            out.append(ast.copy_location(ast.If(ast.Name(g, ast.Load()), [x], []), x))
    return [ast.fix_missing_locations(ast.copy_location(x, s)) if x is out[0] else x
            for x in out]


def _names_outside(node, whole) -> set[str]:
    inside = {id(n) for n in ast.walk(node)}
    return {n.id for w in whole for n in ast.walk(w)
            if isinstance(n, ast.Name) and id(n) not in inside}


def _initializer(s, outside: set[str]) -> bool:
    """``s = 0.0`` / ``s = np.float32(0)``: a name the ``if`` alone uses set to a constant,
    which runs unguarded (a thread that skips the body never reads it)."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and s.targets[0].id not in outside):
        return False
    v = s.value
    if isinstance(v, ast.Call) and not v.keywords and all(isinstance(a, ast.Constant)
                                                          for a in v.args):
        f = v.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        return name in ("float", "int", "bool", "complex") or \
            isinstance(getattr(np, name, None), type) and issubclass(getattr(np, name),
                                                                     np.generic)
    return isinstance(v, ast.Constant) or isinstance(v, ast.UnaryOp) and \
        isinstance(v.operand, ast.Constant)


def _own_variable(loop, whole) -> bool:
    """The loop's variable is read nowhere in the kernel but in this loop and in other loops
    over that name (which assign it before reading it)."""
    k = loop.target.id
    inside = set()
    for w in whole:
        for n in ast.walk(w):
            if n is loop or isinstance(n, ast.For) and isinstance(n.target, ast.Name) and \
                    n.target.id == k:
                inside |= {id(m) for m in ast.walk(n)}
    return not any(isinstance(n, ast.Name) and n.id == k and id(n) not in inside
                   for w in whole for n in ast.walk(w))


def _rename(loop, new: str):
    k = loop.target.id
    for n in ast.walk(loop):
        if isinstance(n, ast.Name) and n.id == k and n is not loop.iter:
            n.id = new
    for n in ast.walk(loop.iter):   # the range is read before the loop binds its name
        if isinstance(n, ast.Name) and n.id == new:
            n.id = k


def _safe_bound(e) -> bool:
    for n in ast.walk(e):
        if isinstance(n, ast.Subscript):
            if not (isinstance(n.value, ast.Attribute) and n.value.attr == "shape"):
                return False
        elif isinstance(n, ast.BinOp):
            if not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
                return False
        elif isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in ("min", "max", "len")):
                return False
        elif not isinstance(n, (ast.Name, ast.Constant, ast.Attribute, ast.Load, ast.operator,
                                ast.UnaryOp, ast.USub, ast.Tuple)):
            return False
    return True


def _runs(stmts: list):
    """The runs of ``stmts``: lists of consecutive barrier-free statements, split at barriers
    and at statements holding barriers, whose bodies are searched the same way."""
    run: list = []
    for s in stmts:
        if not has_barrier(s):
            run.append(s)
            continue
        if run:
            yield run
        run = []
        if isinstance(s, (ast.For, ast.While, ast.If)) and not is_barrier(s):
            yield from _runs(s.body)
            yield from _runs(s.orelse)
    if run:
        yield run


def _coalesced_loop(s, arrays: set[str], vary: set[str], whole: list) -> bool:
    if not (isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse
            and isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name)
            and s.iter.func.id == "range" and 1 <= len(s.iter.args) <= 3
            and not s.iter.keywords):
        return False
    if names_read(s.iter) & vary:
        return False
    # a name another loop binds per thread (``for k in range(tx, n, blockDim.x)``) is
    # varying by name only: this loop's own variable is the same in every thread
    if s.target.id in vary and not _own_variable(s, whole):
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
