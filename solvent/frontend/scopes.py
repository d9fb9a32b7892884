"""Syntactic facts about a function body: which names a statement assigns, which names are
live after it (read before being written on some path: ``Liveness``), and whether it breaks
or continues its loop."""
from __future__ import annotations

import ast

BREAK_FLAG = "__solvent_break"
CONTINUE_FLAG = "__solvent_continue"
RETURN_FLAG = "__solvent_returned"
RETURN_VALUE = "__solvent_return_value"
# control-flow pseudo-variables: always merged at joins, False where unset
FLAGS = (BREAK_FLAG, CONTINUE_FLAG, RETURN_FLAG)
# set (Const(True)) where this path has certainly failed: a ``raise``, or an error NumPy
# raises on a line that runs only under a run-time condition, became a check that always
# fails; the rest of the block never runs and an if's join takes the other path's names
FAILED = "__solvent_failed"


def assigned_names(stmts) -> list[str]:
    """Names bound by these statements (not descending into nested functions), in order."""
    out: dict[str, None] = {}

    def target(t):
        if isinstance(t, ast.Name):
            out[t.id] = None
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e)
        elif isinstance(t, ast.Starred):
            target(t.value)

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if isinstance(node, ast.Assign):
            for t in node.targets:
                target(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            target(node.target)
        elif isinstance(node, ast.For):
            target(node.target)
        elif isinstance(node, ast.NamedExpr):
            target(node.target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for s in stmts:
        visit(s)
    return list(out)


def loads_outside(func: ast.FunctionDef, inner) -> set[str]:
    """Names read anywhere in ``func`` outside the subtree ``inner`` (or the subtrees of a
    list of nodes). AugAssign targets count as reads."""
    inside = {id(n) for top in (inner if isinstance(inner, list) else [inner])
              for n in ast.walk(top)}
    names = set()
    for n in ast.walk(func):
        if id(n) in inside:
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            names.add(n.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            names.add(n.target.id)
    return names


def _reads(node) -> set[str]:
    """Names a node reads (conservatively: every load inside it, lambdas included)."""
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, (ast.Load, ast.Del))}


def _target_effect(t, reads: set, kills: set) -> None:
    """An assignment target: a plain name is written; ``x[i] = v`` / ``x.a = v`` read ``x``
    and ``i``."""
    if isinstance(t, ast.Name):
        kills.add(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _target_effect(e, reads, kills)
    elif isinstance(t, ast.Starred):
        _target_effect(t.value, reads, kills)
    else:
        reads |= _reads(t)


class Liveness:
    """Read-before-write liveness of a function's local names over its structured control
    flow: a name is live at a point when some path from there reads it before writing it.
    ``break`` continues at the loop's exit, ``continue`` at its head, ``return`` ends the
    function; a loop's head is solved to a fixpoint. Identity: the textbook backward
    dataflow live_in(s) = reads(s) | (live_out(s) - writes(s)), with live_out the union over
    the successors, on the control-flow graph the statements describe.

    ``after(node)``: names live after ``node`` (a statement, or a list of statements: after
    the last) completes normally; for a loop, the names live at its head (read by a later
    iteration or after the loop). ``jump_target(node)``: names live where a ``break`` or
    ``continue`` inside ``node``'s innermost loop goes (its head, a superset of its exit);
    empty outside loops (``return`` ends the function)."""

    def __init__(self, func):
        self._after: dict[int, set] = {}
        self._head: dict[int, set] = {}
        self._loop: dict[int, object] = {}
        body = func.body if isinstance(func.body, list) else []
        self._block(body, set(), None, None, None)

    def known(self, node) -> bool:
        last = node[-1] if isinstance(node, list) else node
        return id(last) in self._after

    def after(self, node) -> set[str]:
        if isinstance(node, (ast.For, ast.While)):
            return self._head[id(node)]
        last = node[-1] if isinstance(node, list) else node
        return self._after[id(last)]

    def jump_target(self, node) -> set[str]:
        first = node[0] if isinstance(node, list) else node
        loop = self._loop.get(id(first))
        return set() if loop is None else self._head[id(loop)]

    def _block(self, stmts, live, brk, cont, loop) -> set:
        live = set(live)
        for s in reversed(stmts):
            self._after[id(s)] = set(live)
            self._loop[id(s)] = loop
            live = self._stmt(s, live, brk, cont, loop)
        return live

    def _stmt(self, s, live, brk, cont, loop) -> set:
        if isinstance(s, ast.If):
            return _reads(s.test) | self._block(s.body, live, brk, cont, loop) | \
                self._block(s.orelse, live, brk, cont, loop)
        if isinstance(s, (ast.For, ast.While)):
            exit_live = self._block(s.orelse, live, brk, cont, loop)
            head: set = set()
            while True:     # grows monotonically; names are finite
                body = self._block(s.body, head, exit_live, head, s)
                if isinstance(s, ast.For):
                    reads, kills = set(), set()
                    _target_effect(s.target, reads, kills)
                    body = (body - kills) | reads
                    new = exit_live | body
                else:
                    new = _reads(s.test) | exit_live | body
                if new == head:
                    break
                head = new
            self._head[id(s)] = head
            return head | (_reads(s.iter) if isinstance(s, ast.For) else set())
        if isinstance(s, ast.Break):
            return set(brk or ())
        if isinstance(s, ast.Continue):
            return set(cont or ())
        if isinstance(s, ast.Return):
            return _reads(s.value)
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            reads, kills = set(), set()
            for t in targets:
                _target_effect(t, reads, kills)
            return (live - kills) | reads | _reads(s.value)
        if isinstance(s, ast.AugAssign):
            return live | _reads(s.value) | _reads(s.target) | (
                {s.target.id} if isinstance(s.target, ast.Name) else set())
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            return live - {(a.asname or a.name).split(".")[0] for a in s.names}
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # a nested function reads what its body reads, at the latest when it is called
            return (live - {s.name}) | _reads(s)
        # anything else (expression statements, assert, del, unsupported statements):
        # conservatively reads every name in it and writes none
        return live | _reads(s)


def jumps(stmt, kinds=(ast.Break, ast.Continue)) -> bool:
    """Whether ``stmt`` contains a break/continue that leaves *this* loop level."""
    if isinstance(stmt, kinds):
        return True
    if isinstance(stmt, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
        return False
    return any(jumps(c, kinds) for c in ast.iter_child_nodes(stmt))


def body_jumps(stmts, kinds) -> bool:
    return any(jumps(s, kinds) for s in stmts)


def always_returns(stmts, or_raises: bool = False) -> bool:
    """Whether every path through these statements ends in a return (syntactically); with
    ``or_raises``, in a return or a raise (no path falls off the end)."""
    ends = (ast.Return, ast.Raise) if or_raises else ast.Return
    for s in stmts:
        if isinstance(s, ends):
            return True
        if isinstance(s, ast.If) and always_returns(s.body, or_raises) and \
                always_returns(s.orelse, or_raises):
            return True
    return False
