"""Barrier lowering: a kernel body (one thread's code) becomes block-level code in which
barrier-free runs of statements are loops over the threads of the block (Polygeist's fission).

    body = R0; sync; R1                 for t in threads: R0
                                  ->    for t in threads: R1

A statement holding barriers (``for``, ``while``, ``if``) is interchanged with the thread
loop: it runs once per block, its bounds or condition evaluated at block level, and its body
is lowered the same way. That needs the bounds or condition to be the same in every thread of
the block: when they depend on the thread index (analysis.varying) the kernel is refused at
compile time (``DivergentBarrierError``); when they depend on values computed per thread, the
compiled code checks at run time that all threads agree and raises the same error otherwise.

Values live across a fission point are kept in per-thread arrays (``__simt_s_<name>``):
stored at the end of the run that assigns them, reloaded at the start of the runs that use
them. A value that is the same in every thread of the block (not ``analysis.varying``: the
``s`` of ``while s > 0: ...; s //= 2``) stays one block-level scalar: after a run it holds
the last thread's value, which is every thread's; a run that reassigns it starts each thread
from the block's value (``__simt_k_<name>``); block-level conditions on it need no check. ``return`` sets a per-thread flag (``__simt_ret``); later runs skip a thread that
returned, as a GPU does for an exited thread.

Identity: a thread's statements run in their order; the threads of a block all finish a run
before any starts the next, which is what a barrier between the runs guarantees.
"""
from __future__ import annotations

import ast
import copy
import itertools
from dataclasses import dataclass, field

from ..errors import DivergentBarrierError, UnsupportedError
from ..frontend.scopes import assigned_names
from .analysis import has_barrier, is_barrier, names_read
from .intrinsics import BLOCK, FLAT_THREAD, THREAD
from .privatize import GROUP_IV
from ..ops.simt import BLOCKS, THREADS

RET = "__simt_ret"
BLOCK_IV = "__simt_b"
NOTE = "__simt_note"
WEAK = "__simt_weak"
KIND_ATTR = "_simt_kind"  # on a generated Assert: the exception it raises
PARALLEL_ATTR = "_simt_parallel"  # on the block loop's For: blocks may run in parallel
# on a kernel's For that coalesce.py ended with a barrier of its own (no thread touches
# another's elements in its run): the loops over threads along y and z stay around it
COALESCED_ATTR = "_simt_coalesced"
# on a For this module makes: what it runs over, ``"blocks"`` or ``"threads"`` (ops/simt.py);
# the translator puts it on the loop.for as the attribute ``simt``
ROLE_ATTR = "_simt_role"


def _role(loop: ast.For, role: str) -> ast.For:
    setattr(loop, ROLE_ATTR, role)
    return loop


def spill_name(n: str) -> str:
    return f"__simt_s_{n}"


def block_name(n: str) -> str:
    return f"__simt_k_{n}"


@dataclass
class Unit:
    stmts: list
    in_loop: bool
    first: bool = False


@dataclass
class Interchanged:
    kind: str  # "for" | "if" | "while"
    node: ast.stmt
    exprs: list  # bounds (for) or [test]
    body: list
    orelse: list = field(default_factory=list)


def _n(name, ctx=None):
    return ast.Name(name, ctx or ast.Load())


def _assign(name, value):
    return ast.Assign([_n(name, ast.Store())], value)


def _returns(node) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


class Fission:
    def __init__(self, body, config, params, vary, loc, allocations):
        self.config = config
        self.params = set(params)
        self.vary = vary
        self.loc = loc  # ast node -> SourceLoc
        self.has_returns = any(_returns(s) for s in body)
        self.counter = itertools.count()
        self.units: list[Unit] = []
        self.items = self.build(body, in_loop=False)
        if self.has_returns:
            init = _assign(RET, ast.Constant(False))
            ast.copy_location(init, body[0])
            if self.items and isinstance(self.items[0], Unit):
                self.items[0].stmts.insert(0, init)
            else:
                self.units.insert(0, Unit([init], False))
                self.items.insert(0, self.units[0])
        if self.units:
            self.units[0].first = True
        self.allocations = allocations  # block-level statements before the first run
        self.dtypes: dict = {}  # kept name -> (dtype, weak), from launch.py's type probe
        self.spills = self.analyse()

    # --- structure ------------------------------------------------------------------------
    def error(self, node, message, hint=None, cls=UnsupportedError):
        return cls(message, self.loc(node), hint)

    def build(self, stmts, in_loop):
        items, run = [], []

        def flush():
            if run:
                u = Unit(self.guard(list(run), 0), in_loop)
                self.units.append(u)
                items.append(u)
                run.clear()

        for s in stmts:
            if is_barrier(s):
                flush()
            elif not has_barrier(s):
                run.append(s)
            else:
                flush()
                items.append(self.interchange(s, in_loop))
        flush()
        return items

    def interchange(self, s, in_loop):
        if isinstance(s, ast.For):
            it = s.iter
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                    and it.func.id == "range" and 1 <= len(it.args) <= 3 and not it.keywords
                    and isinstance(s.target, ast.Name)) or s.orelse:
                raise self.error(s, "cuda.syncthreads() inside a loop other than "
                                 "`for name in range(...)` or `while`")
            self.uniform(it, s, "the range of this loop")
            self.no_jumps(s.body)
            return Interchanged("for", s, list(it.args), self.build(s.body, True))
        if isinstance(s, ast.While):
            if s.orelse:
                raise self.error(s, "while-else around cuda.syncthreads()")
            self.uniform(s.test, s, "the condition of this loop")
            self.no_jumps(s.body)
            return Interchanged("while", s, [s.test], self.build(s.body, True))
        if isinstance(s, ast.If):
            self.uniform(s.test, s, "the condition of this if")
            return Interchanged("if", s, [s.test], self.build(s.body, in_loop),
                                self.build(s.orelse, in_loop))
        raise self.error(s, f"cuda.syncthreads() inside a {type(s).__name__} statement is "
                         "not supported")

    def uniform(self, expr, node, what):
        bad = sorted(names_read(expr) & self.vary)
        if bad:
            shown = [b for b in bad if not b.startswith("__simt_")]
            through = f" (through {', '.join(map(repr, shown))})" if shown else ""
            raise self.error(
                node, f"cuda.syncthreads() is reached under {what}, which depends on the "
                f"thread index{through}: threads of one block "
                "would not all reach the same barrier", "make the condition the same for all "
                "threads of a block, or move the barrier out of it", DivergentBarrierError)

    def no_jumps(self, body):
        for s in body:
            for n in _level_nodes(s):
                if isinstance(n, (ast.Break, ast.Continue)):
                    raise self.error(n, "break/continue in a loop that holds "
                                     "cuda.syncthreads() is not supported")

    def guard(self, stmts, depth):
        """``return`` -> ``__simt_ret = True`` (and ``break`` out of loops); the statements
        after a possible return run under ``if not __simt_ret``."""
        out = []
        for i, s in enumerate(stmts):
            returns = _returns(s)  # before _ret_stmt replaces the returns
            out.extend(self._ret_stmt(s, depth))
            if returns and stmts[i + 1:]:
                rest = self.guard(stmts[i + 1:], depth)
                g = ast.If(ast.UnaryOp(ast.Not(), _n(RET)), rest, [])
                out.append(ast.fix_missing_locations(ast.copy_location(g, stmts[i + 1])))
                break
        return out

    def _ret_stmt(self, s, depth):
        if isinstance(s, ast.Return):
            if s.value is not None and not (isinstance(s.value, ast.Constant)
                                            and s.value.value is None):
                raise self.error(s, "a kernel cannot return a value",
                                 "write results into an array argument")
            out = [_assign(RET, ast.Constant(True))] + ([ast.Break()] if depth else [])
            return [ast.fix_missing_locations(ast.copy_location(x, s)) for x in out]
        if isinstance(s, ast.If) and _returns(s):
            s.body = self.guard(s.body, depth) or [ast.Pass()]
            s.orelse = self.guard(s.orelse, depth)
        elif isinstance(s, (ast.For, ast.While)) and _returns(s):
            s.body = self.guard(s.body, depth + 1)
            if depth:  # leave the enclosing loop too
                brk = ast.If(_n(RET), [ast.Break()], [])
                return [s, ast.fix_missing_locations(ast.copy_location(brk, s))]
        return [s]

    # --- values live across fission points --------------------------------------------------
    def analyse(self) -> set[str]:
        per_thread = set()
        for u in self.units:
            per_thread |= set(assigned_names(u.stmts))
        self.per_thread = per_thread
        block_names = set()
        for item in _walk_items(self.items):
            if isinstance(item, Interchanged) and item.kind == "for":
                block_names.add(item.node.target.id)
        clash = block_names & per_thread
        if clash:
            n = sorted(clash)[0]
            raise UnsupportedError(f"{n!r} is the variable of a loop that holds "
                                   "cuda.syncthreads() and is also assigned inside it",
                                   hint="use another name")
        self.remat = _rematerializable(self.units[0].stmts if self.units else [],
                                       per_thread, self.units)
        spills = set()
        assigned_in = {id(u): set(assigned_names(u.stmts)) for u in self.units}
        for u in self.units:
            for n in _exposed(u.stmts, per_thread) - set(self.remat):
                elsewhere = any(n in assigned_in[id(v)] for v in self.units if v is not u)
                if elsewhere or u.in_loop or n in self.params:
                    spills.add(n)
        for item in _walk_items(self.items):
            if isinstance(item, Interchanged):
                for e in item.exprs:
                    spills |= names_read(e) & per_thread
        if self.has_returns and len(self.units) > 1:
            spills.add(RET)
        # the same in every thread of a block: one block-level scalar instead of an array
        # (computed without reading memory: a value read from an array another thread may
        # have written in the same run is not)
        impure = set()
        for u in self.units:
            for node in ast.walk(ast.Module(u.stmts, [])):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.For)):
                    value = node.iter if isinstance(node, ast.For) else node.value
                    if not _reads_no_memory(value):
                        impure |= set(assigned_names([node]))
        self.uniform_all = {n for n in per_thread if n not in self.vary
                            and n not in self.params and n != RET and n not in impure}
        self.uniform = self.uniform_all & spills
        return spills

    # --- code -------------------------------------------------------------------------------
    def emit(self, items) -> list:
        out = []
        for item in items:
            if isinstance(item, Unit):
                out += self.unit_code(item)
                continue
            node = item.node
            if item.kind == "for":
                pre, bounds = [], []
                for e in item.exprs:
                    p, v = self.block_value(e, node)
                    pre += p
                    bounds.append(v)
                body = self.emit(item.body) or [ast.Pass()]
                outer = _outer_thread_loops(body) if getattr(node, COALESCED_ATTR, False) \
                    else []
                if outer:
                    body = outer[-1].body
                loop = ast.For(copy.deepcopy(node.target),
                               ast.Call(_n("range"), bounds, []), body, [])
                for t in reversed(outer):   # the loops over y and z around the loop
                    loop = ast.copy_location(_role(ast.For(t.target, t.iter, [loop], []),
                                                   THREADS), t)
                out += pre + [loop]
            elif item.kind == "if":
                pre, test = self.block_value(item.exprs[0], node)
                out += pre + [ast.If(test, self.emit(item.body) or [ast.Pass()],
                                     self.emit(item.orelse))]
            else:
                pre, test = self.block_value(item.exprs[0], node)
                name = f"__simt_c{next(self.counter)}"
                again, test2 = self.block_value(item.exprs[0], node)
                body = self.emit(item.body) + again + [_assign(name, test2)]
                out += pre + [_assign(name, test), ast.While(_n(name), body, [])]
            for s in out:
                ast.copy_location(s, node)
        return [ast.fix_missing_locations(s) for s in out]

    def block_value(self, expr, node):
        """(statements, expression): ``expr`` evaluated once for the block; when it reads
        values computed per thread, every thread's value is checked to be the same."""
        used = names_read(expr) & (self.per_thread - self.uniform)
        if not used:
            return [], copy.deepcopy(expr)
        u = f"__simt_u{next(self.counter)}"
        first = _assign(u, _reload(expr, used, ast.Constant(0)))
        same = ast.Compare(_reload(expr, used, _n(FLAT_THREAD)), [ast.Eq()], [_n(u)])
        line = self.loc(node).line
        check = ast.Assert(same, ast.Constant(
            f"threads of one block disagree on a condition around cuda.syncthreads() "
            f"(line {line}): they would not all reach the same barrier"))
        setattr(check, KIND_ATTR, "DivergentBarrierError")
        loop = _role(ast.For(_n(FLAT_THREAD, ast.Store()),
                             ast.Call(_n("range"), [ast.Constant(1),
                                                    ast.Constant(self.config.threads)], []),
                             [check], []), THREADS)
        stmts = [first, loop] if self.config.threads > 1 else [first]
        for s in stmts:
            for n in ast.walk(s):
                ast.copy_location(n, node)
        return stmts, _n(u)

    def unit_code(self, u: Unit) -> list:
        lead, core, trail = self.block_level(u)
        code = lead + (self.thread_loop(u, core) if core else []) + trail
        where = u.stmts[0] if u.stmts else None
        for s in code:
            for n in ast.walk(s):
                if where is not None and not hasattr(n, "lineno"):
                    ast.copy_location(n, where)
        return code

    def block_level(self, u: Unit):
        """(leading, thread, trailing) statements of a run: the leading and trailing ones
        that only compute values the same in every thread (``offset *= 2``) run once for
        the block, before and after the loop over threads."""
        stmts = list(u.stmts)
        if self.has_returns:
            return [], stmts, []
        lead, trail = [], []
        while stmts and self._uniform_stmt(stmts[0]):
            lead.append(stmts.pop(0))
        while stmts and self._uniform_stmt(stmts[-1]):
            trail.insert(0, stmts.pop())
        return lead, stmts, trail

    def _uniform_stmt(self, s) -> bool:
        if isinstance(s, ast.Assign):
            targets = s.targets
        elif isinstance(s, ast.AugAssign):
            targets = [s.target]
        else:
            return False
        if not all(isinstance(t, ast.Name) for t in targets):
            return False
        per_thread = self.vary | (self.per_thread - self.uniform_all)
        return set(assigned_names([s])) <= self.uniform_all and _reads_no_memory(s.value) \
            and not (names_read(s) & per_thread)

    def narrowed(self, stmts):
        """(dim, bound, body, first) when the run is ``if tx < bound: body`` with ``bound`` an
        integer the same in every thread: the loop over threads stops at ``bound`` (a
        reduction tree's ``if tx < s``, half the threads fewer each round); ``if tx == c``
        runs thread ``c`` alone (``first = c``, ``bound = c + 1``); else None."""
        dims = [d for d in range(3) if self.config.block[d] > 1]
        remat = {id(v) for v in self.remat.values()}   # the first run's tx = threadIdx.x
        lead = [s for s in stmts if id(s) in remat]
        stmts = [s for s in stmts if id(s) not in remat]
        if len(dims) != 1 or len(stmts) != 1 or not isinstance(stmts[0], ast.If) or \
                stmts[0].orelse:
            return None
        test = stmts[0].test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.ops[0], (ast.Lt, ast.Eq))
                and isinstance(test.left, ast.Name)):
            return None
        if isinstance(test.ops[0], ast.Eq):   # if tx == c: the one thread c
            c = test.comparators[0]
            if not (isinstance(c, ast.Constant) and type(c.value) is int):
                return None
            test = ast.Compare(test.left, [ast.Lt()], [ast.Constant(c.value + 1)])
            first = max(0, c.value)
        else:
            first = 0
        x = test.left.id
        alias = self.remat.get(x)
        if not (x == THREAD[dims[0]] or alias is not None and isinstance(alias.value, ast.Name)
                and alias.value.id == THREAD[dims[0]]):
            return None
        bound = test.comparators[0]
        ints = {n for n in self.uniform if self.dtypes.get(n, (None,))[0] is not None
                and self.dtypes[n][0].kind in "iu"}
        ok = all(isinstance(n, (ast.Name, ast.BinOp, ast.Load, ast.operator)) or
                 isinstance(n, ast.Constant) and type(n.value) is int for n in ast.walk(bound))
        if not ok or not names_read(bound) <= ints or \
                names_read(bound) & set(assigned_names(stmts)):
            return None
        return dims[0], bound, lead + stmts[0].body, first

    def thread_loop(self, u: Unit, stmts: list) -> list:
        narrow = self.narrowed(stmts)
        if narrow is not None:
            stmts = narrow[2]
        mentioned = set().union(*(ast_names(s) for s in stmts)) if stmts else set()
        reload = sorted(self.spills & mentioned) if not u.first else \
            sorted(n for n in self.spills & mentioned if n in self.params)
        if self.has_returns and not u.first and RET in self.spills:
            reload = sorted(set(reload) | {RET})
        assigned = set(assigned_names(stmts))
        if u.first and self.has_returns:
            # a value first assigned after a ``return`` (``if j >= n: return``, then
            # ``s = ...``) is unassigned in a thread that returned: that thread stores
            # the zero its per-thread array starts with, which no later run reads
            reload = sorted(set(reload) | ((self.spills - self.uniform - {RET}) & assigned))
        # a uniform value this run reassigns: every thread starts from the block's value
        snap = [n for n in reload if n in self.uniform and n in assigned]
        reload = [n for n in reload if n not in self.uniform]
        stores = sorted((self.spills - self.uniform) & assigned)
        body = list(stmts)
        if self.has_returns and not u.first:
            body = [ast.If(ast.UnaryOp(ast.Not(), _n(RET)), body, [])]
        t = _n(FLAT_THREAD)
        remat = [] if u.first else self.remat_code(mentioned)
        pre = remat + [_assign(n, ast.Call(_n(WEAK), [ast.Constant(n), _sub(spill_name(n), t)], []))
               for n in reload] + [_assign(n, _n(block_name(n))) for n in snap]
        post = [ast.Assign([_sub(spill_name(n), t, ast.Store())], _n(n)) for n in stores]
        code = pre + body + post
        if FLAT_THREAD in set().union(*(ast_names(s) for s in code)):
            code = [_assign(FLAT_THREAD, self.flat_thread())] + code
        for d in range(3):
            if self.config.block[d] > 1:
                extent = ast.Constant(self.config.block[d])
                bounds = [extent]
                if narrow is not None:
                    bounds = [ast.Call(_n("min"), [copy.deepcopy(narrow[1]), extent], [])]
                    bounds = [ast.Constant(narrow[3])] * (narrow[3] > 0) + bounds
                code = [_role(ast.For(_n(THREAD[d], ast.Store()),
                                      ast.Call(_n("range"), bounds, []), code, []), THREADS)]
        return self.private_names([_assign(block_name(n), _n(n)) for n in snap] + code)

    def private_names(self, code: list) -> list:
        """The run's own names (assigned here, not kept across a barrier: a later run that
        reads one assigns it first; the thread indices too) renamed for this run (``x`` ->
        ``x__u3``): the
        frontend would otherwise see ``x`` read elsewhere in the function and carry it
        through the loops over threads, and a loop carrying scalars is not raised."""
        keep = self.spills | self.uniform_all | self.params
        own = {n for n in assigned_names(code) if n not in keep}
        if not own:
            return code
        k = next(self.counter)
        names = {n: f"{n}__u{k}" for n in own}

        class R(ast.NodeTransformer):
            def visit_Name(self, node):
                if node.id in names:
                    return ast.copy_location(ast.Name(names[node.id], node.ctx), node)
                return node
        return [R().visit(copy.deepcopy(s)) for s in code]

    def remat_code(self, mentioned) -> list:
        """Definitions of the index aliases this run reads (``tx = cuda.threadIdx.x``),
        recomputed instead of kept per thread."""
        need = set(mentioned) & set(self.remat)
        changed = True
        while changed:
            changed = False
            for n in list(need):
                extra = (names_read(self.remat[n].value) & set(self.remat)) - need
                if extra:
                    need |= extra
                    changed = True
        return [copy.deepcopy(self.remat[n]) for n in self.remat if n in need]

    def flat_thread(self):
        bx, by, _ = self.config.block
        terms = [(_n(THREAD[0]), 1), (_n(THREAD[1]), bx), (_n(THREAD[2]), bx * by)]
        e = None
        for d, (name, scale) in enumerate(terms):
            if self.config.block[d] == 1:
                continue
            term = name if scale == 1 else ast.BinOp(name, ast.Mult(), ast.Constant(scale))
            e = term if e is None else ast.BinOp(e, ast.Add(), term)
        return e if e is not None else ast.Constant(0)

    def block_loop(self, body_items_code, parallel: bool, groups: int = 0):
        """The loop over the grid's blocks; with ``groups``, a loop over that many groups
        of contiguous blocks around it (privatize.py), the group loop the parallel one."""
        gx, gy, gz = self.config.grid
        decode = []
        b = _n(BLOCK_IV)
        if gx > 1:
            decode.append(_assign(BLOCK[0], b if gy == gz == 1 else
                                  ast.BinOp(b, ast.Mod(), ast.Constant(gx))))
        if gy > 1:
            q = ast.BinOp(b, ast.FloorDiv(), ast.Constant(gx)) if gx > 1 else b
            decode.append(_assign(BLOCK[1], q if gz == 1 else
                                  ast.BinOp(q, ast.Mod(), ast.Constant(gy))))
        if gz > 1:
            decode.append(_assign(BLOCK[2], ast.BinOp(b, ast.FloorDiv(), ast.Constant(gx * gy))
                                  if gx * gy > 1 else b))
        nb = self.config.blocks
        dims = [d for d in range(3) if self.config.grid[d] > 1]
        if len(dims) > 1 and not groups:
            # a loop per grid dimension: block indices stay affine (no % and //), so the
            # dependence test and the check prover see them; the outermost is the parallel one
            loop = self.allocations + body_items_code
            for d in dims:
                loop = [_role(ast.For(_n(BLOCK[d], ast.Store()),
                                      ast.Call(_n("range"),
                                               [ast.Constant(self.config.grid[d])], []),
                                      loop, []), BLOCKS)]
            if parallel:
                setattr(loop[0], PARALLEL_ATTR, True)
            return self.index_constants() + loop
        bounds = [ast.Constant(nb)]
        if groups == nb:   # one block per group
            decode.insert(0, _assign(GROUP_IV, _n(BLOCK_IV)))
            groups = 0
        if groups:
            per = -(-nb // groups)
            lo = ast.BinOp(_n(GROUP_IV), ast.Mult(), ast.Constant(per))
            hi = ast.BinOp(copy.deepcopy(lo), ast.Add(), ast.Constant(per))
            bounds = [lo, hi if per * groups == nb else
                      ast.Call(_n("min"), [hi, ast.Constant(nb)], [])]
        loop = _role(ast.For(_n(BLOCK_IV, ast.Store()), ast.Call(_n("range"), bounds, []),
                             decode + self.allocations + body_items_code, []), BLOCKS)
        if groups:
            loop = _role(ast.For(_n(GROUP_IV, ast.Store()),
                                 ast.Call(_n("range"), [ast.Constant(groups)], []), [loop], []),
                         BLOCKS)
        if parallel:
            setattr(loop, PARALLEL_ATTR, True)
        return self.index_constants() + [loop]

    def index_constants(self) -> list:
        """Thread and block indices of the dimensions of extent 1."""
        consts = [_assign(n, ast.Constant(0)) for d, n in enumerate(THREAD)
                  if self.config.block[d] == 1]
        return consts + [_assign(n, ast.Constant(0)) for d, n in enumerate(BLOCK)
                         if self.config.grid[d] == 1]


_PURE_CALLS = {"min", "max", "abs", "int", "float", "bool", "range", "len"}


def _reads_no_memory(expr) -> bool:
    """Only names, constants, operators, array metadata (``x.shape[0]``, ``x.size``) and
    pure builtins."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Subscript) and not (isinstance(n.value, ast.Attribute)
                                                 and n.value.attr == "shape"):
            return False
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name)
                                            and n.func.id in _PURE_CALLS):
            return False
    return True


def ast_names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _sub(array, index, ctx=None):
    return ast.Subscript(_n(array), index, ctx or ast.Load())


def _reload(expr, names, index):
    class R(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in names and isinstance(node.ctx, ast.Load):
                return ast.copy_location(_sub(spill_name(node.id), copy.deepcopy(index)), node)
            return node
    return R().visit(copy.deepcopy(expr))


def _exposed(stmts, candidates) -> set[str]:
    """Names of ``candidates`` that may be read in ``stmts`` before being assigned
    (conservative: an unconditional ``name = <expr without name>`` defines, an ``if``
    defines what both of its branches define, a ``for`` defines its target in its body)."""
    return _exposed_after(stmts, candidates, set())[0]


def _exposed_after(stmts, candidates, defined) -> tuple[set, set]:
    """(exposed names, names defined after ``stmts``) when ``defined`` are defined before."""
    defined, out = set(defined), set()
    for s in stmts:
        if isinstance(s, ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple))
                                             for t in s.targets):
            reads = names_read(s.value) | set().union(*(names_read(t) for t in s.targets))
            out |= (reads & candidates) - defined
            defined |= set(assigned_names([s]))
            continue
        if isinstance(s, ast.If):
            out |= (names_read(s.test) & candidates) - defined
            e1, d1 = _exposed_after(s.body, candidates, defined)
            e2, d2 = _exposed_after(s.orelse, candidates, defined)
            out |= e1 | e2
            defined = d1 & d2
            continue
        if isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse:
            # the target is assigned before each run of the body; after the loop nothing
            # more is defined (it may make no trip)
            out |= (names_read(s.iter) & candidates) - defined
            out |= _exposed_after(s.body, candidates, defined | {s.target.id})[0]
            continue
        out |= (ast_names(s) & candidates) - defined
    return out, defined


def _rematerializable(first_run, per_thread, units) -> dict:
    """name -> its assignment, for names assigned once, unconditionally, in the first run,
    from thread/block indices and constants only (in order of definition)."""
    from .intrinsics import INDEX_NAMES
    counts: dict = {}
    for u in units:
        for s in u.stmts:
            for node in ast.walk(s):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.For)):
                    for n in assigned_names([node]):
                        counts[n] = counts.get(n, 0) + 1
    out: dict = {}
    for s in first_run:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name)):
            continue
        n = s.targets[0].id
        pure = all(isinstance(x, (ast.Name, ast.Constant, ast.BinOp, ast.operator, ast.Load,
                                  ast.UnaryOp, ast.unaryop)) for x in ast.walk(s.value))
        names = names_read(s.value)
        if counts.get(n) == 1 and pure and names <= set(INDEX_NAMES) | set(out):
            out[n] = s
    return out


def _outer_thread_loops(body: list) -> list:
    """The loops over threads along z and y that make up all of ``body`` (outermost first),
    when the loop over x is inside them: a loop coalesce.py picked runs inside those, with
    only the threads along x innermost (``for ty: for k: for tx``), so that the values each
    row of threads keeps (a tiled matmul's accumulators) stay in a few cache lines over the
    whole loop instead of being reloaded from the block's arrays at every step."""
    out: list = []
    for d in (2, 1):
        if len(body) == 1 and isinstance(body[0], ast.For) and \
                isinstance(body[0].target, ast.Name) and \
                body[0].target.id.startswith(THREAD[d]) and not body[0].orelse:
            out.append(body[0])
            body = body[0].body
    if not (len(body) == 1 and isinstance(body[0], ast.For)
            and isinstance(body[0].target, ast.Name)
            and body[0].target.id.startswith(THREAD[0])):
        return []
    return out


def _level_nodes(s):
    """Nodes of ``s`` not inside a nested loop (where break/continue would be the loop's)."""
    yield s
    if isinstance(s, (ast.For, ast.While)):
        return
    for c in ast.iter_child_nodes(s):
        yield from _level_nodes(c)


def _walk_items(items):
    for it in items:
        yield it
        if isinstance(it, Interchanged):
            yield from _walk_items(it.body)
            yield from _walk_items(it.orelse)
