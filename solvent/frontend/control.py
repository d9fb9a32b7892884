"""if / for / while: structured ops with explicit carried values.

Merging name bindings where control flow joins follows NumPy semantics:
- scalars (and other values) become results of the ``loop.if`` / carried values of the loop,
  with NumPy's promotion when the two paths disagree on the dtype;
- an array variable that keeps its buffer needs nothing here (functionalization carries
  the buffer's contents);
- a name rebound to *another* array on one path gets a buffer of its own holding the
  value ("merged" buffer). Writing into that buffer would not reach the original array as
  NumPy would when the original is an argument or has other names, so it is refused then.
"""
from __future__ import annotations

import ast
from dataclasses import replace

import numpy as np

from ..errors import UnsupportedError
from ..ir.core import Block, Region
from ..ir.types import TensorType, dtype_name, np_dtype
from .arg_trees import Record
from .desugar import ITER_ATTR, LOOP_RETURN_VALUE
from .list_growth import ListGrows
from .list_items import ListMutates
from .scopes import (BREAK_FLAG, CONTINUE_FLAG, FAILED, FLAGS, RETURN_VALUE, assigned_names,
                     body_jumps)
from .values import (ArrayRef, Buffer, Const, ReturnChoice, Tensor, TupleVal, like_seq,
                     same_binding, seq_items)

_NUMBER = (bool, int, float, complex, np.generic)


def _is_array(v) -> bool:
    return isinstance(v, ArrayRef) or (isinstance(v, Tensor) and v.type.rank > 0)


def _is_number(v) -> bool:
    return isinstance(v, Tensor) or (isinstance(v, Const) and isinstance(v.value, _NUMBER))


def _argument_view(v) -> bool:
    """An argument array itself, or a view of it with compile-time indices (what the
    function's result can hand back as the caller's object)."""
    return isinstance(v, ArrayRef) and v.buf.block is None and all(
        step[0] != "index" or not step[2] for step in v.chain)


def _keeps_identity(v) -> bool:
    return _argument_view(v) or isinstance(v, ReturnChoice)


def _choice_flags(v) -> list:
    """The path flags of a ReturnChoice tree, in the order _choice_tree consumes them."""
    if isinstance(v, ReturnChoice):
        return [v.flag] + _choice_flags(v.then) + _choice_flags(v.other)
    return []


def _choice_tree(v, flags, merged):
    """``v``'s identity tree over new flags (the outer if's results) and contents."""
    if isinstance(v, ReturnChoice):
        flag = next(flags)
        return ReturnChoice(flag, _choice_tree(v.then, flags, merged),
                            _choice_tree(v.other, flags, merged), merged)
    return v if _argument_view(v) else None


class ControlMixin:
    # --- if ---------------------------------------------------------------------------------
    def stmt_If(self, node: ast.If):
        c = self.truth(self.expr(node.test))
        self.branch(c, lambda: self.stmts(node.body), lambda: self.stmts(node.orelse), node)

    def branch(self, c, then_fn, else_fn, node, jumped_live=None):
        """``if c: then_fn() else: else_fn()`` with the names they bind merged. With
        ``jumped_live`` the else path is one where a break/continue/return happened: a name
        it lacks gets a placeholder there unless it is in ``jumped_live`` (read where the
        jump goes)."""
        if isinstance(c, Const):
            (then_fn if c.value else else_fn)()
            return
        env0 = dict(self.env)
        born0 = self.birth_counter
        blocks, envs = [], []
        self.depth_in_branch += 1
        try:
            for fn in (then_fn, else_fn):
                blk = Block()
                self.env = dict(env0)
                with self.b.at(blk):
                    fn()
                blocks.append(blk)
                envs.append(self.env)
        except Exception as e:
            # raised from a path that may not run: the statement holding it may not defer it
            # as certain (statements.defer_error; an if statement's own body deferred its)
            e._solvent_conditional = True
            raise
        finally:
            self.depth_in_branch -= 1
        live = self.live_outside(node)
        try:
            op, rebuild = self._merge_branches(c, node, blocks, envs, env0, born0, live,
                                               jumped_live)
        except UnsupportedError as e:
            if e.loc is not None:
                raise
            # a merge error without a line names the statement that made the branch
            raise UnsupportedError(e.message, self.loc_of(
                node[0] if isinstance(node, list) else node), e.hint) from None
        self.env = env0
        results = iter(op.results)
        for n, fn in rebuild.items():
            self.env[n] = fn(results)
        if all(FAILED in e for e in envs):
            self.env[FAILED] = Const(True)

    def _merge_branches(self, c, node, blocks, envs, env0, born0, live, jumped_live):
        names = [n for n in dict.fromkeys(list(envs[0]) + list(envs[1]))
                 if not same_binding(envs[0].get(n), envs[1].get(n))]
        yields = ([], [])
        rebuild = {}
        failed = [FAILED in e for e in envs]
        for n in names:
            a, b = envs[0].get(n), envs[1].get(n)
            if n == FAILED:
                continue
            if failed[0] != failed[1] and n not in FLAGS:
                # the failed path never reaches the join: the other path's value stands in
                k = failed.index(True)
                other = (a, b)[1 - k]
                if other is None:
                    continue     # bound only on the path that failed
                if isinstance(other, ArrayRef) and self.births.get(id(other.buf), 0) <= born0 \
                        and not any(st[0] == "index" and st[2] for st in other.chain):
                    # a view of an array from before the if, at a place known at compile
                    # time: the same view after it (writes through it reach that array)
                    rebuild[n] = (lambda v: lambda results: v)(other)
                    continue
                stand_in = self._placeholder(blocks[k], other)
                a, b = (stand_in, b) if k == 0 else (a, stand_in)
                rebuild[n] = self._merge_pair(n, a, b, blocks, yields, c, born0)
                continue
            if n in FLAGS:
                a = Const(False) if a is None else a
                b = Const(False) if b is None else b
            elif (a is None or b is None) and (
                    n == RETURN_VALUE or n.startswith(LOOP_RETURN_VALUE)
                    or (b is None and n in live and jumped_live is not None
                        and n not in jumped_live)):
                # never read on the path that lacks it: a return value where that path did
                # not return (a return inside a loop: read only under its flag, desugar.py),
                # or a name first assigned after a jump guard, where the jump went
                a = self._placeholder(blocks[0], b) if a is None else a
                b = self._placeholder(blocks[1], a) if b is None else b
            elif a is None or b is None:
                if n in live:
                    raise self.unsupported(f"{n!r} is assigned on only one path of this if",
                                           "assign it before the if as well")
                continue  # only assigned inside the branches and dead afterwards
            rebuild[n] = self._merge_pair(n, a, b, blocks, yields, c, born0)
        for blk, ys in zip(blocks, yields):
            with self.b.at(blk):
                self.b.create("loop.yield", ys)
        op = self.b.create("loop.if", [c.v], regions=[Region(blocks[0]), Region(blocks[1])])
        return op, rebuild

    def _merge_pair(self, n, a, b, blocks, yields, c, born0):
        """Yield what ``n`` holds on each path; returns how to rebuild it from the if's
        results (an iterator, consumed in yield order)."""
        if same_binding(a, b):
            return lambda results: a
        choice = (a, b)
        a, b = [x.merged if isinstance(x, ReturnChoice) else x for x in (a, b)]
        if n.startswith(RETURN_VALUE) and any(map(_keeps_identity, choice)) and \
                _is_array(a) and _is_array(b) and a.shape == b.shape and a.dtype == b.dtype:
            return self._return_choice(choice, a, b, blocks, yields, c, born0, n)
        a, b = (like_seq(v, seq_items(v)) if isinstance(v, Const) and isinstance(w, TupleVal)
                and seq_items(v) is not None else v for v, w in ((a, b), (b, a)))
        if isinstance(a, TupleVal) and isinstance(b, TupleVal) and len(a.items) == len(b.items):
            parts = [self._merge_pair(f"{n}[{i}]", x, y, blocks, yields, c, born0)
                     for i, (x, y) in enumerate(zip(a.items, b.items))]
            return lambda results: like_seq(a, tuple(p(results) for p in parts))
        if isinstance(a, Record) and isinstance(b, Record) and a.local and b.local and \
                (a.kind, a.cls) == (b.kind, b.cls) and \
                [k for k, _ in a.fields] == [k for k, _ in b.fields]:
            # a dict (or namedtuple) built on each path with the same keys: item by item
            parts = [(k, self._merge_pair(f"{n}[{k!r}]", x, y, blocks, yields, c, born0))
                     for (k, x), (_, y) in zip(a.fields, b.fields)]
            return lambda results: replace(a, fields=tuple((k, p(results)) for k, p in parts))
        mixed = _array_and_scalar_0d(a, b)
        if (_is_array(a) or _is_array(b)) and not mixed:
            if not (_is_array(a) and _is_array(b)) or a.shape != b.shape:
                raise self.shape_conflict(n, a, b, c)
            dtype = dtype_name(np.result_type(np_dtype(a.dtype), np_dtype(b.dtype)))
            fresh = all(not isinstance(x, ArrayRef) or self.births.get(id(x.buf), 0) > born0
                        for x in (a, b))
            for k, v in enumerate((a, b)):
                with self.b.at(blocks[k]):
                    yields[k].append(self.convert(self.tensor(v), dtype).v)
            guard = None if fresh else (
                f"{n!r} refers to different arrays depending on a run-time condition; "
                "writing into it cannot be resolved")
            return lambda results: self.new_buffer(Tensor(next(results)), n, guard)
        if not (_is_number(a) and _is_number(b) or mixed):
            if _shown(n) == "the return value":
                raise self.unsupported(
                    f"this function returns {_describe(a)} on one path and {_describe(b)} on "
                    "another", "return the same kind of value (a number, an array, a tuple "
                    "of the same length) on every path")
            raise self.unsupported(f"{n!r} holds different non-numeric values on the two "
                                   "paths of this if")
        ta, tb = [self._in_block(blk, v) for blk, v in zip(blocks, (a, b))]
        if ta.shape != tb.shape:
            raise self.shape_conflict(n, ta, tb, c)
        dtype = self.result_dtype([ta, tb])
        for k, t in enumerate((ta, tb)):
            with self.b.at(blocks[k]):
                yields[k].append(self.convert(t, dtype).v)
        weak, deps = ta.weak and tb.weak, ta.deps | tb.deps
        guard = (f"{_shown(n)} is a 0-d array on one path of this if and a number on the "
                 "other: changing it in place would change the array on one path only"
                 if mixed else _guard_of(a) or _guard_of(b))
        return lambda results: Tensor(next(results), weak=weak, deps=deps, guard=guard)

    def _return_choice(self, choice, a, b, blocks, yields, c, born0, n):
        """The returned array is the caller's argument on some path: yield which path ran
        (and which paths ran inside it, for an if nested there) beside the merged contents,
        so that the caller gets its own object back where NumPy gives it."""
        merge = self._merge_pair("the returned array", a, b, blocks, yields, c, born0)
        inner = [_choice_flags(x) for x in choice]
        for k in (0, 1):
            with self.b.at(blocks[k]):
                yields[k].append(self.constant(k == 0).v)
                for side, flags in enumerate(inner):
                    yields[k].extend(self.tensor(f).v if side == k else
                                     self.constant(False).v for f in flags)

        def rebuild(results):
            merged = merge(results)
            flag = Tensor(next(results))
            sides = [iter([Tensor(next(results)) for _ in flags]) for flags in inner]
            return ReturnChoice(flag, *(_choice_tree(x, it, merged)
                                        for x, it in zip(choice, sides)), merged)
        return rebuild

    def _placeholder(self, blk, like):
        """A value shaped like ``like`` (zeros), built in ``blk``."""
        if isinstance(like, ReturnChoice):
            like = like.merged
        if isinstance(like, TupleVal):
            return TupleVal(tuple(self._placeholder(blk, x) for x in like.items))
        if isinstance(like, Record):
            return replace(like, fields=tuple((k, self._placeholder(blk, x))
                                              for k, x in like.fields))
        if isinstance(like, Const):
            return like
        with self.b.at(blk):
            # an array is described by its type only: it may live in the other path's block
            t = like if isinstance(like, Tensor) else None if isinstance(like, ArrayRef) \
                else self.tensor(like)
            weak = t.weak if t is not None else False
            z = self.convert(self.constant(0), like.dtype)
            return self.broadcast(Tensor(z.v, weak=weak), like.shape) if like.shape else \
                Tensor(z.v, weak=weak)

    def _in_block(self, blk, v) -> Tensor:
        with self.b.at(blk):
            return self.tensor(v)

    def shape_conflict(self, n, a, b, cond):
        sa = getattr(a, "shape", ())
        sb = getattr(b, "shape", ())
        what = "the returned value" if n.startswith(RETURN_VALUE) else repr(n)
        if cond.deps:
            from ..errors import NeedStatic
            return NeedStatic(cond.deps, f"the condition deciding the shape of {what}", self.b.loc)
        return self.unsupported(f"{what} has shape {sa} on one path and {sb} on another")

    # --- loops ------------------------------------------------------------------------------
    def stmt_For(self, node: ast.For):
        if getattr(node, ITER_ATTR, None) and self._unroll_over_tuple(node):
            return
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and self.lookup(it.func.id) == Const(range)):
            raise self.unsupported("only `for ... in range(...)` loops are supported",
                                   "iterate over indices: for i in range(len(x))")
        if not isinstance(node.target, ast.Name):
            raise self.unsupported("the loop variable must be a plain name")
        args = [self.expr(a) for a in it.args]
        if it.keywords or not 1 <= len(args) <= 3:
            raise self.unsupported("range() takes 1 to 3 positional arguments")
        if len(args) == 1:
            args = [Const(0)] + args
        if len(args) == 2:
            args = args + [Const(1)]
        for a in args:
            if isinstance(a, Const) and not isinstance(a.value, (int, np.integer)):
                raise TypeError(f"{self.b.loc}: range() arguments must be integers")
            if isinstance(a, Tensor) and (a.dtype[0] not in "iu" or a.type.rank):
                raise TypeError(f"{self.b.loc}: range() arguments must be integers, got {a.dtype}")
        if all(isinstance(a, Const) for a in args):
            if int(args[2].value) == 0:
                raise ValueError(f"{self.b.loc}: range() arg 3 must not be zero")
            if len(range(*(int(a.value) for a in args))) == 0:
                return
        target = node.target.id

        def translate():
            if body_jumps(node.body, (ast.Break,)):
                return self._for_as_while(node, target, args)
            start = dict(self.env)
            try:
                self._for_loop(node, target, args, unroll=1)
            except _Rotation as rot:
                self.env = start
                self._rotating_for(node, target, args, rot.period)
        saved_env = dict(self.env)
        for _ in range(8):
            try:
                translate()
                self._bound_if_ran(node, [target], Const(True) if all(
                    isinstance(a, Const) for a in args) else lambda: self._range_ran(args),
                    saved_env)
                return
            except ListGrows as grows:    # a list gets items in the loop: list_growth.py
                self.env = saved_env
                return self.grow_lists(node, args, translate, grows)
            except ListMutates as items:  # a list's item is assigned: list_items.py
                self.prepare_lists(saved_env, items)
                self.env = dict(saved_env)
        raise self.unsupported("the lists this loop assigns into do not settle")

    def _range_ran(self, args):
        """Whether ``range(*args)`` is not empty (a run-time i1)."""
        lb, ub, st = (self.tensor(a) for a in args)
        up = self.ufunc(np.logical_and, self.ufunc(np.greater, st, Const(0)),
                        self.ufunc(np.less, lb, ub))
        down = self.ufunc(np.logical_and, self.ufunc(np.less, st, Const(0)),
                          self.ufunc(np.greater, lb, ub))
        return self.ufunc(np.logical_or, up, down)

    def _bound_if_ran(self, node, names, ran, saved_env) -> None:
        """The names in ``names`` (a for loop's variable), and those the body assigns before
        anything that can jump, are bound after the loop only where its body ran (``ran``:
        the range was not empty, the while condition held on entry); a name first bound
        there is carried from a zero, so a read of it after a loop that never ran
        (Python's UnboundLocalError) is checked (expressions.py lookup)."""
        names = list(names)
        for s in node.body:
            if any(isinstance(x, (ast.Break, ast.Continue, ast.Return, ast.Raise))
                   for x in ast.walk(s)):
                break
            if isinstance(s, ast.Assign):
                names += [t.id for t in s.targets if isinstance(t, ast.Name)]
            elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                names.append(s.target.id)
        names = [n for n in dict.fromkeys(names) if n not in saved_env and n in self.env]
        if callable(ran) and names:
            ran = ran()
        if not names or isinstance(ran, Const):
            return  # (a loop known not to run never reaches here)
        for n in names:
            self.maybe_unbound[n] = (self.env[n], ran)

    def for_attrs(self, node) -> dict:
        """Attributes of the loop.for made for ``node`` (solvent/simt marks parallel loops)."""
        return {}

    def _unroll_over_tuple(self, node) -> bool:
        """``for x in (a, b, c)``: iterating over a compile-time tuple (of numbers, arrays,
        anything) runs the body once per item, unrolled. False when no iterable is a tuple."""
        names, target, body, starred = getattr(node, ITER_ATTR)
        from .arg_trees import Record
        for n in names:   # a dict passed in iterates over its keys, known at compile time
            v = self.env.get(n)
            if isinstance(v, Record):
                if v.kind != "dict" and not issubclass(v.cls, tuple):
                    raise TypeError(f"{self.b.loc}: '{v.cls.__name__}' object is not iterable")
                self.env[n] = TupleVal(tuple(Const(k) if v.kind == "dict" else x
                                             for k, x in v.fields))
        seqs = [self.env.get(n) for n in names]
        if not any(isinstance(v, TupleVal) or (isinstance(v, Const) and
                                                isinstance(v.value, (tuple, list)))
                   for n, v in zip(names, seqs) if n not in starred):
            return False   # (zip(*S) iterates over S's items, a loop over their indices)
        if body_jumps(body, (ast.Break, ast.Continue)):
            raise self.unsupported("break or continue in a loop over a tuple",
                                   "loop over range(len(t)) instead")
        def length(v):
            return len(v.items) if isinstance(v, TupleVal) else len(v.value) \
                if isinstance(v, Const) and isinstance(v.value, (tuple, list)) \
                else self.static_int(self.call_function(len, [v], {}, node), "a length")
        lengths = [min(length(i) for i in seq_items(v)) if n in starred else length(v)
                   for n, v in zip(names, seqs)]
        for k in range(min(lengths)):
            self.env[node.target.id] = Const(k)
            self.stmts(node.body)
        return True

    def _for_loop(self, node, target, args, unroll: int):
        """One loop.for; with ``unroll`` > 1 each iteration runs the body ``unroll`` times
        (the loop then steps by unroll * step; the caller handles the remainder)."""
        lb, ub, st = (self.convert(self.tensor(a), "i64") for a in args)
        if not isinstance(args[2], Const):
            self.check(self.ufunc(np.not_equal, st, Const(0)), "ValueError",
                       "range() arg 3 must not be zero")
        step = st
        if unroll > 1:
            step = self.constant(int(args[2].value) * unroll, "i64", weak=False)

        def make_op():
            blk = Block()
            iv = blk.add_arg(TensorType((), "i64"))
            return blk, [iv], lambda ops: self.b.create(
                "loop.for", [lb.v, ub.v, step.v] + ops, self.for_attrs(node),
                regions=[Region(blk)])

        def bind_iv(ivs):
            self.env[target] = Tensor(ivs[0], weak=True)
            self.env.pop(CONTINUE_FLAG, None)

        def body():
            iv = self.env[target]
            for k in range(unroll):
                if k:
                    self.env[target] = self.ufunc(np.add, iv, Const(k * int(args[2].value)))
                    self.env.pop(CONTINUE_FLAG, None)
                self.stmts(node.body)

        self.loop(node, make_op, bind_iv, cond_fn=None, extra_assigned=[target],
                  body_fn=body, rotation_ok=unroll == 1)

    def _rotating_for(self, node, target, args, period):
        """A loop whose array names trade buffers (``A, B = B, A``): NumPy's names follow a
        permutation of period ``period``, so the body is translated ``period`` times per
        iteration (modulo unrolling: still one loop op) and the remaining trip count mod
        period runs straight after it. That needs the trip count at compile time."""
        for a in args:
            if not isinstance(a, Const):
                raise self.need_static(self.tensor(a),
                                       "the trip count of a loop that swaps array names")
        if body_jumps(node.body, (ast.Continue,)):
            raise self.unsupported("continue in a loop that swaps array names")
        lb, ub, st = (int(a.value) for a in args)
        n = len(range(lb, ub, st))
        q, r = divmod(n, period)
        if q:
            self._for_loop(node, target,
                           [Const(lb), Const(lb + q * period * st), Const(st)], unroll=period)
        for k in range(r):
            self.env[target] = Const(lb + (q * period + k) * st)
            self.stmts(node.body)

    def _for_as_while(self, node, target, args):
        """A for loop with break becomes a while loop on (counter, break flag)."""
        step = args[2]
        if not isinstance(step, Const):
            raise self.unsupported("a for loop with break needs a compile-time step")
        counter = f"__solvent_iv_{id(node)}"
        self.env[counter] = self.convert(self.tensor(args[0]), "i64")
        self.env[counter] = Tensor(self.env[counter].v, weak=True)
        self.env[BREAK_FLAG] = Const(False)
        ub = self.convert(self.tensor(args[1]), "i64")
        cmp = np.less if int(step.value) > 0 else np.greater

        def cond():
            going = self.ufunc(cmp, self.env[counter], ub)
            return self.ufunc(np.logical_and, going, self.logical_not(self.env[BREAK_FLAG]))

        def body():
            self.env[target] = self.env[counter]
            self.env.pop(CONTINUE_FLAG, None)
            self.stmts(node.body)
            self.env[counter] = self.ufunc(np.add, self.env[counter], step)

        self._while(node, cond, body, extra_assigned=[counter, target, BREAK_FLAG])
        self.env.pop(BREAK_FLAG, None)

    def stmt_While(self, node: ast.While):
        if any(isinstance(n, ast.NamedExpr) for n in ast.walk(node.test)):
            raise self.unsupported("an assignment expression (:=) in a while loop's "
                                   "condition", "assign the name before the loop and again "
                                   "at the end of its body")
        has_break = body_jumps(node.body, (ast.Break,))
        if has_break:
            self.env[BREAK_FLAG] = Const(False)

        def cond():
            c = self.truth(self.expr(node.test))
            if has_break:
                c = self.ufunc(np.logical_and, c, self.logical_not(self.env[BREAK_FLAG]))
            return c

        def body():
            self.env.pop(CONTINUE_FLAG, None)
            self.stmts(node.body)

        test = self.truth(self.expr(node.test))
        if isinstance(test, Const) and not test.value:
            return
        saved_env = dict(self.env)
        for _ in range(8):
            try:
                self._while(node, cond, body,
                            extra_assigned=[BREAK_FLAG] if has_break else [])
                self._bound_if_ran(node, [], test, saved_env)
                break
            except ListMutates as items:    # a list's item is assigned: list_items.py
                self.prepare_lists(saved_env, items)
                self.env = dict(saved_env)
            except ListGrows as grows:
                raise self.unsupported(f"{grows.name!r} grows in a while loop (its final "
                                       "length is not bounded when the loop starts)",
                                       "preallocate an array with room for the most items "
                                       "and count them") from None
        else:
            raise self.unsupported("the lists this loop assigns into do not settle")
        self.env.pop(BREAK_FLAG, None)

    def _while(self, node, cond_fn, body_fn, extra_assigned):
        def make_op():
            return Block(), [], None

        self.loop(node, make_op, None, cond_fn=cond_fn, extra_assigned=extra_assigned,
                  body_fn=body_fn)

    def loop(self, node, make_op, bind_iv, cond_fn, extra_assigned, body_fn=None,
             rotation_ok=False):
        """Translate a loop body until the carried names and their types are stable.

        ``make_op()`` gives (body block, induction values, finish(inits) -> loop.for op);
        a while loop has no induction values and passes ``cond_fn`` instead. Each attempt
        translates the body afresh; a name whose type or binding kind changes across an
        iteration updates the plan and the body is translated again (at most 8 times)."""
        body_fn = body_fn or (lambda: self.stmts(node.body))
        live = self.live_outside(node)
        assigned = list(dict.fromkeys(assigned_names(node.body) + extra_assigned +
                                      self.growing_counts(self.env)))
        if body_jumps(node.body, (ast.Break,)):
            assigned.append(BREAK_FLAG)
        entry_env = dict(self.env)
        candidates = [n for n in dict.fromkeys(assigned)
                      if n in entry_env or n in live or n == BREAK_FLAG]
        # per name: ("ref",) | ("value", dtype, shape, weak) | ("array", TensorType) | ("skip",)
        plan = {}
        guards = {}   # carried numbers that are a 0-d array on some paths (Tensor.guard)
        for n in candidates:
            v = entry_env.get(n)
            if v is None:
                plan[n] = ("skip",)
            elif isinstance(v, ArrayRef):
                plan[n] = ("ref",)
            elif _is_number(v):
                t = self.tensor(v)
                plan[n] = ("value", t.dtype, t.shape, t.weak)
                if _guard_of(v):
                    guards[n] = _guard_of(v)
            else:
                plan[n] = ("const",)
        was_in_loop = self.in_loop
        merged_bufs: dict[str, ArrayRef] = {}
        for attempt in range(8):
            self.env = dict(entry_env)
            # merged buffers live outside the loop: allocate them now (idempotent per plan)
            for n, p in plan.items():
                if p[0] == "array" and n not in merged_bufs:
                    merged_bufs[n] = self._merged_buffer(n, entry_env.get(n), p[1], entry_env)
            carried = [n for n, p in plan.items() if p[0] == "value"]
            inits = [self._carried_init(entry_env.get(n), plan[n]) for n in carried]
            blk, ivs, finish = make_op()
            cond_blk = None
            body_args = [blk.add_arg(TensorType(plan[n][2], plan[n][1])) for n in carried]
            for n, a in zip(carried, body_args):
                self.env[n] = Tensor(a, weak=plan[n][3], guard=guards.get(n))
            for n, ref in merged_bufs.items():
                self.env[n] = ref
            self.in_loop = True
            self.loop_stack.append(node)
            self.loop_entry_envs.append(entry_env)
            try:
                if cond_fn is not None:
                    cond_blk = Block()
                    cond_args = [cond_blk.add_arg(a.type) for a in body_args]
                    env_body = dict(self.env)
                    for n, a in zip(carried, cond_args):
                        self.env[n] = Tensor(a, weak=plan[n][3], guard=guards.get(n))
                    with self.b.at(cond_blk):
                        c = cond_fn()
                        if isinstance(c, Const):
                            c = self.constant(bool(c.value), "i1")
                        self.b.create("loop.condition", [c.v])
                    self.env = env_body
                with self.b.at(blk):
                    if bind_iv is not None:
                        bind_iv(ivs)
                    body_fn()
                    exit_env = self.env
                    if rotation_ok and not merged_bufs:
                        period = _rotation_period(plan, entry_env, exit_env)
                        if period:
                            raise _Rotation(period)
                    changed = self._update_plan(plan, exit_env, entry_env, merged_bufs,
                                                guards)
                    if not changed:
                        ys = []
                        for n in carried:
                            ys.append(self.convert(self.tensor(exit_env[n]), plan[n][1]).v)
                        for n, ref in merged_bufs.items():
                            v = exit_env.get(n)
                            if v is not None and not same_binding(v, ref):
                                self.write_all(_unguarded(ref),
                                               self.convert(self.tensor(v), ref.dtype))
                        self.b.create("loop.yield", ys)
            except Exception as e:
                # from a comprehension's body or a while's condition: runs maybe never
                e._solvent_conditional = True
                raise
            finally:
                self.in_loop = was_in_loop
                self.loop_stack.pop()
                self.loop_entry_envs.pop()
            if changed:
                continue
            if cond_fn is None:
                op = finish([t.v for t in inits])
            else:
                op = self.b.create("loop.while", [t.v for t in inits],
                                   regions=[Region(cond_blk), Region(blk)])
            self.env = dict(entry_env)
            for n, r in zip(carried, op.results):
                self.env[n] = Tensor(r, weak=plan[n][3], guard=guards.get(n))
            for n, ref in merged_bufs.items():
                self.env[n] = ref
            for n in assigned:  # body-local names are not visible after the loop
                if n not in carried and n not in merged_bufs and n not in entry_env:
                    self.env.pop(n, None)
            return
        raise self.unsupported("the types of the loop's variables do not settle")

    def _carried_init(self, v, p):
        _, dtype, shape, _ = p
        t = self.constant(0, dtype, weak=False) if v is None else self.tensor(v)
        return self.broadcast(self.convert(t, dtype), shape)

    def _update_plan(self, plan, exit_env, entry_env, merged_bufs, guards) -> bool:
        changed = False
        for n, p in list(plan.items()):
            v = exit_env.get(n)
            if v is None:
                if p[0] == "skip" or n not in entry_env:
                    continue
                raise self.unsupported(f"{n!r} is deleted inside the loop")
            kind = p[0]
            if kind == "ref":
                if not same_binding(v, entry_env[n]):
                    entry = entry_env[n]
                    if _array_and_scalar_0d(v, entry):
                        # ``s = s + x[i]`` of a 0-d array s: NumPy's s is a number from then
                        # on, carried as one; when the array is seen by more than this name
                        # (an argument), changing s in place is refused, since it would
                        # reach the array on the first iteration (or none) only
                        plan[n] = ("value", dtype_name(np.result_type(
                            np_dtype(v.dtype), np_dtype(entry.dtype))), (), False)
                        if _shared(n, entry, entry_env):
                            guards[n] = (f"{n!r} is a 0-d array that others see until this loop "
                                         "makes it a number: changing it in place would "
                                         "change the array on some iterations only")
                        changed = True
                        continue
                    if not isinstance(v, ArrayRef) or v.shape != entry_env[n].shape:
                        raise self.unsupported(f"{n!r} changes from an array of shape "
                                               f"{entry_env[n].shape} to {_describe(v)} in the loop")
                    plan[n] = ("array", TensorType(v.shape, dtype_name(np.result_type(
                        np_dtype(v.dtype), np_dtype(entry_env[n].dtype)))))
                    changed = True
            elif kind == "array":
                if isinstance(v, ArrayRef) and v.shape == p[1].shape:
                    dt = dtype_name(np.result_type(np_dtype(v.dtype), np_dtype(p[1].dtype)))
                    if dt != p[1].dtype:
                        raise self.unsupported(f"{n!r} changes dtype inside the loop")
                elif not same_binding(v, merged_bufs.get(n)):
                    raise self.unsupported(f"{n!r} changes from an array to {_describe(v)} "
                                           "in the loop")
            elif kind in ("value", "skip", "const"):
                if kind == "const" and same_binding(v, entry_env[n]):
                    continue
                if isinstance(v, ArrayRef) or (isinstance(v, Tensor) and v.type.rank):
                    if kind == "skip":
                        plan[n] = ("array", TensorType(v.shape, v.dtype))
                        changed = True
                        continue
                    if kind == "value" and p[2] == v.shape:
                        dt = dtype_name(np.result_type(np_dtype(p[1]), np_dtype(v.dtype)))
                        if dt != p[1]:
                            plan[n] = ("value", dt, p[2], False)
                            changed = True
                        continue
                    raise self.unsupported(f"{n!r} changes from a scalar to an array in the loop")
                if not _is_number(v):
                    raise self.unsupported(f"{n!r} holds different non-numeric values across "
                                           "loop iterations")
                t = self.tensor(v)
                if kind in ("skip", "const"):
                    plan[n] = ("value", t.dtype, t.shape, t.weak)
                    changed = True
                    continue
                new_dt = dtype_name(np.result_type(self.probe(t),
                                                   self.probe_of(p[1], p[3], len(p[2]))))
                weak = p[3] and t.weak
                if t.shape != p[2]:
                    raise self.unsupported(f"{n!r} changes shape from {p[2]} to {t.shape} in "
                                           "the loop")
                if new_dt != p[1] or weak != p[3]:
                    plan[n] = ("value", new_dt, p[2], weak)
                    changed = True
        return changed

    def _merged_buffer(self, n, entry, ty: TensorType, entry_env) -> ArrayRef:
        shared = False
        if isinstance(entry, ArrayRef):
            shared = _shared(n, entry, entry_env)
            init = self.convert(self.read(entry), ty.dtype)
        else:
            init = self.broadcast(self.convert(self.constant(0), ty.dtype), ty.shape)
        guard = (f"{n!r} is rebound to a new array inside the loop while the array it first "
                 "named is an argument or has other names; writing into it in place cannot "
                 "be resolved") if shared else None
        return self.new_buffer(init, n, guard)


class _Rotation(Exception):
    """Internal: the loop's array names trade buffers with this period."""

    def __init__(self, period: int):
        self.period = period


def _rotation_period(plan, entry_env, exit_env) -> int:
    """When the array names rebound by one iteration end up naming each other's arrays
    (a permutation such as ``A, B = B, A``), the permutation's order; else 0."""
    moved = [n for n, p in plan.items() if p[0] == "ref"
             and not same_binding(exit_env.get(n), entry_env[n])]
    if not moved:
        return 0
    entry_of = {}
    for n in moved:
        v = entry_env[n]
        if v.chain:
            return 0
        entry_of[id(v.buf)] = n
    step = {}
    for n in moved:
        v = exit_env.get(n)
        if not isinstance(v, ArrayRef) or v.chain or id(v.buf) not in entry_of:
            return 0
        step[n] = entry_of[id(v.buf)]
    if sorted(step.values()) != sorted(moved):
        return 0
    period = 1
    for n in moved:
        k, m = 1, step[n]
        while m != n:
            m, k = step[m], k + 1
        period = period * k // np.gcd(period, k)
    return int(period)


def _shared(n, entry: ArrayRef, entry_env) -> bool:
    """Whether the array ``n`` names at a loop's entry is seen by more than this name: an
    argument, a view, or an array another name also holds."""
    return entry.buf.block is None or entry.chain != () or any(
        isinstance(v, ArrayRef) and v.buf is entry.buf and k != n for k, v in entry_env.items())


def _guard_of(v) -> str | None:
    return v.guard if isinstance(v, Tensor) else None


def _array_and_scalar_0d(a, b) -> bool:
    """One is a 0-d array variable, the other a number (``a = a * 2`` of a 0-d ``a``: NumPy
    gives a scalar): the name is merged as a number (Tensor.guard refuses changing it in
    place where that would reach an array on some paths only)."""
    return any(isinstance(x, ArrayRef) and not x.type.rank and isinstance(y, Tensor)
               and not y.type.rank for x, y in ((a, b), (b, a)))


def _unguarded(ref: ArrayRef) -> ArrayRef:
    buf = ref.buf
    return ArrayRef(Buffer(buf.ref, buf.name, buf.block, None), ref.chain, ref.type)


def _shown(n: str) -> str:
    """A name as the user knows it (the hidden return-value slots are 'the return value')."""
    if n.split("[")[0] == RETURN_VALUE or n.startswith(LOOP_RETURN_VALUE):
        return "the return value"
    return repr(n)


def _describe(v) -> str:
    if isinstance(v, TupleVal):
        return f"a {len(v.items)}-tuple"
    if isinstance(v, (ArrayRef, Tensor)):
        return f"a value of shape {v.shape}"
    if isinstance(v, Const):
        return repr(v.value)
    return type(v).__name__
