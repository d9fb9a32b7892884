"""List comprehensions and generator expressions over sequences known at compile time.

``[f(x) for x in X]`` and ``(f(x) for x in X)`` with one ``for`` clause are unrolled: the
element expression is translated once per item, with the target bound to that item, in a
scope of its own (Python 3's comprehension scope: the target does not leak). ``X`` is a
``range`` with compile-time bounds (array shapes are compile-time, so ``range(len(x))``
is one), ``enumerate``/``zip`` of such sequences, a tuple or list, or an array (its rows, as
views, as Python iterates over an array). A list comprehension gives a list, a generator
expression the items for ``sum``, ``max``, ``min``, ``any``, ``all``, ``tuple``,
``np.array``... to consume (NumPy's ``np.array(generator)`` is an object array, which solvent
has no use for: it builds the array of the items).

Identity: Python evaluates ``X`` once, then the element expression for ``X[0]``, ``X[1]``,
... in order, which is the unrolled sequence; several ``for`` clauses nest in their order, a
later clause's iterable evaluated again for each item of the earlier ones. ``if`` clauses
must be compile-time values (a run-time condition would make the length data-dependent);
more than MAX_ITEMS items are refused with a hint to write the loop out, so the IR stays
small.
"""
from __future__ import annotations

import ast

from .values import Const, TupleVal, make_seq

MAX_ITEMS = 256


class ComprehensionMixin:
    def expr_ListComp(self, node):
        return make_seq(self._comprehension(node), True)

    def expr_GeneratorExp(self, node):
        return make_seq(self._comprehension(node), False)

    def _comprehension(self, node) -> list:
        saved = dict(self.env)
        out: list = []
        try:
            self._clauses(node, 0, out)
        finally:
            self.env = saved   # the comprehension's own scope
        return out

    def _clauses(self, node, k: int, out: list) -> None:
        """Items of ``for`` clause ``k`` and those after it, nested as Python nests them (a
        later clause's iterable is evaluated for each item of the earlier ones)."""
        if k == len(node.generators):
            if len(out) >= MAX_ITEMS:
                raise self.unsupported(f"a comprehension of more than {MAX_ITEMS} items "
                                       f"(solvent unrolls comprehensions of at most "
                                       f"{MAX_ITEMS})", "write the loop out, or use array "
                                       "operations")
            out.append(self.expr(node.elt))
            return
        gen = node.generators[k]
        if gen.is_async:
            raise self.unsupported("async comprehensions")
        seq = self._comprehension_items(gen.iter)
        if len(seq) > MAX_ITEMS:
            raise self.unsupported(f"a comprehension over {len(seq)} items (solvent unrolls "
                                   f"comprehensions of at most {MAX_ITEMS})",
                                   "write the loop out, or use array operations")
        for item in seq:
            self.assign(gen.target, item)
            keep = True
            for cond in gen.ifs:
                c = self.expr(cond)
                if not isinstance(c, Const):
                    raise self.unsupported(
                        "an `if` in a comprehension that depends on run-time values (its "
                        "length would depend on the data)",
                        "write the loop out, or use a boolean mask")
                keep = keep and bool(c.value)
                if not keep:
                    break
            if keep:
                self._clauses(node, k + 1, out)

    def _comprehension_items(self, it) -> list:
        """The items a comprehension iterates over, in order."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and not it.keywords:
            fn = self.lookup(it.func.id)
            if fn == Const(range):
                args = [self.expr(a) for a in it.args]
                if not all(isinstance(a, Const) and isinstance(a.value, int) for a in args):
                    raise self.unsupported("a comprehension over a range with run-time bounds",
                                           "write the loop out")
                return [Const(k) for k in range(*(a.value for a in args))]
            if fn == Const(enumerate) and 1 <= len(it.args) <= 2:
                start = self.expr(it.args[1]) if len(it.args) == 2 else Const(0)
                if not (isinstance(start, Const) and isinstance(start.value, int)):
                    raise self.unsupported("enumerate() with a run-time start")
                seq = self._comprehension_items(it.args[0])
                return [TupleVal((Const(start.value + k), v)) for k, v in enumerate(seq)]
            if fn == Const(zip) and it.args:
                seqs = [self._comprehension_items(a) for a in it.args]
                return [TupleVal(tuple(vs)) for vs in zip(*seqs)]
        value = self.expr(it)
        if isinstance(value, Const) and isinstance(value.value, range):
            return [Const(v) for v in value.value]
        items = self.iter_items(value)
        if items is not None:
            return items
        raise self.unsupported("a comprehension over this value (solvent iterates over "
                               "ranges, tuples, lists and arrays of known length)")
