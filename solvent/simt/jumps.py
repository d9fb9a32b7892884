"""``break`` / ``continue`` in a kernel loop that holds ``cuda.syncthreads()`` become flags.

Barrier lowering (fission.py on the AST, nest.py + passes/lower_barriers.py on the IR) moves a
loop around a barrier outside the loop over threads; a jump out of the middle of its body has
no place there. So, for such a loop only::

    for it in range(n):                 __simt_brk0 = False
        A                               for __simt_it0 in range(n):
        if done[0] > 0:                     if not __simt_brk0:
            break              ->               it = __simt_it0
        cuda.syncthreads()                      A
        B                                       if done[0] > 0:
                                                    __simt_brk0 = True
                                                if not __simt_brk0:
                                                    cuda.syncthreads()
                                                    B

The iterations after a ``break`` of a ``for`` run with nothing to do, and the loop variable
keeps the value it had at the break; a ``while`` tests ``not brk and (test)``, so its
test is not evaluated again after the break, as in Python. A ``continue`` sets a flag that the
next iteration clears. The barriers end up under ``if not flag``: that is fine exactly when
the jump's condition is the same in every thread of a block, and barrier lowering refuses it
(DivergentBarrierError) when it is not, as CUDA leaves it undefined.
"""
from __future__ import annotations

import ast
import itertools

from .analysis import has_barrier

_ids = itertools.count()


def eliminate(body: list) -> list:
    """``body`` with the break/continue of its barrier-holding loops replaced by flags."""
    out = []
    for s in body:
        r = _stmt(s)
        out.extend(r if isinstance(r, list) else [r])
    return out


def _stmt(s):
    for field in ("body", "orelse"):
        if isinstance(getattr(s, field, None), list):
            new = []
            for c in getattr(s, field):
                r = _stmt(c)
                new.extend(r if isinstance(r, list) else [r])
            setattr(s, field, new)
    if isinstance(s, (ast.For, ast.While)) and not s.orelse and has_barrier(s) and \
            any(_jumps(c) for c in s.body):
        return _loop(s)
    return s


def _jumps(s) -> bool:
    """Whether ``s`` holds a break/continue of the loop around it (not of a nested loop)."""
    if isinstance(s, (ast.Break, ast.Continue)):
        return True
    if isinstance(s, (ast.For, ast.While, ast.FunctionDef)):
        return False
    return any(_jumps(c) for c in ast.iter_child_nodes(s))


def _name(n, ctx=ast.Load):
    return ast.Name(n, ctx())


def _assign(n, value):
    return ast.Assign([_name(n, ast.Store)], value)


def _loop(s):
    k = next(_ids)
    brk, cont, it = f"__simt_brk{k}", f"__simt_cont{k}", f"__simt_it{k}"
    flags = []
    body = _guarded(s.body, brk, cont, flags)
    if body is None:
        return s
    used_cont = cont in flags
    if used_cont:
        body = [_assign(cont, ast.Constant(False))] + body
    before = [_assign(brk, ast.Constant(False))]
    after = []
    if isinstance(s, ast.For):
        if not isinstance(s.target, ast.Name):
            return s
        # the loop runs on under another name; the user's variable is set by the iterations
        # that are not skipped, so after a break it holds its value at the break
        body = [_assign(s.target.id, _name(it))] + body
        start = _first(s.iter)
        if start is not None:
            # the range is not empty: the variable is defined after the loop, which
            # solvent's frontend needs to see before the loop
            before.append(_assign(s.target.id, ast.Constant(start)))
        s.target = _name(it, ast.Store)
        s.body = [ast.If(ast.UnaryOp(ast.Not(), _name(brk)), body, [])]
    else:
        s.test = ast.BoolOp(ast.And(), [ast.UnaryOp(ast.Not(), _name(brk)), s.test])
        s.body = body
    out = before + [s] + after
    for n in out:
        for m in ast.walk(n):
            if not hasattr(m, "lineno") and isinstance(m, (ast.stmt, ast.expr)):
                ast.copy_location(m, s)
    return ast.fix_missing_locations(ast.Module(out, [])).body


def _first(it) -> int | None:
    """The first value of ``range(...)`` of constants that is not empty, else None."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
            and it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3
            and all(isinstance(a, ast.Constant) and type(a.value) is int for a in it.args)):
        return None
    r = range(*(a.value for a in it.args))
    return r[0] if len(r) else None


def _guarded(stmts, brk, cont, flags) -> list:
    """``stmts`` with their jumps set flags; what follows a possible jump runs under
    ``if not (flags)``."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Break):
            flags.append(brk)
            out.append(ast.copy_location(_assign(brk, ast.Constant(True)), s))
            return out
        if isinstance(s, ast.Continue):
            flags.append(cont)
            out.append(ast.copy_location(_assign(cont, ast.Constant(True)), s))
            return out
        if not _jumps(s):
            out.append(s)
            continue
        if not isinstance(s, ast.If):
            return None  # a jump inside with/try: left to the barrier lowering's refusal
        body = _guarded(s.body, brk, cont, flags)
        orelse = _guarded(s.orelse, brk, cont, flags)
        if body is None or orelse is None:
            return None
        s.body, s.orelse = body or [ast.copy_location(ast.Pass(), s)], orelse
        out.append(s)
        rest = _guarded(stmts[i + 1:], brk, cont, flags)
        if rest is None:
            return None
        if rest:
            jumped = [_name(f) for f in dict.fromkeys(flags)]
            test = ast.UnaryOp(ast.Not(), jumped[0] if len(jumped) == 1 else
                               ast.BoolOp(ast.Or(), jumped))
            out.append(ast.copy_location(ast.If(test, rest, []), stmts[i + 1]))
        return out
    return out
