"""Source-level rewrites done once, on the parsed function, before translation.

``for`` over anything but ``range`` becomes a ``range`` loop over indices, so that every
later stage (liveness, loop translation) sees one loop form:

    for T in X:              __solvent_it1 = X
        body          ->     for __solvent_i1 in range(len(__solvent_it1)):
                                 T = __solvent_it1[__solvent_i1]
                                 body

``reversed(range(...))`` with a literal step becomes a counting-down ``range``, and
``reversed(X)`` iterates ``X[::-1]`` (``_reversed``). ``enumerate(X[, start])`` (or ``start=``) binds
``(start + i, X[i])`` and ``zip(X, Y, ...)`` binds ``(X[i], Y[i], ...)`` over
``min(len(X), len(Y), ...)``. The iterable is evaluated once, before the loop, as Python
does. ``X[i]`` of an array is a view, so ``for row in A: row[0] = 1``
writes into ``A`` as in NumPy. When the iterable turns out to be a compile-time tuple, the
translator unrolls the loop instead (``ITER_ATTR`` marks such loops).

Identity: Python's iteration protocol over a sequence of known length visits ``X[0]``,
``X[1]``, ... in order; NumPy arrays iterate over their first axis the same way.

A loop's ``else`` clause becomes an ``if`` after the loop on a flag that the loop's own
breaks clear (``_LoopElse``, first). ``return`` inside a loop becomes a break out of every enclosing loop and a return after the
outermost one (``_LoopReturns``):

    for i in range(n):            __solvent_ret1 = False
        if c:                     for i in range(n):
            return v       ->         if c:
    return w                              __solvent_rv1 = v
                                          __solvent_ret1 = True
                                          break
                                  if __solvent_ret1:
                                      return __solvent_rv1
                                  return w

(an inner loop is followed by ``if __solvent_ret1: break``). Identity: the statements a
return skips are the rest of each enclosing loop, which the breaks skip, and what follows the
outermost loop, which the return there skips. ``__solvent_rv1`` is read only when the flag
says it was assigned (control.branch gives it a placeholder on the other paths).
"""
from __future__ import annotations

import ast
import copy

from .scopes import body_jumps

# on a rewritten For: (the hidden names of its iterables, target, body, the names that hold
# the sequences of a zip(*S))
ITER_ATTR = "_solvent_iterables"
PREFIX = "__solvent_"
LOOP_RETURN_VALUE = PREFIX + "rv"   # + a number: the value a return inside a loop gives


class _IterLoops(ast.NodeTransformer):
    def __init__(self):
        self.count = 0

    def visit_For(self, node: ast.For):
        self.generic_visit(node)
        if _is_call_to(node.iter, "reversed") and len(node.iter.args) == 1 and \
                not node.iter.keywords:
            node.iter = ast.copy_location(_reversed(node.iter.args[0]), node.iter)
        it = node.iter
        if _is_call_to(it, "range"):
            return node
        self.count += 1
        k = self.count
        idx = f"{PREFIX}i{k}"
        seqs: list = []
        item = _items(it, idx, k, seqs)
        names = [f"{PREFIX}it{k}_{j}" for j in range(len(seqs))]
        pre = [ast.Assign([ast.Name(n, ast.Store())], s.value if isinstance(s, ast.Starred)
                          else s) for n, s in zip(names, seqs)]
        lens = [_len_of(n, isinstance(s, ast.Starred)) for n, s in zip(names, seqs)]
        count = lens[0] if len(lens) == 1 else ast.Call(_name("min"), lens, [])
        bind = ast.Assign([copy.deepcopy(node.target)], item)
        loop = ast.For(ast.Name(idx, ast.Store()), ast.Call(_name("range"), [count], []),
                       [bind] + node.body, node.orelse, getattr(node, "type_comment", None))
        starred = {n for n, s in zip(names, seqs) if isinstance(s, ast.Starred)}
        setattr(loop, ITER_ATTR, (names, node.target, node.body, starred))
        out = pre + [loop]
        original = {id(n) for n in ast.walk(node)}
        for n in out:  # new nodes point at the `for` line; the user's own keep theirs
            for sub in ast.walk(n):
                if id(sub) not in original:
                    ast.copy_location(sub, node)
        return out


def _reversed(seq: ast.expr) -> ast.expr:
    """``reversed(range(a, b, s))`` as a range (``s`` a literal int): the last element first,
    ``range(a + (n - 1) * s, a - s, -s)`` with ``n = len(range(a, b, s))``, so C-style
    countdowns stay counted loops; ``reversed(X)`` of anything else is ``X[::-1]``.
    Identity: reversed(range(a, b, s)) visits a + k*s for k = n-1, ..., 0. The bounds are
    evaluated once more than in Python: range arguments are side-effect free here."""
    if not _is_call_to(seq, "range") or seq.keywords or not 1 <= len(seq.args) <= 3:
        return ast.Subscript(seq, ast.Slice(None, None, ast.Constant(-1)), ast.Load())
    args = seq.args
    a, b = (ast.Constant(0), args[0]) if len(args) == 1 else (args[0], args[1])
    s = _literal_int(args[2]) if len(args) == 3 else 1
    if not s:   # a step computed at run time (or 0, Python's ValueError): left to range
        return ast.Call(_name("reversed"), [seq], [])
    if s == 1:
        return ast.Call(_name("range"), [_bin(b, ast.Sub(), 1), _bin(a, ast.Sub(), 1),
                                         ast.Constant(-1)], [])
    # n = max(0, (b - a + s - 1) // s) for s > 0, max(0, (a - b - s - 1) // -s) for s < 0
    lo, hi = (a, b) if s > 0 else (b, a)
    n = ast.Call(_name("max"), [ast.Constant(0), ast.BinOp(
        _bin(ast.BinOp(copy.deepcopy(hi), ast.Sub(), copy.deepcopy(lo)), ast.Add(),
             abs(s) - 1), ast.FloorDiv(), ast.Constant(abs(s)))], [])
    first = ast.BinOp(copy.deepcopy(a), ast.Add(), ast.BinOp(
        _bin(n, ast.Sub(), 1), ast.Mult(), ast.Constant(s)))
    return ast.Call(_name("range"), [first, _bin(copy.deepcopy(a), ast.Sub(), s),
                                     ast.Constant(-s)], [])


def _literal_int(node) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _literal_int(node.operand)
        return None if v is None else -v
    return None


def _bin(x: ast.expr, op, k: int) -> ast.expr:
    return ast.BinOp(copy.deepcopy(x), op, ast.Constant(k))


def _items(it, idx: str, k: int, seqs: list) -> ast.expr:
    """The item bound at index ``idx`` of iterable ``it``: enumerate and zip (nested in
    any way) become tuples; anything else is a sequence indexed by ``idx`` (appended to
    ``seqs``, evaluated once before the loop)."""
    if _is_call_to(it, "enumerate") and 1 <= len(it.args) <= 2 and (
            not it.keywords or (len(it.args) == 1 and len(it.keywords) == 1
                                and it.keywords[0].arg == "start")):
        start = it.args[1] if len(it.args) == 2 else \
            it.keywords[0].value if it.keywords else ast.Constant(0)
        return ast.Tuple([ast.BinOp(start, ast.Add(), _name(idx)),
                          _items(it.args[0], idx, k, seqs)], ast.Load())
    if _is_call_to(it, "zip") and len(it.args) == 1 and isinstance(it.args[0], ast.Starred) \
            and not it.keywords:
        # zip(*S) (S a tuple of sequences known at compile time: np.nonzero's arrays):
        # the item is tuple(s[idx] for s in S), the length the shortest of them
        seqs.append(it.args[0])
        s = f"{PREFIX}s{k}"
        return ast.Call(_name("tuple"), [ast.GeneratorExp(
            _subscript(s, idx), [ast.comprehension(ast.Name(s, ast.Store()),
                                                   _name(f"{PREFIX}it{k}_{len(seqs) - 1}"),
                                                   [], 0)])], [])
    if _is_call_to(it, "zip") and it.args and not it.keywords and not any(
            isinstance(a, ast.Starred) for a in it.args):
        return ast.Tuple([_items(a, idx, k, seqs) for a in it.args], ast.Load())
    seqs.append(it)
    return _subscript(f"{PREFIX}it{k}_{len(seqs) - 1}", idx)


def _len_of(seq: str, starred: bool) -> ast.expr:
    """len(seq), or for the sequences of a zip(*seq) the shortest one's."""
    if not starred:
        return ast.Call(_name("len"), [_name(seq)], [])
    s = f"{PREFIX}l"
    return ast.Call(_name("min"), [ast.Call(_name("tuple"), [ast.GeneratorExp(
        ast.Call(_name("len"), [_name(s)], []),
        [ast.comprehension(ast.Name(s, ast.Store()), _name(seq), [], 0)])], [])], [])


def _is_call_to(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _name(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def _subscript(seq: str, idx: str) -> ast.Subscript:
    return ast.Subscript(_name(seq), _name(idx), ast.Load())


def _returns_in(stmts) -> list:
    """The return statements in ``stmts`` (not those of nested functions)."""
    out = []

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if isinstance(node, ast.Return):
            out.append(node)
        for c in ast.iter_child_nodes(node):
            visit(c)
    for st in stmts:
        visit(st)
    return out


class _LoopReturns:
    def __init__(self):
        self.count = 0

    def function(self, fn):
        if isinstance(fn.body, list):
            fn.body = self.block(fn.body)

    def block(self, stmts) -> list:
        out = []
        for st in stmts:
            if isinstance(st, (ast.For, ast.While)) and _returns_in([st]):
                out += self.outermost(st)
                continue
            if isinstance(st, ast.If):
                st.body, st.orelse = self.block(st.body), self.block(st.orelse)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(st)
            out.append(st)
        return out

    def outermost(self, loop) -> list:
        self.count += 1
        flag = f"{PREFIX}ret{self.count}"
        returns = _returns_in([loop])
        value = None
        after = ast.Return(None)
        if any(r.value is not None for r in returns):
            base = f"{LOOP_RETURN_VALUE}{self.count}"
            width = {len(r.value.elts) if isinstance(r.value, ast.Tuple) else None
                     for r in returns}
            if len(width) == 1 and None not in width:   # every one returns a k-tuple:
                value = [f"{base}_{j}" for j in range(width.pop())]   # k carried values
                after = ast.Return(ast.Tuple([_name(v) for v in value], ast.Load()))
            else:
                value = base
                after = ast.Return(_name(value))
        # ``while True:`` without a break of its own leaves only by returning
        forever = isinstance(loop, ast.While) and isinstance(loop.test, ast.Constant) \
            and bool(loop.test.value) and not body_jumps(loop.body, (ast.Break,))
        self.inside(loop, flag, value)
        new = [ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(False)), loop,
               after if forever else ast.If(_name(flag), [after], [])]
        for n in new:
            for sub in ast.walk(n):
                if not hasattr(sub, "lineno"):
                    ast.copy_location(sub, loop)
        return new

    def inside(self, loop, flag, value):
        loop.body = self.rewrite(loop.body, flag, value)
        loop.orelse = self.rewrite(loop.orelse, flag, value)

    def rewrite(self, stmts, flag, value) -> list:
        out = []
        for st in stmts:
            if isinstance(st, ast.Return):
                if value is None:
                    new = []
                elif isinstance(value, list):
                    new = [ast.Assign([ast.Name(v, ast.Store())], e)
                           for v, e in zip(value, st.value.elts)]
                else:
                    new = [ast.Assign([ast.Name(value, ast.Store())],
                                      st.value or ast.Constant(None))]
                new += [ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(True)),
                        ast.Break()]
                for n in new:   # errors in them name the return's line
                    for sub in ast.walk(n):
                        if not hasattr(sub, "lineno"):
                            ast.copy_location(sub, st)
                out += new
                continue
            if isinstance(st, ast.If):
                st.body = self.rewrite(st.body, flag, value)
                st.orelse = self.rewrite(st.orelse, flag, value)
            elif isinstance(st, (ast.For, ast.While)) and _returns_in([st]):
                self.inside(st, flag, value)
                out.append(st)
                leave = ast.If(_name(flag), [ast.Break()], [])
                for sub in ast.walk(leave):
                    ast.copy_location(sub, st)
                out.append(leave)
                continue
            out.append(st)
        return out


class _LoopElse(ast.NodeTransformer):
    """``for``/``while`` with an ``else`` clause: the clause runs when the loop ends without
    a break of its own, so a flag set to False by each such break guards it after the loop:

        for i in range(n):             __solvent_else1 = True
            if c:                      for i in range(n):
                break           ->         if c:
        else:                                  __solvent_else1 = False
            s                                  break
                                       if __solvent_else1:
                                           s

    Identity: Python's for-else and while-else run the clause exactly when no break of the
    loop itself was taken (a return leaves the function, skipping it either way)."""

    def __init__(self):
        self.count = 0

    def visit_For(self, node):
        return self._loop(node)

    def visit_While(self, node):
        return self._loop(node)

    def _loop(self, node):
        self.generic_visit(node)
        if not node.orelse:
            return node
        self.count += 1
        flag = f"{PREFIX}else{self.count}"
        node.body = _mark_breaks(node.body, flag)
        orelse, node.orelse = node.orelse, []
        new = [ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(True)), node,
               ast.If(_name(flag), orelse, [])]
        for n in (new[0], new[2]):
            for sub in ast.walk(n):
                if not hasattr(sub, "lineno"):
                    ast.copy_location(sub, node)
        return new


def _mark_breaks(stmts, flag) -> list:
    """``stmts`` with each break of the loop they are the body of preceded by
    ``flag = False`` (breaks of nested loops left alone)."""
    out = []
    for st in stmts:
        if isinstance(st, ast.Break):
            clear = ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(False))
            for sub in ast.walk(clear):
                ast.copy_location(sub, st)
            out += [clear, st]
            continue
        if isinstance(st, ast.If):
            st.body, st.orelse = _mark_breaks(st.body, flag), _mark_breaks(st.orelse, flag)
        elif isinstance(st, (ast.With, ast.Try)):
            st.body = _mark_breaks(st.body, flag)
        out.append(st)
    return out


WITH_MARK = PREFIX + "with"   # a statement naming a context manager whose body follows


class _FlatWith(ast.NodeTransformer):
    """``with np.errstate(...):`` / ``with warnings.catch_warnings():`` change only how NumPy
    reports floating-point events (warnings) and which warnings show, which compiled code
    does not emit: the body runs as it is. Each item becomes a marker statement
    ``__solvent_with(<context expression>)`` that the translator checks (statements.py:
    only those context managers, and no setting that raises), followed by the body; a
    ``with ... as name`` stays a With (refused)."""

    def visit_With(self, node: ast.With):
        self.generic_visit(node)
        if any(item.optional_vars is not None for item in node.items):
            return node
        marks = [ast.copy_location(ast.Expr(ast.Call(ast.Name(WITH_MARK, ast.Load()),
                                                     [item.context_expr], [])), node)
                 for item in node.items]
        return marks + node.body


def desugar(tree: ast.FunctionDef) -> ast.FunctionDef:
    _FlatWith().visit(tree)
    _LoopElse().visit(tree)
    _IterLoops().visit(tree)
    _LoopReturns().function(tree)
    ast.fix_missing_locations(tree)
    return tree
