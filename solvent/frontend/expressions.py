"""Translating Python expressions to abstract values (and IR)."""
from __future__ import annotations

import ast
import builtins
import inspect
import math
import operator
import functools
import types

import numpy as np

from ..ir.registry import IRError
from ..ir.types import np_dtype
from .local_functions import LocalFunction
from .list_growth import GrownList, Growing
from .list_items import ListRef
from .arg_trees import ArgList, Record, refuse_change
from .values import (LIST_GROWTH, ArrayRef, Const, Formatted, ListConst, Tensor, TupleVal, is_list,
                     is_tuple_index, like_seq, make_seq, seq_items)

_EXPR_HINTS = {
    "DictComp": "write the dict literally ({'a': x, 'b': y}): its keys must be known when "
                "it is compiled",
    "Lambda": "define a module-level helper function; solvent inlines it",
}

BINOP_UFUNC = {
    ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.true_divide,
    ast.FloorDiv: np.floor_divide, ast.Mod: np.remainder, ast.Pow: np.power,
    ast.BitAnd: np.bitwise_and, ast.BitOr: np.bitwise_or, ast.BitXor: np.bitwise_xor,
    ast.LShift: np.left_shift, ast.RShift: np.right_shift,
}
CMP_UFUNC = {
    ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal,
    ast.Gt: np.greater, ast.GtE: np.greater_equal,
}
_CONST_CMP = {ast.Is: operator.is_, ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
              ast.NotIn: lambda a, b: a not in b}
# NumPy's reductions: out= of another dtype is cast into unsafely; those of a ufunc reduce
# in the loop that ufunc's dtype resolution picks for (out, a) unless dtype= is given
_REDUCE_UFUNC = {np.sum: np.add, np.prod: np.multiply, np.cumsum: np.add,
                 np.cumprod: np.multiply}
_REDUCTIONS = (*_REDUCE_UFUNC, np.max, np.amax, np.min, np.amin, np.mean, np.std, np.var,
               np.any, np.all)
_PY_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
           ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}


def _python_number(v) -> bool:
    """A Python int/float/bool (weak scalar), compile-time or run-time."""
    if isinstance(v, Const):
        return type(v.value) in (bool, int, float)
    return isinstance(v, Tensor) and v.weak and v.type.rank == 0 and v.dtype[0] != "c"


def _zero_division_message(op, a, b) -> str:
    """What Python says dividing these Python numbers by zero ('integer division or modulo
    by zero', 'float modulo', ...: the running Python's own words)."""
    fn = {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
    x, y = (v.value if isinstance(v, Const) else 1.0 if v.dtype[0] == "f" else 1
            for v in (a, b))
    try:
        fn[type(op)](x, type(y)(0))
    except ZeroDivisionError as e:
        return str(e)
    return "division by zero"


def _python_only(v) -> bool:
    """A compile-time value that is no number: compared by Python, never as an array
    (``a.dtype == np.float32`` compares a dtype with a scalar type, as NumPy does)."""
    return isinstance(v, Const) and isinstance(v.value, (str, tuple, type(None), np.dtype, type))


class ExprMixin:
    def expr(self, node: ast.expr):
        saved = self.b.loc
        self.b.loc = self.loc_of(node)
        try:
            method = getattr(self, "expr_" + type(node).__name__, None)
            if method is None:
                raise self.unsupported(f"{type(node).__name__} expressions are not supported",
                                       _EXPR_HINTS.get(type(node).__name__))
            return method(node)
        except IRError as e:
            raise self.unsupported(f"solvent could not compile this expression (internal "
                                   f"error: {e})", "please report it with this code") from None
        finally:
            self.b.loc = saved

    # --- leaves ---------------------------------------------------------------------------
    def expr_Constant(self, node):
        return Const(node.value)

    def expr_Dict(self, node):
        """``{"u": u, "e": e}`` with keys known at compile time (``**d`` of such a dict too): a
        read-only record, returned as a dict (frontend/arg_trees.Record)."""
        fields: dict = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                more = self.expr(v)
                if not (isinstance(more, Record) and more.kind == "dict"):
                    raise self.unsupported("**spreading something other than a dict")
                fields.update(more.fields)
                continue
            key = self.expr(k)
            if not isinstance(key, Const) or not isinstance(key.value, (str, int, float,
                                                                        bool, tuple)):
                raise self.unsupported("a dict key known only at run time",
                                       "use keys written in the code")
            fields[key.value] = self.expr(v)
        return self.local_record("dict", dict, fields)

    def local_record(self, kind, cls, fields: dict):
        return Record(kind, cls, tuple(fields.items()),
                      f"the {cls.__name__} built at line {self.b.loc.line if self.b.loc else '?'}",
                      local=True, loops=len(self.loop_stack))

    def expr_JoinedStr(self, node):
        """An f-string: a string when every field is known at compile time, else a
        ``Formatted`` value that ``print`` takes (ops/io.py formats it at run time)."""
        parts = []
        for piece in node.values:
            if isinstance(piece, ast.Constant):
                parts.append(str(piece.value))
                continue
            value = self.expr(piece.value)
            conv = "" if piece.conversion == -1 else chr(piece.conversion)
            spec = Const("") if piece.format_spec is None else self.expr(piece.format_spec)
            if not isinstance(spec, Const):
                raise self.unsupported("a format spec computed at run time in an f-string")
            if isinstance(value, Const) and not isinstance(value.value, np.ndarray):
                from ..ops.io import _field
                parts.append(_field(value.value, conv, spec.value))
                continue
            parts.append((value, conv, spec.value))
        if all(isinstance(p, str) for p in parts):
            return Const("".join(parts))
        return Formatted(tuple(parts))

    def expr_Name(self, node):
        return self.lookup(node.id)

    def lookup(self, name: str):
        if name in self.env:
            v = self.env[name]
            unbound = self.maybe_unbound.get(name)
            if unbound is not None and unbound[0] is v:   # still the binding a loop left
                self.check(unbound[1], "UnboundLocalError", f"cannot access local variable "
                           f"{name!r} where it is not associated with a value")
            return v
        if name in self.closure:
            v = self.closure[name]
            if isinstance(v, np.ndarray):
                return self.outer_array(self.closure_cells[name], name, v)
            self.capture(self.closure_cells[name], name, v)
            return Const(v)
        if name in self.globals:
            v = self.globals[name]
            if isinstance(v, np.ndarray):
                return self.outer_array(self.globals, name, v)
            self.capture(self.globals, name, v)
            return Const(v)
        if hasattr(builtins, name):
            self.capture(self.globals, name, None, absent=True)  # a later global may shadow it
            return Const(getattr(builtins, name))
        raise self.unsupported(f"name {name!r} is not defined")

    def expr_NamedExpr(self, node):
        """``(n := expr)``: binds ``n`` and gives its value."""
        self.assign(node.target, self.expr(node.value))
        return self.lookup(node.target.id)

    def expr_Lambda(self, node):
        defaults = [self.expr(d) for d in node.args.defaults]
        return Const(LocalFunction(node, self, defaults, "<lambda>"))

    def expr_Tuple(self, node):
        return make_seq((self.expr(e) for e in node.elts), isinstance(node, ast.List))

    expr_List = expr_Tuple

    def expr_Slice(self, node):
        parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper, node.step)]
        return ("slice", parts, node)

    # --- operators ------------------------------------------------------------------------
    def expr_BinOp(self, node):
        a, b = self.expr(node.left), self.expr(node.right)
        self.refuse_list_arithmetic(a, b, what=f"operator {type(node.op).__name__}")
        if isinstance(node.op, ast.MatMult):
            return self.matmul(a, b)
        uf = BINOP_UFUNC.get(type(node.op))
        if uf is None:
            raise self.unsupported(f"operator {type(node.op).__name__}")
        if uf is np.power and isinstance(b, Const) and type(b.value) is int and b.value == 2 \
                and not isinstance(a, Const) and self.tensor_type(a).rank \
                and self.tensor_type(a).dtype == "i1":
            return self.ufunc(np.square, a)  # ndarray ** 2 is np.square: bool ** 2 is int8
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and _python_number(a) and \
                _python_number(b) and not (isinstance(b, Const) and b.value != 0):
            # Python numbers divide as Python does: by zero is an error, not inf or 0 (a
            # constant zero divisor of a run-time number too: the check fails where reached)
            self.check(self.ufunc(np.not_equal, b, Const(0)), "ZeroDivisionError",
                       _zero_division_message(node.op, a, b))
        seq = self._sequence_op(node, a, b)
        if seq is not None:
            return seq
        if isinstance(a, TupleVal) or isinstance(b, TupleVal):
            return self._tuple_op(node, a, b)
        if isinstance(a, Const) and isinstance(b, Const) and not (
                isinstance(a.value, (int, float, complex, np.generic))
                and isinstance(b.value, (int, float, complex, np.generic))):
            try:  # tuple concatenation / repetition and friends on compile-time values
                r = _PYOP[type(node.op)](a.value, b.value)
                if isinstance(r, tuple) and (isinstance(a, ListConst) or
                                             isinstance(b, ListConst)):
                    return ListConst(r)   # [0] * 3 is a list (a list's value is a tuple)
                return Const(r)
            except Exception as e:
                raise self.unsupported(f"{e}") from None
        return self.python_int_arith(uf, a, b)   # Python ints: an overflow raises

    def _sequence_op(self, node, a, b):
        """Python's ``list + list`` and ``list * n`` (also of compile-time lists) when an
        operand is known only at run time: ``[0.0] * n`` with ``n`` an integer argument is
        ``n`` zeros, never ``[0.0]`` times ``n`` elementwise. None where Python itself does
        arithmetic (a sequence with an array: NumPy's elementwise operators)."""
        if isinstance(a, Const) and isinstance(b, Const):
            return None
        ta, tb = seq_items(a), seq_items(b)
        if isinstance(node.op, ast.Add) and ta is not None and tb is not None:
            return like_seq(a, ta + tb)
        if isinstance(node.op, ast.Mult) and (ta is None) != (tb is None):
            k = b if ta is not None else a
            kt = None if isinstance(k, (Const, TupleVal)) else self.tensor_type(k)
            if kt is not None and kt.rank == 0 and kt.dtype[0] in "iu" and kt.dtype != "i1":
                n = self.static_int(k, "a list repetition count")
                seq = a if ta is not None else b
                return like_seq(seq, (ta if ta is not None else tb) * max(n, 0))
        return None

    def _sequence_compare(self, op, xs, ys):
        """``[a, b] == [c, d]`` with run-time items: Python's one bool (equal lengths and
        items equal in turn), not NumPy's elementwise array."""
        if not isinstance(op, (ast.Eq, ast.NotEq)):
            raise self.unsupported(f"{type(op).__name__} between sequences with run-time "
                                   "items", "compare their items")
        if any(self.tensor_type(v).rank for v in xs + ys if not isinstance(v, Const)):
            raise self.unsupported("== between lists holding arrays (Python would ask for "
                                   "the truth of an array)", "use np.array_equal")
        same = Const(len(xs) == len(ys))
        if same.value:
            for x, y in zip(xs, ys):
                same = self.ufunc(np.logical_and, same, self.ufunc(np.equal, x, y))
        return self.logical_not(same) if isinstance(op, ast.NotEq) else same

    def _tuple_op(self, node, a, b):
        """``t + u`` and ``t * k`` of tuples holding run-time values: Python's concatenation
        and repetition (never elementwise arithmetic)."""
        ta, tb = seq_items(a), seq_items(b)
        if isinstance(node.op, ast.Add) and ta is not None and tb is not None:
            return like_seq(a, ta + tb)
        if isinstance(node.op, ast.Mult) and (ta is None) != (tb is None):
            k = self.static_int(b if ta is not None else a, "a tuple repetition count")
            return like_seq(a if ta is not None else b,
                            (ta if ta is not None else tb) * max(k, 0))
        raise self.unsupported(f"operator {type(node.op).__name__} on a tuple",
                               "tuples support + (concatenation) and * (repetition)")

    def expr_UnaryOp(self, node):
        x = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return self.logical_not(x)
        uf = {ast.USub: np.negative, ast.UAdd: np.positive, ast.Invert: np.invert}[type(node.op)]
        if uf is np.negative:
            return self.python_int_unary(uf, x)   # -(-2**63) of a Python int raises
        return self.ufunc(uf, x)

    def logical_not(self, x):
        if isinstance(x, Const):
            return Const(not x.value)
        r = self.ufunc(np.logical_not, self.truth(x))
        return Tensor(r.v, weak=True, deps=r.deps)   # Python's `not` gives a Python bool

    def truth(self, x):
        """bool(x) for a scalar: Const bool or an i1 Tensor."""
        if isinstance(x, Const):
            return Const(bool(x.value))
        t = self.tensor(x)
        if t.type.rank != 0:
            size = int(np.prod(t.shape))
            if size != 1:  # NumPy raises ValueError here; so does solvent, at compile time
                what = "an empty array" if size == 0 else \
                    "an array with more than one element"
                raise ValueError(f"{self.b.loc}: the truth value of {what} is ambiguous. "
                                 "Use a.any() or a.all()")
            t = Tensor(self.b.one("tensor.reshape", t.v, shape=[]), deps=t.deps)
        if t.dtype == "i1":
            return t
        return self.ufunc(np.not_equal, t, Const(0))

    def expr_BoolOp(self, node):
        # Python's and/or on scalars. Operands are pure expressions, so evaluating them all
        # is safe; the result follows Python's short-circuit value rule when compile-time.
        is_and = isinstance(node.op, ast.And)
        vals = []
        with self.guarded_checks() as guard:
            for k, operand in enumerate(node.values):
                vals.append(self.expr(operand))
                if k == len(node.values) - 1:
                    break
                tv = self.truth(vals[-1])
                if isinstance(tv, Const):
                    if bool(tv.value) != is_and:
                        break  # Python never evaluates the rest
                    continue
                if any(_python_only(v) for v in [vals[-1]]) or any(
                        isinstance(o, ast.Constant) and not isinstance(o.value, (int, float))
                        for o in node.values):
                    # `x or None`: which object results must be known at compile time
                    raise self.need_static(tv, "a value that is None (or not) at run time")
                # the rest runs only where this operand did not decide: their run-time
                # checks (an index after `i < n and`) must not fire elsewhere
                guard(tv if is_and else self.ufunc(np.logical_not, tv))
        result = vals[-1]
        for v in reversed(vals[:-1]):
            tv = self.truth(v)
            if isinstance(tv, Const):
                result = (result if tv.value else v) if is_and else (v if tv.value else result)
                continue
            # Python returns one of the operands: `x or y` is x when x is true, else y
            result = self.select(tv, result, v) if is_and else self.select(tv, v, result)
        return result

    def expr_Compare(self, node):
        left = self.expr(node.left)
        out = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            if type(op) in _CONST_CMP:
                if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, Record) and \
                        right.kind == "dict" and isinstance(left, Const):
                    found = any(k == left.value for k, _ in right.fields)   # a key of a dict
                    r = Const(found if isinstance(op, ast.In) else not found)
                elif not (isinstance(left, Const) and isinstance(right, Const)):
                    if isinstance(op, (ast.Is, ast.IsNot)) and (
                            isinstance(right, Const) and right.value is None):
                        r = Const(isinstance(op, ast.IsNot))  # arrays are never None
                    else:
                        raise self.unsupported(f"{type(op).__name__} on run-time values")
                else:
                    r = Const(_CONST_CMP[type(op)](left.value, right.value))
            elif (_python_only(left) or _python_only(right)) and isinstance(left, Const) \
                    and isinstance(right, Const):
                # compile-time strings, None and tuples compare as Python compares them
                r = Const(_PY_CMP[type(op)](left.value, right.value))
            elif seq_items(left) is not None and seq_items(right) is not None:
                r = self._sequence_compare(op, seq_items(left), seq_items(right))
            else:
                self.refuse_list_arithmetic(left, right, what=f"{type(op).__name__}")
                r = self.ufunc(CMP_UFUNC[type(op)], left, right)
            if len(node.ops) > 1 and right_node is not node.comparators[-1]:
                self.truth(r)  # `a < b < c` is `(a < b) and (b < c)`: bool() of an array raises
            out = r if out is None else self.ufunc(np.logical_and, out, r)
            left = right
        return out

    def expr_IfExp(self, node):
        c = self.truth(self.expr(node.test))
        if isinstance(c, Const):
            return self.expr(node.body if c.value else node.orelse)
        body = self._arm(node.body, c)
        orelse = self._arm(node.orelse, self.ufunc(np.logical_not, c))
        if body is None and orelse is None:
            raise self.unsupported("a conditional expression whose both values fail")
        if body is None or orelse is None:
            # an arm that fails where it is chosen (a check under its condition): the value
            # is the other's (an array itself, not a copy)
            return orelse if body is None else body
        seqs = [seq_items(body), seq_items(orelse)]
        if None not in seqs and len(seqs[0]) == len(seqs[1]) and \
                is_tuple_index(body) == is_tuple_index(orelse):
            # a tuple (or list) on both paths stays one, item by item
            return like_seq(body, tuple(self.select(c, x, y) for x, y in zip(*seqs)))
        return self.select(c, body, orelse)

    def _arm(self, node, cond):
        """One value of ``x if c else y``, its checks under its condition ``cond``; None
        where translating it found an error Python raises only if that value is chosen (a
        shape that does not fit: statements.defer_error, as a check under ``cond``)."""
        from .statements import DEFERRABLE
        with self.guarded_checks() as guard:
            guard(cond)
            try:
                return self.expr(node)
            except DEFERRABLE as e:
                if not self.defer_error(node, e, path_fails=False):
                    raise
                return None

    # --- attributes, subscripts, calls -----------------------------------------------------
    def expr_Attribute(self, node):
        obj = self.expr(node.value)
        if isinstance(obj, Record):
            if obj.kind != "object":
                raise self.unsupported(f"attribute {node.attr!r} of the dict {obj.name}",
                                       "read items by key: d['name']")
            member = self.class_member(obj, node.attr)
            if isinstance(member, property) and isinstance(member.fget, types.FunctionType):
                return self.inline_call(member.fget, [obj], {}, node)   # a property's getter
            return obj.get(node.attr, self)
        if isinstance(obj, Const):
            try:
                return Const(getattr(obj.value, node.attr))
            except AttributeError:
                raise self.unsupported(f"{obj.value!r} has no attribute {node.attr!r}") from None
        if isinstance(obj, (Tensor, ArrayRef)):
            return self.array_attribute(obj, node.attr)
        raise self.unsupported(f"attribute {node.attr!r} of a tuple")

    def expr_Subscript(self, node):
        obj = self.expr(node.value)
        idx = self.index_items(node.slice)
        if len(idx) == 1 and hasattr(idx[0], "lower") and all(
                p is None or isinstance(p, Const) for p in (idx[0].lower, idx[0].upper,
                                                            idx[0].step)) and (
                isinstance(obj, Const) or seq_items(obj) is not None):
            # a slice of a tuple with compile-time bounds: shape[:ax], shape[ax + 1:]
            idx = [Const(slice(*(None if p is None else p.value for p in
                                 (idx[0].lower, idx[0].upper, idx[0].step))))]
        if isinstance(obj, Const) and obj.value in (np.mgrid, np.ogrid):
            from .npapi_creation import index_grid
            key = tuple(slice(*(None if p is None else self.static(p, "an np.mgrid bound")
                                for p in (i.lower, i.upper, i.step)))
                        if hasattr(i, "lower") else self.static(i, "an np.mgrid bound")
                        for i in idx)
            return index_grid(self, "mgrid" if obj.value is np.mgrid else "ogrid",
                              key[0] if len(key) == 1 else key)
        if isinstance(obj, Const) and getattr(obj.value, "solvent_static_getitem", False):
            # e.g. a kernel's launch configuration k[grid, block] (solvent/simt): compile time
            key = tuple(self.static(i, f"the subscript of {obj.value!r}") for i in idx)
            return Const(obj.value[key[0] if len(key) == 1 else key])
        if isinstance(obj, Const) and all(isinstance(i, Const) for i in idx):
            key = tuple(i.value for i in idx)
            try:
                return Const(obj.value[key[0] if len(key) == 1 else key])
            except IndexError as e:   # Python's error, raised where the line runs
                text = "list index out of range" if isinstance(obj, ListConst) else str(e)
                raise IndexError(f"{self.b.loc}: {text}") from None
            except Exception as e:
                raise self.unsupported(f"indexing {obj.value!r}: {e}") from None
        if isinstance(obj, Record):
            if len(idx) != 1 or not isinstance(idx[0], Const):
                raise self.unsupported(f"indexing {obj.name} by a value known only at run "
                                       "time", "use a key or position written in the code")
            k = idx[0].value
            if obj.kind == "object" and isinstance(k, int) and issubclass(obj.cls, tuple):
                return obj.fields[k][1]            # a namedtuple by position
            if obj.kind != "dict":
                raise self.unsupported(f"indexing the object {obj.name}",
                                       "read its attributes: obj.name")
            return obj.get(k, self)
        items = seq_items(obj)
        if items is not None:
            if len(idx) == 1 and isinstance(idx[0], Const):
                k = idx[0].value
                return like_seq(obj, items[k]) if isinstance(k, slice) else items[k]
            picked = self.sequence_item_at(items, idx, "list" if is_list(obj) else "tuple")
            if picked is not None:
                return picked
            raise self.unsupported("tuples can only be indexed by compile-time integers",
                                   "a run-time index reads lists of numbers, or of arrays "
                                   "of one shape and dtype")
        return self.getitem(obj, idx)

    def sequence_item_at(self, items, idx, kind: str = "list"):
        """``xs[i]`` with ``i`` known only at run time, for a list or tuple whose items are
        numbers or arrays of one type (shape, dtype, Python or NumPy scalar): the items
        stacked (as np.array(xs) would), then indexed; negative ``i`` counts from the end and one out of range raises
        IndexError, as for the list. An array item is read from that copy, which refuses
        writes (they would not reach the list's array); returned, it is a new array, not the
        list's own object. None where this does not apply."""
        if len(idx) != 1 or not isinstance(idx[0], (Tensor, ArrayRef)) or not items:
            return None
        i = self.tensor(idx[0])
        if i.type.rank or i.dtype[0] not in "iu" or i.dtype == "i1":
            return None
        if not all(isinstance(x, (Tensor, ArrayRef, Const)) for x in items):
            return None
        if any(isinstance(x, Const) and not isinstance(x.value, (bool, int, float, complex,
                                                                 np.generic)) for x in items):
            return None
        ts = [self.tensor(x) for x in items]
        # one type for every item (the item's type cannot follow the run-time index)
        if len({(t.type.shape, t.dtype, bool(t.weak)) for t in ts}) != 1:
            return None
        n = Const(len(items))   # Python's error and words, before the stacked array's check
        self.check(self.ufunc(np.logical_and, self.ufunc(np.greater_equal, i, Const(-len(items))),
                              self.ufunc(np.less, i, n)), "IndexError",
                   f"{kind} index out of range")
        weak = ts[0].weak
        stacked = self.tensor(self.call_function(np.stack, [TupleVal(tuple(ts))], {}, None))
        if not ts[0].type.rank:
            return Tensor(self.tensor(self.getitem(stacked, [i])).v, weak=weak)
        # an array item is read from a copy: a write through it would not reach the array
        # in the list, so the copy refuses writes
        copy = self.new_buffer(stacked, "__solvent_list_items", guard=(
            "writing into a list's array picked by a run-time index (solvent reads such an "
            "item from a copy of the list's arrays)"))
        return self.getitem(copy, [i])

    def index_items(self, node) -> list:
        elts = node.elts if isinstance(node, ast.Tuple) else [node]
        out = []
        self.shared["in_subscript"] = self.shared.get("in_subscript", 0) + 1
        try:   # (Python-int arithmetic written in a subscript is not checked: python_ints)
            for e in elts:
                if isinstance(e, ast.Slice):
                    out.append(self.slice_item(e))
                else:
                    out.append(self.expr(e))
        finally:
            self.shared["in_subscript"] -= 1
        if len(elts) == 1 and not isinstance(node, (ast.Tuple, ast.Slice)) and \
                is_tuple_index(out[0]):
            # x[t] with a tuple t held in a name (or passed in) indexes several axes, as
            # x[i, j] does; a list there is an integer-array index
            items = list(seq_items(out[0]))
            if any(isinstance(i, Const) and isinstance(i.value, slice) for i in items):
                raise self.unsupported("indexing by a tuple of slice objects held in a "
                                       "variable", "write the slices in the subscript")
            return items
        return out

    def expr_Call(self, node):
        if isinstance(node.func, ast.Attribute):
            obj = self.expr(node.func.value)
            if isinstance(obj, (Record, ArgList)):
                return self.container_method(obj, node)
            if node.func.attr == "append" and (is_list(obj) or isinstance(
                    obj, (GrownList, Growing, ListRef))):
                args, kwargs = self.call_args(node)
                return self.list_append(node, obj, args, kwargs)
            if isinstance(obj, (GrownList, ListRef)):
                self.refuse_list_arithmetic(obj, what=f"list.{node.func.attr}")
            if isinstance(obj, (Tensor, ArrayRef)):
                args, kwargs = self.call_args(node)
                return self.call_method(obj, node.func.attr, args, kwargs)
            if node.func.attr in LIST_GROWTH and is_list(obj):
                raise self.unsupported(
                    f"list.{node.func.attr}: a list cannot grow in compiled code",
                    "preallocate an array (hist = np.empty(n)) and write hist[i] = value")
            fn = self.expr(node.func)
        else:
            fn = self.expr(node.func)
        args, kwargs = self.call_args(node)
        if not isinstance(fn, Const):
            raise self.unsupported("calling a run-time value")
        return self.call_function(fn.value, args, kwargs, node)

    def container_method(self, obj, node):
        """A method of a dict, object or list passed in: reads (``d.get``, ``d.keys``...,
        ``xs.index``/``count`` are refused as unsupported) only; changes are refused."""
        attr = node.func.attr
        if (isinstance(obj, ArgList) and attr in LIST_GROWTH + ("sort", "reverse")) or (
                isinstance(obj, Record) and attr in ("update", "pop", "popitem", "setdefault",
                                                     "clear")):
            raise refuse_change(self, obj, f".{attr}()")
        args, kwargs = self.call_args(node)
        if isinstance(obj, Record) and obj.kind == "dict":
            if attr == "get" and 1 <= len(args) <= 2 and not kwargs and \
                    isinstance(args[0], Const):
                if any(k == args[0].value for k, _ in obj.fields):
                    return obj.get(args[0].value, self)
                return args[1] if len(args) == 2 else Const(None)
            if attr in ("keys", "values", "items") and not args and not kwargs:
                items = {"keys": [Const(k) for k, _ in obj.fields],
                         "values": [v for _, v in obj.fields],
                         "items": [TupleVal((Const(k), v)) for k, v in obj.fields]}[attr]
                return TupleVal(tuple(items))
        if isinstance(obj, Record) and obj.kind == "object":
            member = self.class_member(obj, attr)
            if isinstance(member, types.FunctionType):      # self.helper(x): inlined
                return self.inline_call(member, [obj, *args], kwargs, node)
            if isinstance(member, staticmethod) and isinstance(member.__func__,
                                                               types.FunctionType):
                return self.inline_call(member.__func__, args, kwargs, node)
            raise self.unsupported(f"calling the method {attr!r} of {obj.name}",
                                   "solvent reads the attributes of objects passed in and "
                                   "inlines the methods their class defines in Python")
        raise self.unsupported(f"the method {attr!r} of {obj.name}")

    def build_record(self, cls, args, kwargs):
        """``dict(a=x, ...)``, ``dict(d, a=x)`` and ``Point(x, y)`` of a namedtuple class."""
        if cls is dict:
            if len(args) > 1 or (args and not (isinstance(args[0], Record)
                                               and args[0].kind == "dict")):
                raise self.unsupported("dict() of something other than keywords or a dict")
            fields = dict(args[0].fields) if args else {}
            fields.update(kwargs)
            return self.local_record("dict", dict, fields)
        sig = inspect.signature(cls)
        try:
            given = sig.bind(*args, **kwargs).arguments
        except TypeError as e:
            raise TypeError(f"{self.b.loc}: {e}") from None
        # a field not passed takes the class's default, a compile-time value
        return self.local_record("object", cls, {
            k: given[k] if k in given else Const(sig.parameters[k].default)
            for k in cls._fields})

    def vectorized(self, vf, args, kwargs, node):
        """A call of an ``np.vectorize`` object: its Python function once per element
        (npapi_prelude.vectorized_call); signature=, excluded= and keyword arguments are
        refused, and a function returning several values."""
        from .npapi_prelude import vectorized_call
        if vf.signature is not None or vf.excluded or kwargs:
            raise self.unsupported("np.vectorize with signature=, excluded= or keyword "
                                   "arguments", "write the loop over the elements")
        otypes = tuple(np.dtype(t) for t in (vf.otypes or ""))
        if len(otypes) > 1:
            raise self.unsupported("np.vectorize with several outputs")
        return self.inline_call(vectorized_call, [Const(vf.pyfunc), Const(otypes), *args],
                                {}, node, keep_loc=True)

    @staticmethod
    def class_member(obj, attr):
        """What the class of object ``obj`` (a plain class passed in) defines as ``attr``,
        when the object itself does not hold it: a method, a property, or None."""
        from .arg_trees import plain_object_class
        if any(k == attr for k, _ in obj.fields) or not plain_object_class(obj.cls):
            return None
        return inspect.getattr_static(obj.cls, attr, None)

    def call_args(self, node):
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = seq_items(self.expr(a.value))
                if v is not None:
                    args.extend(v)
                else:
                    raise self.unsupported("*args of a run-time value")
            else:
                args.append(self.expr(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:       # f(**params): a dict known item by item
                d = self.expr(k.value)
                if not (isinstance(d, Record) and d.kind == "dict"
                        and all(isinstance(key, str) for key, _ in d.fields)):
                    raise self.unsupported("**kwargs of something other than a dict with "
                                           "string keys")
                kwargs.update(d.fields)
                continue
            kwargs[k.arg] = self.expr(k.value)
        return args, kwargs

    def write_out(self, out, r, unsafe: bool = False):
        """``out=``: the result written into the array variable ``out`` (NumPy's casting
        check of an in-place result unless ``unsafe``, its shape broadcast), which is
        returned."""
        if isinstance(out, TupleVal) and len(out.items) == 1:
            out = out.items[0]
        if not isinstance(out, ArrayRef):
            raise self.unsupported("out= must be an array variable")
        if not unsafe:
            self.check_inplace_cast(r, out.dtype)
        self.write_all(out, r)
        return out

    def call_function(self, fn, args, kwargs, node):
        handler = self.function_handler(fn)
        if handler is not None:
            out = kwargs.get("out")
            if out is not None and not (isinstance(out, Const) and out.value is None) \
                    and _takes_out(handler):
                # NumPy writes the result into out= and returns it: one rule for every
                # function that takes it (the handlers compute the value only)
                kwargs = {k: v for k, v in kwargs.items() if k != "out"}
                if fn in _REDUCE_UFUNC and args and isinstance(out, ArrayRef) and (
                        kwargs.get("dtype") is None or (isinstance(kwargs["dtype"], Const)
                                                        and kwargs["dtype"].value is None)):
                    # NumPy reduces in the loop its ufunc picks for (out, a): np.sum(i64,
                    # out=f32) adds in float64, np.sum(u64, out=i64) too
                    loop = _REDUCE_UFUNC[fn].resolve_dtypes(
                        (np_dtype(out.dtype), np_dtype(self.tensor(args[0]).dtype), None),
                        reduction=True, casting="unsafe")[0]
                    kwargs["dtype"] = Const(loop)
                r = self.call_function(fn, args, kwargs, node)
                got = self.tensor_type(r).shape
                if isinstance(out, ArrayRef) and tuple(out.shape) != tuple(got):
                    raise ValueError(f"{self.b.loc}: output array has shape {out.shape}; "
                                     f"{getattr(fn, '__name__', fn)} gives {got}")
                # NumPy's reductions cast into out= unsafely (np.sum(f64, out=int8))
                return self.write_out(out, r, unsafe=fn in _REDUCTIONS)
            bad = _unknown_keywords(handler, kwargs)
            if bad:   # never dropped silently (NumPy's where=, initial=...): said, with the line
                raise self.unsupported(f"{getattr(fn, '__name__', fn)}() with keyword "
                                       f"argument{'s' if len(bad) > 1 else ''} "
                                       f"{', '.join(bad)}")
            r = handler(self, *args, **kwargs)
            # NumPy's functions return NumPy scalars (strong under NEP 50), never Python ones,
            # except those that return Python values (np.ndim, np.shape, np.allclose...)
            if _is_numpy_function(fn) and not getattr(handler, "python_result", False):
                return self.strong(r)
            return r
        if isinstance(fn, np.ufunc):
            out = kwargs.pop("out", None)
            if kwargs:
                raise self.unsupported(f"keyword arguments to numpy.{fn.__name__}: "
                                       f"{', '.join(kwargs)}")
            r = self.strong(self.ufunc(fn, *args))
            if out is None or (isinstance(out, Const) and out.value is None):
                return r
            return self.write_out(out, r)
        if isinstance(fn, (types.FunctionType, LocalFunction)):
            return self.inline_call(fn, args, kwargs, node)
        if isinstance(fn, functools._lru_cache_wrapper) and \
                isinstance(fn.__wrapped__, types.FunctionType):
            # @functools.cache / lru_cache: the cache only saves recomputing what the
            # function returns for the same arguments, so it is inlined as it is
            return self.inline_call(fn.__wrapped__, args, kwargs, node)
        if isinstance(fn, np.vectorize):
            return self.vectorized(fn, args, kwargs, node)
        if isinstance(fn, functools.partial) and isinstance(fn.func, types.FunctionType):
            bound = [*fn.args, *fn.keywords.values()]
            if any(isinstance(v, np.ndarray) for v in bound):
                raise self.unsupported("calling a functools.partial that holds an array",
                                       "pass the array as an argument")
            return self.inline_call(fn.func, [*(Const(a) for a in fn.args), *args],
                                    {**{k: Const(v) for k, v in fn.keywords.items()},
                                     **kwargs}, node)
        python = getattr(fn, "solvent_python_function", None)
        if isinstance(python, types.FunctionType):   # another solvent.jit function: inlined
            return self.inline_call(python, args, kwargs, node)
        inline = getattr(fn, "solvent_inline", None)
        if inline is not None:  # an object that compiles to a function (a kernel launch)
            return inline(self, args, kwargs, node)
        if fn is dict or (isinstance(fn, type) and issubclass(fn, tuple)
                          and hasattr(fn, "_fields")):
            return self.build_record(fn, args, kwargs)
        name = getattr(fn, "__name__", repr(fn))
        module = getattr(fn, "__module__", "") or ""
        if module.startswith("numpy.random") or isinstance(getattr(fn, "__self__", None),
                                                           np.random.Generator):
            raise self.unsupported(f"np.random.{name} inside a compiled function: its numbers "
                                   "would differ from NumPy's stream",
                                   "draw the random numbers before the call and pass them in")
        if module == "math" and not kwargs and all(
                isinstance(a, Const) and isinstance(a.value, (int, float, tuple)) for a in args):
            # a math function of numbers written in the code (math.factorial(5),
            # math.comb(n, 2) with n known): Python's own answer, at compile time
            try:
                return Const(fn(*(a.value for a in args)))
            except (ValueError, OverflowError, TypeError) as e:
                raise type(e)(f"{self.b.loc}: {e}") from None
        raise self.unsupported(f"call to {module + '.' if module else ''}{name} is not supported")


def _parameters(handler) -> list:
    """The parameters of ``handler`` ([] where Python cannot tell)."""
    try:
        return list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError):
        return []


def _unknown_keywords(handler, kwargs) -> list[str]:
    """The keyword arguments ``handler`` does not take (none when it takes ``**kw``)."""
    if not kwargs:
        return []
    params = _parameters(handler)
    if not params or any(p.kind is p.VAR_KEYWORD for p in params):
        return []
    names = {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return [k for k in kwargs if k not in names]


def _takes_out(handler) -> bool:
    return any(p.name == "out" for p in _parameters(handler))


def _is_numpy_function(fn) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return isinstance(fn, np.ufunc) or module == "numpy" or module.startswith("numpy.")


_PYOP = {ast.Add: operator.add, ast.Mult: operator.mul, ast.Sub: operator.sub,
         ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}

MATH_UFUNC = {math.sqrt: np.sqrt, math.exp: np.exp, math.log: np.log, math.sin: np.sin,
              math.cos: np.cos, math.tan: np.tan, math.tanh: np.tanh, math.atan2: np.arctan2,
              math.fabs: np.abs, math.atan: np.arctan, math.asin: np.arcsin,
              math.acos: np.arccos, math.sinh: np.sinh, math.cosh: np.cosh,
              math.log1p: np.log1p, math.expm1: np.expm1, math.hypot: np.hypot,
              math.log10: np.log10, math.log2: np.log2, math.copysign: np.copysign,
              math.asinh: np.arcsinh, math.acosh: np.arccosh,
              math.atanh: np.arctanh, math.exp2: np.exp2, math.fmod: np.fmod,
              math.cbrt: np.cbrt}
