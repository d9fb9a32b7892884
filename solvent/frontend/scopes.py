"""Syntactic facts about a function body: which names a statement assigns, which names are
read outside it (a conservative liveness), and whether it breaks or continues its loop."""
from __future__ import annotations

import ast

BREAK_FLAG = "__solvent_break"
CONTINUE_FLAG = "__solvent_continue"
RETURN_FLAG = "__solvent_returned"
RETURN_VALUE = "__solvent_return_value"
# control-flow pseudo-variables: always merged at joins, False where unset
FLAGS = (BREAK_FLAG, CONTINUE_FLAG, RETURN_FLAG)


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


def jumps(stmt, kinds=(ast.Break, ast.Continue)) -> bool:
    """Whether ``stmt`` contains a break/continue that leaves *this* loop level."""
    if isinstance(stmt, kinds):
        return True
    if isinstance(stmt, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
        return False
    return any(jumps(c, kinds) for c in ast.iter_child_nodes(stmt))


def body_jumps(stmts, kinds) -> bool:
    return any(jumps(s, kinds) for s in stmts)


def always_returns(stmts) -> bool:
    """Whether every path through these statements ends in a return (syntactically)."""
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and always_returns(s.body) and always_returns(s.orelse):
            return True
    return False
