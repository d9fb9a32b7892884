"""Translating Python statements: assignment (with NumPy's aliasing), calls, returns."""
from __future__ import annotations

import ast
import re
from dataclasses import replace

import numpy as np

from ..errors import ClampedWindowError
from ..ir.types import TensorType
from .scopes import (BREAK_FLAG, CONTINUE_FLAG, FAILED, FLAGS, RETURN_FLAG, RETURN_VALUE,
                     always_returns, body_jumps)
from .desugar import WITH_MARK
from .local_functions import LocalFunction
from .arg_trees import ArgList, Record, refuse_change
from .values import ArrayRef, Buffer, Const, Tensor, TupleVal, like_seq, make_seq, seq_items


# errors found while translating a statement that Python raises only if it runs
DEFERRABLE = (IndexError, KeyError, ZeroDivisionError, OverflowError, AssertionError,
              np.linalg.LinAlgError, ValueError, TypeError)


class StmtMixin:
    def stmts(self, body: list[ast.stmt]) -> None:
        for k, s in enumerate(body):
            if self.returned is not None or FAILED in self.env:
                return  # code after a return, or after a certain failure, never runs
            try:
                self.stmt(s)
            except DEFERRABLE as e:
                if not self.defer_error(s, e):
                    raise
                return
            rest = body[k + 1:]
            if rest and ((self.in_loop and body_jumps([s], (ast.Break, ast.Continue)))
                         or RETURN_FLAG in self.env):
                # Statements after a possible break/continue/return run only if it did not
                # happen.
                go = self.jump_pending()
                if isinstance(go, Const):
                    if go.value:
                        return
                    continue
                # the guarded region is ``rest``: a name first assigned there and read
                # only there (or in ``s``) is dead after it
                # on the path that jumped, a name first assigned in ``rest`` is read only
                # where the jump goes (a break/continue target; nothing after a return)
                self.branch(self.logical_not(go), lambda: self.stmts(rest), lambda: None,
                            [s] + rest, jumped_live=self.live_at_jump_target([s] + rest))
                return

    def defer_error(self, node, e, path_fails: bool = True) -> bool:
        """An error NumPy or Python raises on statement ``node`` (found while translating
        it: a shape that does not fit, a constant index out of range, ``1 // 0``), where the
        statement may never run (in a branch, a loop, after a run-time check that may fail
        first): Python raises it only if the statement runs, so it becomes a check that
        fails where it is reached, and this path has failed (scopes.FAILED). False where it
        must be raised now: the statement certainly runs, or the error came from an operand
        evaluated only under a condition (``x if c else y``) or from a comprehension's body,
        or it names no line and is more likely the compiler's own (a KeyError, say). With
        ``path_fails`` False (an arm of ``x if c else y``: expressions._arm) the path goes on."""
        from ..ir.core import SourceLoc
        from ..ops.checks import KINDS
        if self.raise_now() or getattr(e, "_solvent_conditional", False) or \
                isinstance(e, ClampedWindowError):
            return False
        kind = type(e).__name__
        if KINDS.get(kind) is not type(e):    # NumPy's AxisError: a ValueError
            kind = next(c.__name__ for c in DEFERRABLE if isinstance(e, c))
        text = e.args[0] if len(e.args) == 1 and isinstance(e.args[0], str) else str(e)
        m = re.match(r"(.*?):(\d+):(\d+): (.*)", text, re.S)
        loc = SourceLoc(m[1], int(m[2]), int(m[3])) if m else self.loc_of(node)
        if m:
            text = m[4]
        elif isinstance(e, (TypeError, KeyError, AssertionError, np.linalg.LinAlgError)):
            return False      # without a line: more likely the compiler's own error
        saved = self.b.loc
        self.b.loc = loc
        try:
            self.check(Const(False), kind, text)
        finally:
            self.b.loc = saved
        if path_fails:
            self.env[FAILED] = Const(True)
        return True

    def jump_pending(self):
        """Whether a break, continue or return has happened (Const or an i1 Tensor)."""
        out = Const(False)
        for f in FLAGS:
            v = self.truth(self.env.get(f, Const(False)))
            if isinstance(v, Const):
                if v.value:
                    return v
                continue
            out = v if isinstance(out, Const) else self.ufunc(np.logical_or, out, v)
        return out

    def stmt(self, node: ast.stmt) -> None:
        saved = self.b.loc
        self.b.loc = self.loc_of(node)
        try:
            method = getattr(self, "stmt_" + type(node).__name__, None)
            if method is None:
                raise self.unsupported(f"the {type(node).__name__} statement is not supported",
                                       _HINTS.get(type(node).__name__))
            method(node)
        finally:
            self.b.loc = saved

    # --- simple statements -----------------------------------------------------------------
    def stmt_Pass(self, node):
        pass

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant):
            return  # docstring or bare constant
        v = node.value
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == WITH_MARK:
            self.context_manager(v.args[0])
            return
        self.expr(node.value)

    def context_manager(self, node):
        """The context manager of a ``with`` whose body runs as it is (desugar._FlatWith):
        ``np.errstate`` with settings other than 'raise' and 'call' (compiled code emits no
        floating-point warnings, so silencing them changes nothing; raising on them it does
        not do), ``warnings.catch_warnings()``; anything else is refused."""
        import warnings
        fn = self.expr(node.func) if isinstance(node, ast.Call) else None
        fn = fn.value if isinstance(fn, Const) else None
        if fn is np.errstate and not node.args:
            for k in node.keywords:
                setting = self.static(self.expr(k.value), f"np.errstate's {k.arg}")
                if k.arg not in ("all", "divide", "over", "under", "invalid"):
                    raise TypeError(f"{self.b.loc}: np.errstate got an unexpected keyword "
                                    f"{k.arg!r}")
                if setting in ("raise", "call"):
                    raise self.unsupported(f"np.errstate({k.arg}={setting!r}): compiled code "
                                           "does not raise on floating-point events",
                                           "test the values (np.isfinite) and raise")
            return
        if fn is warnings.catch_warnings and not node.args and not node.keywords:
            return
        raise self.unsupported("the With statement (solvent runs the bodies of "
                               "`with np.errstate(...)` and `with warnings.catch_warnings()`)")

    def stmt_Assign(self, node):
        value = self.expr(node.value)
        for t in node.targets:
            self.assign(t, value)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node):
        from .expressions import BINOP_UFUNC
        t = node.target
        # Python's order: the target's object, its index and, for a subscript, the item
        # itself (`__getitem__`, so its IndexError comes first) before the right-hand side;
        # the in-place operation then reads the current contents
        rhs = None if isinstance(t, ast.Subscript) else self.expr(node.value)
        if isinstance(node.op, ast.MatMult):
            op = lambda a, b: self.matmul(a, b)  # noqa: E731
        else:
            uf = BINOP_UFUNC[type(node.op)]
            op = lambda a, b: self.python_int_arith(uf, a, b)  # noqa: E731
        if isinstance(t, ast.Name):
            cur = self.lookup(t.id)
            if isinstance(cur, (Record, ArgList)):   # list += changes the caller's list
                raise refuse_change(self, cur, f"{type(node.op).__name__} in place")
            if isinstance(cur, ArrayRef):  # in place: the buffer changes, aliases see it
                new = op(self.read(cur), rhs)
                self.check_inplace_cast(new, cur.dtype)
                self.write_all(cur, new)
            elif isinstance(cur, Tensor) and cur.guard:
                raise self.unsupported(cur.guard, f"write {t.id} = {t.id} <op> ... to rebind "
                                       "it, or copy the 0-d array first")
            else:
                self.bind(t.id, op(cur, rhs))
        elif isinstance(t, ast.Subscript):
            obj = self.expr(t.value)
            if self.local_dict_store(t, obj, lambda cur: op(cur, self.expr(node.value))):
                return
            if isinstance(obj, (Record, ArgList)):
                raise refuse_change(self, obj, "changing an item")
            obj = self.list_store_target(t.value, obj)
            items = self.index_items(t.slice)
            if self.is_mask_index(obj, items):
                rhs = self.expr(node.value)
                self.mask_update(obj, items[0], lambda cur: op(cur, rhs))
                return
            masked = self.mask_view(obj, items)     # a[mask, k] op= v
            if masked is not None:
                rhs = self.expr(node.value)
                self.mask_update(masked[0], masked[1], lambda cur: op(cur, rhs))
                return
            cur = self.getitem(obj, items)
            rhs = self.expr(node.value)
            new = op(cur if not isinstance(cur, ArrayRef) else self.read(cur), rhs)
            if self.tensor_type(cur).rank:
                # `a[s] += v` runs the ufunc in place on a[s] (same-kind casting); on a single
                # element it is get, add, set (any casting), as in NumPy
                self.check_inplace_cast(new, self.tensor_type(obj).dtype)
            self.check_list_store(obj, new)
            self.setitem(obj, items, new)
        elif isinstance(t, ast.Attribute):
            obj = self.expr(t.value)
            if isinstance(obj, Record):
                cur = obj.get(t.attr, self) if obj.kind == "object" else None
                if not isinstance(cur, ArrayRef):   # self.t += dt would rebind the attribute
                    raise refuse_change(self, obj, f"changing the attribute {t.attr!r}")
            elif t.attr in ("real", "imag"):
                cur = self.part_target(t, obj)      # z.real += v: on the part's view
            else:
                raise self.unsupported("augmented assignment to this target")
            new = op(self.read(cur), self.expr(node.value))   # in place, as NumPy's op=
            self.check_inplace_cast(new, cur.dtype)
            self.write_all(cur, new)
        else:
            raise self.unsupported("augmented assignment to this target")

    def check_inplace_cast(self, new, dtype):
        nd = self.tensor(new).dtype
        from ..ir.types import np_dtype
        if not np.can_cast(np_dtype(nd), np_dtype(dtype), casting="same_kind"):
            # NumPy's error (a TypeError), where NumPy would raise it: at once if this line
            # certainly runs, else by a run-time check (the cast value stands in meanwhile)
            self.numpy_error(
                "UFuncTypeError", f"Cannot cast ufunc output from dtype('{np_dtype(nd)}') to "
                f"dtype('{np_dtype(dtype)}') with casting rule 'same_kind' (an in-place "
                "operation; write x = x + y to get a new array)")

    def stmt_Delete(self, node):
        for t in node.targets:
            if isinstance(t, ast.Name):
                self.env.pop(t.id, None)
            else:
                raise self.unsupported("del of anything but a name")

    def stmt_Assert(self, node):
        """``assert test, message``: a check with this line. The message (evaluated by
        Python only when the test fails) is a string known at compile time, or one run-time
        integer (``assert i < n, i``) or an f-string with one, as a ``raise``'s."""
        c = self.truth(self.expr(node.test))
        if isinstance(c, Const) and c.value:
            return
        message, payload = "", None
        if node.msg is not None:
            m = self.expr(node.msg)
            if isinstance(m, Const):
                message = str(m.value)
            elif isinstance(m, Tensor) and not m.type.rank and m.dtype[0] in "iu":
                message, payload = "{}", m
            else:
                message, payload = self._raise_message(m)
        if isinstance(c, Const):     # always fails where it is reached
            if self.raise_now() and payload is None:
                raise AssertionError(f"{self.b.loc}: {message}" if message else str(self.b.loc))
            self.check(Const(False), "AssertionError", message, payload)
            self.env[FAILED] = Const(True)
            return
        # decided at run time: raised by the runtime, with this line, before any write-back
        self.check(c, "AssertionError", message, payload)

    def stmt_Raise(self, node):
        """``raise ValueError("...")``: the error is raised where the statement is reached,
        with its line, as a check that always fails there (a failed check ends a while
        loop, nothing is written back). The exception is a built-in class the runtime knows
        (ops/checks.KINDS); its message a string known at compile time, or an f-string with
        one run-time integer field."""
        from ..ops.checks import KINDS
        exc = node.exc
        if exc is None or node.cause is not None:
            raise self.unsupported("a bare raise, or raise ... from ...",
                                   "raise an exception class with a message")
        call = exc if isinstance(exc, ast.Call) else None
        cls = self.expr(call.func if call else exc)
        cls = cls.value if isinstance(cls, Const) else None
        if not (isinstance(cls, type) and KINDS.get(cls.__name__) is cls):
            raise self.unsupported(
                "raise of this exception class", "the compiled code raises the built-in "
                f"exceptions {', '.join(sorted(k for k in KINDS if '_' not in k))}; raise "
                "others outside the jitted function")
        args = call.args if call else []
        if call and (call.keywords or len(args) > 1):
            raise self.unsupported("an exception built from several arguments",
                                   "pass one message string")
        message, payload = "", None
        if args:
            m = self.expr(args[0])
            if isinstance(m, Const) and isinstance(m.value, str):
                message = m.value
            elif isinstance(m, Const):
                message = str(m.value)
            else:
                message, payload = self._raise_message(m)
        if self.raise_now():
            raise cls(f"{self.b.loc}: {message}")
        self.check(Const(False), cls.__name__, message, payload)
        self.env[FAILED] = Const(True)

    def _raise_message(self, m):
        """(message with ``{}``, the integer payload) of an f-string with one run-time
        integer field."""
        from .values import Formatted
        fields = [p for p in getattr(m, "parts", ()) if not isinstance(p, str)] \
            if isinstance(m, Formatted) else [None, None]
        if len(fields) != 1 or fields[0][1] or fields[0][2] or \
                self.tensor(fields[0][0]).type.rank or \
                self.tensor(fields[0][0]).dtype[0] not in "iu":
            what = (f"an exception message with {len(fields)} fields computed at run time"
                    if isinstance(m, Formatted) and len(fields) > 1
                    else "an exception message computed at run time")
            raise self.unsupported(what, "a run-time error carries one integer: use a string, "
                                   "or an f-string with one integer field known only at run time")
        return "".join(p if isinstance(p, str) else "{}" for p in m.parts), fields[0][0]

    def stmt_FunctionDef(self, node):
        if node.decorator_list:
            raise self.unsupported("decorators on a function defined inside the kernel")
        defaults = [self.expr(d) for d in node.args.defaults]
        self.env[node.name] = Const(LocalFunction(node, self, defaults, node.name))

    def stmt_Import(self, node):
        """``import numpy as np`` inside the kernel binds the module, as at module level."""
        import importlib
        for alias in node.names:
            try:
                module = importlib.import_module(alias.name)
            except ImportError as e:
                raise self.unsupported(f"cannot import {alias.name}: {e}") from None
            if alias.asname:
                self.env[alias.asname] = Const(module)
            else:  # `import a.b` binds `a`
                self.env[alias.name.split(".")[0]] = Const(importlib.import_module(
                    alias.name.split(".")[0]))

    def stmt_ImportFrom(self, node):
        import importlib
        if node.level:
            raise self.unsupported("relative imports inside the kernel")
        module = importlib.import_module(node.module)
        for alias in node.names:
            if alias.name == "*":
                raise self.unsupported("`from ... import *` inside the kernel")
            try:
                value = getattr(module, alias.name)
            except AttributeError:
                value = importlib.import_module(f"{node.module}.{alias.name}")
            self.env[alias.asname or alias.name] = Const(value)

    def stmt_Break(self, node):
        if not self.in_loop:
            raise self.unsupported("break outside a loop")
        self.env[BREAK_FLAG] = Const(True)

    def stmt_Continue(self, node):
        if not self.in_loop:
            raise self.unsupported("continue outside a loop")
        self.env[CONTINUE_FLAG] = Const(True)

    def stmt_Return(self, node):
        value = Const(None) if node.value is None else self.expr(node.value)
        if self.in_loop:
            raise self.unsupported("return inside a loop",
                                   "assign the result to a variable, break, and return it "
                                   "after the loop")
        if self.depth_in_branch:
            # under a run-time condition: remember the value; what follows is skipped
            self.env[RETURN_VALUE] = value
            self.env[RETURN_FLAG] = Const(True)
            return
        self.returned = value

    def result_value(self):
        """The function's return value after its body was translated."""
        if self.returned is not None:
            return self.returned
        if RETURN_FLAG not in self.env:
            return Const(None)
        done = self.truth(self.env[RETURN_FLAG])
        if (isinstance(done, Const) and done.value) or \
                always_returns(self.src.tree.body, or_raises=True):
            return self.env[RETURN_VALUE]
        v = self.env.get(RETURN_VALUE)
        if isinstance(v, Const) and v.value is None:
            return v    # a bare return on some paths, falling off the end on the others
        raise self.unsupported("this function returns a value on some paths and falls off "
                               "its end (returning None) on others",
                               "end every path with a return of the same kind")

    # --- binding names ----------------------------------------------------------------------
    def assign(self, target, value) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)) and any(
                isinstance(t, ast.Starred) for t in target.elts):
            # ``n, *rest = A.shape``: the starred name takes a list of what the others leave
            star = next(k for k, t in enumerate(target.elts) if isinstance(t, ast.Starred))
            items = self.iter_items(value)
            if items is None:
                raise self.unsupported("cannot unpack this value")
            after = len(target.elts) - star - 1
            if len(items) < len(target.elts) - 1:
                raise ValueError(f"{self.b.loc}: not enough values to unpack (expected at "
                                 f"least {len(target.elts) - 1}, got {len(items)})")
            rest = items[star:len(items) - after]
            for t, v in zip(target.elts[:star] + target.elts[star + 1:],
                            items[:star] + items[len(items) - after:]):
                self.assign(t, v)
            self.assign(target.elts[star].value, make_seq(rest, listy=True))
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(value, len(target.elts))
            for t, v in zip(target.elts, items):
                self.assign(t, v)
        elif isinstance(target, ast.Subscript):
            obj = self.expr(target.value)
            if self.local_dict_store(target, obj, lambda cur: value):
                return
            if isinstance(obj, (Record, ArgList)):
                raise refuse_change(self, obj, "assigning an item")
            obj = self.list_store_target(target.value, obj)
            self.check_list_store(obj, value)
            self.setitem(obj, self.index_items(target.slice), value)
        elif isinstance(target, ast.Attribute) and target.attr in ("real", "imag"):
            self.setitem(self.part_target(target), [Const(Ellipsis)], value)
        else:
            obj = self.expr(target.value) if isinstance(target, ast.Attribute) else None
            if isinstance(obj, Record):
                raise refuse_change(self, obj, "assigning an attribute")
            raise self.unsupported(f"assignment to {type(target).__name__}")

    def local_dict_store(self, target: ast.Subscript, obj, new_value) -> bool:
        """``d[k] = v`` (``new_value(current)`` for ``d[k] op= v``) on a dict built in the
        function and held by one name only: the name is bound to the dict with item ``k``
        set (key written in the code); True when done. A dict also held by another name
        is refused, since the other name would not see the change."""
        if not (isinstance(obj, Record) and obj.local and obj.kind == "dict"
                and isinstance(target.value, ast.Name)):
            return False
        items = self.index_items(target.slice)
        if len(items) != 1 or not isinstance(items[0], Const):
            raise self.unsupported(f"a key of {obj.name} known only at run time",
                                   "use keys written in the code")
        name, key = target.value.id, items[0].value
        if any(v is obj for n, v in self.env.items() if n != name):
            raise self.unsupported(f"setting an item of {obj.name}, which another name also "
                                   "holds: the other name would not see it",
                                   "set the items before giving the dict a second name")
        if len(self.loop_stack) > obj.loops:    # the loop would not carry the new binding
            raise self.unsupported(f"setting an item of {obj.name} inside a loop: solvent's "
                                   "dicts carry no changes from one iteration to the next",
                                   "keep the value in a variable in the loop and set the "
                                   "item after it")
        fields = dict(obj.fields)
        fields[key] = new_value(obj.get(key, self) if key in fields else None)
        self.bind(name, replace(obj, fields=tuple(fields.items())))
        return True

    def part_target(self, target: ast.Attribute, obj=None):
        """The array that ``x.real = v`` / ``x.imag = v`` (or ``op=``) writes: the part's view
        of ``x``'s buffer; a real array's ``.real`` is the array itself, its ``.imag`` cannot
        be set (NumPy's TypeError). ``obj``: the target's object, when already evaluated."""
        obj = self.expr(target.value) if obj is None else obj
        if isinstance(obj, Record):
            raise refuse_change(self, obj, "assigning an attribute")
        if not isinstance(obj, ArrayRef):
            raise self.unsupported(f"assigning .{target.attr} of a value that is not an "
                                   "array variable")
        if obj.dtype[0] != "c" and target.attr == "imag":
            raise TypeError(f"{self.b.loc}: array does not have imaginary part to set")
        return self.complex_part(obj, target.attr)

    def iter_items(self, value) -> list | None:
        """The items Python's iteration over ``value`` gives: a tuple's or list's items, an
        array's rows (views) when its first axis has a compile-time length; else None."""
        items = seq_items(value)
        if items is not None:
            return list(items)
        if isinstance(value, (ArrayRef, Tensor)) and value.type.rank >= 1 and \
                isinstance(value.shape[0], int):
            return [self.getitem(value, [Const(i)]) for i in range(value.shape[0])]
        return None

    def unpack(self, value, n):
        items = self.iter_items(value)
        if items is None:
            raise self.unsupported("cannot unpack this value")
        if len(items) != n:
            raise ValueError(f"{self.b.loc}: expected {n} values to unpack, got {len(items)}")
        return items

    def bind(self, name: str, value) -> None:
        """Bind a name. Arrays computed by expressions get a fresh buffer (NumPy allocates)."""
        if isinstance(value, Tensor) and (value.type.rank >= 1 or value.array0d):
            # a 0-d array too: ``b = a; b += 1`` changes ``a``
            value = self.new_buffer(value, name)
        elif isinstance(value, TupleVal):
            value = like_seq(value, tuple(self.new_buffer(v, name) if isinstance(v, Tensor)
                                          and v.type.rank >= 1 else v for v in value.items))
        elif isinstance(value, Record) and value.local and any(
                isinstance(v, Tensor) and v.type.rank >= 1 for _, v in value.fields):
            # its arrays may be written in place (a record without fresh arrays keeps its
            # identity: ``e = d`` is one dict under two names)
            value = replace(value, fields=tuple(
                (k, self.new_buffer(v, f"{name}[{k!r}]") if isinstance(v, Tensor)
                 and v.type.rank >= 1 else v) for k, v in value.fields))
        elif isinstance(value, ArrayRef) and value.buf.guard is None and \
                self.shared.get("order_views"):
            views = self.shared["order_views"]
            keys = [(id(value.buf), repr(value.chain[:k]))
                    for k in range(1, len(value.chain) + 1)]
            line = next((views[k] for k in keys if k in views), None)
            if line is not None:
                value.buf.guard = (
                    f"{value.buf.name!r} was reshaped at line {line} into {name!r}: NumPy's "
                    "reshape of it is a view or a copy depending on the memory order NumPy "
                    "gives it, which follows the Fortran-ordered or strided arguments and "
                    "which solvent does not track; a write into either would not match "
                    "NumPy for certain")
        self.env[name] = value

    def new_buffer(self, t: Tensor, name: str, guard: str | None = None) -> ArrayRef:
        ref = self.b.one("array.alloc", t.v)
        buf = Buffer(ref, name, self.b.block, guard)
        self.births[id(buf)] = self.birth_counter = self.birth_counter + 1
        return ArrayRef(buf, (), TensorType(t.shape, t.dtype))

    def static_name_value(self, key: str):
        m = re.fullmatch(r"Name\(id='(\w+)', ctx=Load\(\)\)", key)
        if not m:
            return None
        v = self.env.get(m.group(1))
        if isinstance(v, Const) and isinstance(v.value, (int, np.integer)) and \
                not isinstance(v.value, bool):
            return int(v.value)
        return None


_HINTS = {
    "Try": "exceptions are not compiled; move the try/except outside the jitted function",
    "With": "solvent runs the bodies of `with np.errstate(...)` (not 'raise'/'call') and "
            "`with warnings.catch_warnings()` (compiled code emits no floating-point "
            "warnings); move other with-blocks outside the jitted function",
    "FunctionDef": "define helper functions at module level; solvent inlines them",
    "Global": "pass the value as an argument",
    "Nonlocal": "pass the value as an argument",
    "ClassDef": "define classes outside the jitted function",
    "Import": "import at module level",
    "ImportFrom": "import at module level",
}
