"""Python function + concrete call arguments -> array-level IR (the frontend's entry point).

Specialization: arrays become ``ref`` arguments of their shape and dtype. Float and complex
scalars are run-time arguments. Integer and bool scalars are run-time arguments too, unless
the function needs one at compile time (a shape, a slice length, ...): then the caller is
told (``NeedStatic``) and compiles again with that argument's value baked in. Strings,
None and tuples are always compile-time values.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import types
import textwrap
from dataclasses import dataclass, field

import numpy as np

from ..errors import UnsupportedError
from .comprehensions import ComprehensionMixin
from . import arg_trees
from .arg_trees import Record, _static_tuple
from .desugar import desugar
from .local_functions import LocalFunction
from ..ir.builder import Builder
from ..ir.core import Block, Function, SourceLoc
from ..ir.types import RefType, TensorType, dtype_name
from .control import ControlMixin
from .emit import Emitter
from .expressions import ExprMixin
from .python_ints import PythonIntMixin
from .dynamic_shapes import DynamicShapeMixin
from .indexing import IndexMixin
from .npapi_methods import ApiMixin
from .scopes import Liveness, assigned_names, loads_outside
from .statements import StmtMixin
from .list_growth import GrownList, ListGrowthMixin
from .list_items import ListItemsMixin, ListRef
from .values import (ArrayRef, Buffer, Const, ListConst, ListVal, ReturnChoice, Tensor, TupleVal,
                     make_seq)

MAX_INLINE_DEPTH = 20


@dataclass
class Source:
    tree: ast.FunctionDef
    filename: str
    line_offset: int
    col_offset: int


_SOURCE_CACHE: dict = {}


def parse_source(fn) -> Source:
    code = fn.__code__
    key = (code.co_filename, code.co_firstlineno, code.co_name, id(code))
    if key in _SOURCE_CACHE:
        return _SOURCE_CACHE[key]
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise UnsupportedError(f"cannot read the source of {fn.__qualname__}",
                               hint="solvent compiles functions defined in files") from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = len(lines[0]) - len(lines[0].lstrip())
    lambda_hint = "define it with def (solvent.jit takes def-functions and lambdas it can " \
        "find in their source: one per line with those parameters)"
    try:
        mod = ast.parse(dedented)
    except SyntaxError:   # the lines of a lambda inside a larger expression (a dict literal)
        mod = _lambda_lines(code, first, indent) if code.co_name == "<lambda>" else None
    if mod is None:
        raise UnsupportedError(f"{code.co_filename}:{first}: {fn.__qualname__} is not a "
                               "def-function", hint=lambda_hint) from None
    if code.co_name == "<lambda>":
        tree = _lambda_as_def(mod, code, first, indent)
    else:
        tree = next((n for n in mod.body
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if tree is None:
        raise UnsupportedError(f"{code.co_filename}:{first}: {fn.__qualname__} is not a "
                               "def-function", hint=lambda_hint)
    src = Source(desugar(tree), code.co_filename, first - 1, indent)
    _SOURCE_CACHE[key] = src
    return src


def _body_span(code):
    """Where the body of lambda ``code`` lies in its file: (line, col) of its first and
    last character, from the positions of its instructions (the entry and the return sit at
    the lambda's own line, column 0, and are left out)."""
    pos = [p for p in code.co_positions()
           if None not in p and (p[0], p[2], p[3]) != (code.co_firstlineno, 0, 0)]
    if not pos:
        return None
    return min((p[0], p[2]) for p in pos), max((p[1], p[3]) for p in pos)


def _lambda_lines(code, first: int, indent: int):
    """The lambda of ``code`` cut out of its file when the lines ``inspect`` gives do not
    parse (an item of a dict literal; a lambda beginning a line of a larger expression, of
    which inspect gives that line only): from the ``lambda`` keyword before its body to
    the body's last character, parsed in parentheses. Line numbers count from ``first``
    and columns lose ``indent``, as for the lines of a def."""
    span = _body_span(code)
    if span is None:
        return None
    (l0, c0), (l1, c1) = span
    lines = linecache.getlines(code.co_filename)[first - 1:l1]
    if not lines:
        return None
    lines[-1] = lines[-1][:c1]
    head = lines[0][:c0] if l0 == first else lines[0]
    k = head.rfind("lambda")
    if k < indent:
        return None
    lines[0] = " " * (k - indent) + lines[0][k:]
    for n in range(1, len(lines)):
        pad = len(lines[n]) - len(lines[n].lstrip(" "))
        lines[n] = lines[n][min(pad, indent):]
    try:
        mod = ast.parse("(\n" + "".join(lines) + "\n)")
    except SyntaxError:
        return None
    ast.increment_lineno(mod, -1)
    return mod


def _lambda_as_def(mod, code, first: int, indent: int):
    """The lambda of ``code`` in the parsed statement ``mod`` as ``def <lambda>(args):
    return body`` (``solvent.jit(lambda x: ...)``): the one whose body starts where the
    code's instructions do, else the only one on its line with those parameters; None if
    none is found."""
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    found = [n for n in ast.walk(mod) if isinstance(n, ast.Lambda)
             and n.lineno + first - 1 == code.co_firstlineno
             and tuple(a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs)
             == params]
    span = _body_span(code)
    if span is not None and len(found) > 1:
        found = [n for n in found if (n.body.lineno + first - 1, n.body.col_offset + indent)
                 == span[0]]
    if len(found) != 1:
        return None
    lam = found[0]
    ret = ast.copy_location(ast.Return(value=lam.body), lam.body)
    fields = dict(name="<lambda>", args=lam.args, body=[ret], decorator_list=[],
                  returns=None)
    if "type_params" in ast.FunctionDef._fields:
        fields["type_params"] = []
    return ast.fix_missing_locations(ast.copy_location(ast.FunctionDef(**fields), lam))


class Translator(StmtMixin, ControlMixin, ExprMixin, ComprehensionMixin, IndexMixin,
                 DynamicShapeMixin, ListGrowthMixin, ListItemsMixin, ApiMixin, PythonIntMixin,
                 Emitter):
    def __init__(self, pyfn, builder: Builder, depth: int = 0, shared=None):
        self.pyfn = pyfn
        self.local = None  # a LocalFunction when translating a def/lambda of the kernel
        self.src = parse_source(pyfn)
        self.globals = pyfn.__globals__
        self.closure = {}
        self.closure_cells = {}
        if pyfn.__closure__:
            for name, cell in zip(pyfn.__code__.co_freevars, pyfn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                    self.closure_cells[name] = cell
                except ValueError:
                    pass
        self._init_state(builder, depth, shared)

    def _init_state(self, builder, depth, shared):
        self.b = builder
        self.env: dict = {}
        self.returned = None
        self.in_loop = False
        self.loop_stack: list = []         # the loops being translated, innermost last
        self.loop_entry_envs: list = []    # and the names bound when each was entered
        self.depth_in_branch = 0
        # names first bound in a for loop whose range may be empty, read after it:
        # name -> (the binding the loop left, "the range was not empty") (control.py)
        self.maybe_unbound: dict = {}
        self.depth = depth
        self._live_cache: dict = {}
        # buffer birth order is shared with inlined callees
        self.shared = shared if shared is not None else {"births": {}, "counter": 0,
                                                        "guards": {}, "implicit": {}}

    @classmethod
    def for_local(cls, lf: LocalFunction, builder: Builder, depth: int, shared):
        """A translator for a function defined inside the kernel (``def`` or ``lambda``):
        it reads the enclosing function's variables as they are when it is called (Python's
        late binding), its globals and closure are the enclosing function's."""
        self = cls.__new__(cls)
        outer = lf.outer
        self.pyfn, self.local = None, lf
        self.src = Source(lf.tree, outer.src.filename, outer.src.line_offset,
                          outer.src.col_offset)
        self.globals, self.closure = outer.globals, outer.closure
        self.closure_cells = outer.closure_cells
        self._init_state(builder, depth, shared)
        own = lf.param_names() | set(assigned_names(lf.tree.body))
        for name, v in outer.env.items():
            if name not in own and not name.startswith("__solvent_"):
                self.env[name] = v
        return self

    @property
    def name(self) -> str:
        return self.local.name if self.local is not None else self.pyfn.__qualname__

    def outer_array(self, holder, name: str, value: np.ndarray):
        """A module-global or closure array the function reads: an implicit argument of the
        compiled function, passed on every call (so writes into it between calls are seen,
        and writes into it by the function reach it), guarded by identity (rebinding the
        name to another array compiles again)."""
        implicit = self.shared["implicit"]
        key = (id(holder), name)
        if key not in implicit:
            self.capture(holder, name, value)
            index = self.shared["nparams"] + len(implicit)
            val, _ = _arg_value(self, self.shared["body"], name, value, index, frozenset())
            implicit[key] = (value, val, index, name)
        return implicit[key][1]

    def capture(self, holder, name: str, value, absent: bool = False) -> None:
        """Record a global or closure variable read at compile time: the compiled code is
        valid only while it keeps this value (``captures.Guard``)."""
        from .captures import _MISSING, Guard
        key = (id(holder), name)
        if key not in self.shared["guards"]:
            self.shared["guards"][key] = Guard(holder, name, _MISSING if absent else value)

    @property
    def births(self):
        return self.shared["births"]

    @property
    def birth_counter(self):
        return self.shared["counter"]

    @birth_counter.setter
    def birth_counter(self, v):
        self.shared["counter"] = v

    def loc_of(self, node) -> SourceLoc:
        return SourceLoc(self.src.filename, getattr(node, "lineno", 0) + self.src.line_offset,
                         getattr(node, "col_offset", 0) + self.src.col_offset + 1)

    def liveness(self) -> Liveness:
        if "liveness" not in self._live_cache:
            self._live_cache["liveness"] = Liveness(self.src.tree)
        return self._live_cache["liveness"]

    def live_outside(self, node) -> set[str]:
        """Names live after ``node`` (a node, or a list of nodes: one region): read before
        being written on some path from there (for a loop: from its head)."""
        live = self.liveness()
        if live.known(node):
            return live.after(node)
        key = tuple(map(id, node)) if isinstance(node, list) else id(node)
        if key not in self._live_cache:   # a node outside the analysed body: every read
            self._live_cache[key] = loads_outside(self.src.tree, node)
        return self._live_cache[key]

    def live_at_jump_target(self, node) -> set[str]:
        """Names live where a break/continue of ``node``'s innermost loop goes."""
        return self.liveness().jump_target(node)

    # --- calls to plain Python helpers: inlined --------------------------------------------
    def inline_call(self, fn, args, kwargs, node, keep_loc: bool = False):
        """Inline a call of ``fn``. ``keep_loc``: the callee implements a NumPy function
        (npapi_prelude), so its ops, errors and checks carry the caller's line."""
        if self.depth >= MAX_INLINE_DEPTH:
            what = fn.name if isinstance(fn, LocalFunction) else fn.__qualname__
            raise self.unsupported(f"call depth over {MAX_INLINE_DEPTH} (recursion?) at {what}")
        if isinstance(fn, LocalFunction):
            callee = Translator.for_local(fn, self.b, self.depth + 1, self.shared)
        else:  # a generated function may name the translator it needs (solvent/simt)
            cls = getattr(fn, "solvent_translator", None) or Translator
            callee = cls(fn, self.b, self.depth + 1, self.shared)
        saved_loc = self.b.loc
        # a prelude function's own helpers (npapi_prelude.unique -> unique_along) keep the
        # user's line too
        keep_loc = keep_loc or getattr(self, "keeps_loc", False)
        if keep_loc:
            callee.loc_of = lambda node, loc=saved_loc: loc
            callee.keeps_loc = True
        try:
            callee.bind_params(args, kwargs)
            callee.stmts(callee.src.tree.body)
        finally:
            self.b.loc = saved_loc
        return callee.result_value()

    def bind_params(self, args, kwargs):
        try:
            sig = self.local.signature() if self.local else inspect.signature(self.pyfn)
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise self.unsupported(f"calling {self.name}: {e}") from None
        for name, p in sig.parameters.items():
            if p.kind == p.VAR_POSITIONAL:     # a tuple of the extra positional arguments
                self.env[name] = make_seq(bound.arguments.get(name, ()), listy=False)
                continue
            if p.kind == p.VAR_KEYWORD:        # a dict of the extra keyword arguments
                self.env[name] = Record("dict", dict, tuple(bound.arguments.get(name, {}).items()),
                                        f"**{name}")
                continue
            if name in bound.arguments:
                v = bound.arguments[name]
            elif p.default is not p.empty:
                v = p.default if self.local else Const(p.default)
            else:
                raise self.unsupported(f"missing argument {name!r}")
            self.env[name] = v


def _arg_value(fe, block, name, value, index, static_args):
    """The abstract value (and IR argument, if any) for one call argument."""
    if isinstance(value, np.ndarray) and type(value) is not np.ndarray:
        raise UnsupportedError(f"argument {name!r} is a {type(value).__module__}."
                               f"{type(value).__qualname__}, an ndarray subclass with its own "
                               "semantics, which solvent does not compile",
                               hint="pass np.asarray(x), or use fallback='python'")
    if isinstance(value, np.ndarray):
        try:
            dt = dtype_name(value.dtype)
        except KeyError:
            raise UnsupportedError(f"argument {name!r} has dtype {value.dtype}, which solvent "
                                   "does not compile",
                                   hint="use bool, integer, float or complex arrays") from None
        a = block.add_arg(RefType(value.shape, dt), name)
        buf = Buffer(a, name, None, strides=element_strides(value))
        return ArrayRef(buf, (), TensorType(value.shape, dt)), a
    if isinstance(value, (bool, np.bool_, int, np.integer)) and index in static_args:
        return Const(value), None
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        dt = {bool: "i1", int: "i64", float: "f64", complex: "c128"}[type(value)] \
            if type(value) in (bool, int, float, complex) else None
        if dt is None:
            raise UnsupportedError(f"argument {name!r} of type {type(value).__name__}")
        if dt == "i64" and not -2**63 <= value < 2**63:
            raise UnsupportedError(f"integer argument {name!r} does not fit in int64")
        a = block.add_arg(TensorType((), dt), name)
        deps = frozenset([index]) if dt in ("i64", "i1") else frozenset()
        return Tensor(a, weak=True, deps=deps), a
    if isinstance(value, np.generic):
        try:
            dt = dtype_name(value.dtype)
        except KeyError:
            raise UnsupportedError(f"argument {name!r} has dtype {value.dtype}") from None
        a = block.add_arg(TensorType((), dt), name)
        deps = frozenset([index]) if dt[0] in "iu" else frozenset()
        return Tensor(a, deps=deps), a
    if value is None or isinstance(value, (str, tuple)) and _static_tuple(value):
        return Const(value), None
    if isinstance(value, (types.FunctionType, np.ufunc)):
        return Const(value), None  # a function passed in: inlined where it is called
    if is_dtype_value(value):
        return Const(value), None  # dtype=np.float32: a compile-time value, keyed by itself
    raise UnsupportedError(f"argument {name!r} of type {type(value).__name__} is not supported",
                           hint="pass NumPy arrays, numbers, strings, dtypes, None, or tuples, "
                                "lists, dicts, dataclasses, namespaces or objects of those")


def _tree_value(name, v, leaf_index, add_arg):
    """The frontend value of container argument ``v`` (frontend/arg_trees.py)."""
    import re
    t = arg_trees.node(v)
    bad = arg_trees.first_bad(t, name)
    if bad:
        raise UnsupportedError(f"argument {bad} is not supported", hint="containers passed in "
                               "may hold NumPy arrays, numbers, strings, dtypes, None and "
                               "other such containers")
    return arg_trees.leaf_values(t, name, leaf_index, lambda path, value, k: add_arg(
        re.sub(r"\W+", "_", path).strip("_"), value, k))


def is_dtype_value(v) -> bool:
    """A dtype passed as an argument: np.dtype('f4'), np.float32, float, int, bool, complex."""
    return isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(
        v, (np.generic, bool, int, float, complex)))


def element_strides(a: np.ndarray) -> tuple | None:
    """The strides of ``a`` in elements, or None when it is C-contiguous. Part of the cache
    key: NumPy's view-or-copy rule (reshape, ravel) depends on the memory layout."""
    if a.flags.c_contiguous:
        return None
    if any(s % a.itemsize for s in a.strides):
        raise UnsupportedError("an argument array has strides that are not a multiple of its "
                               "item size", hint="pass a copy (np.ascontiguousarray(x))")
    return tuple(s // a.itemsize for s in a.strides)


@dataclass
class Translation:
    fn: Function
    arg_map: list  # for each IR function argument, the index of the Python argument
    result: object  # result structure (see runtime)
    static_args: frozenset = field(default_factory=frozenset)
    guards: tuple = ()  # captures.Guard: globals/closure values the code depends on
    # global/closure arrays the code reads, passed after the call's arguments (arg_map holds
    # their positions, len(params) onwards), and their names
    implicit: tuple = ()
    implicit_names: tuple = ()


def translate(pyfn, args: tuple, static_args=frozenset(), translator=None,
              clamped_windows: bool = False) -> Translation:
    """Translate ``pyfn`` specialized to ``args``. May raise ``NeedStatic``. ``translator``:
    a Translator subclass (solvent/simt's adds the kernel intrinsics' hooks).
    ``clamped_windows``: slices ``x[i:i + w]`` get NumPy's clamped length, known only at run
    time, instead of the length ``w`` checked to fit (see errors.ClampedWindowError)."""
    body = Block()
    builder = Builder(body)
    fe = (translator or Translator)(pyfn, builder)
    fe.shared["clamped_windows"] = clamped_windows
    fe.shared["body"] = body
    sig = inspect.signature(pyfn)
    params = list(sig.parameters.values())
    # one value per parameter (runtime.jit._bind): *args a tuple, **kwargs a dict
    own = args[:len(params)]
    values = list(own)
    for p in params[len(own):]:
        if p.default is p.empty:
            raise TypeError(f"{pyfn.__qualname__}() missing required argument: {p.name!r}")
        values.append(p.default)
    # the leaves of container arguments follow the call's own (runtime: arg_trees.extend),
    # and global/closure arrays follow them
    n_leaves = len(arg_trees.extend(tuple(values))) - len(values)
    if len(args) > len(params) and len(args) != len(params) + n_leaves:
        raise TypeError(f"{pyfn.__qualname__}() takes {len(params)} positional arguments but "
                        f"{len(args)} were given")
    fe.shared["nparams"] = len(params) + n_leaves
    arg_map, names = [], []
    leaf_index = [len(params)]

    def add_arg(name, value, index):
        val, ir_arg = _arg_value(fe, body, name, value, index, static_args)
        if ir_arg is not None:
            arg_map.append(index)
            names.append(name)
        if isinstance(val, ArrayRef) and val.buf.strides is not None and val.type.rank >= 2:
            # NumPy gives arrays computed from this one its memory order (npapi_creation.
            # view_or_value guards reshapes whose view-or-copy depends on that order)
            fe.shared["non_c_args"] = True
        return val
    for i, (p, v) in enumerate(zip(params, values)):
        if arg_trees.is_tree(v):
            fe.env[p.name] = _tree_value(p.name, v, leaf_index, add_arg)
        else:
            fe.env[p.name] = add_arg(p.name, v, i)
    fe.stmts(fe.src.tree.body)
    fe.b.loc = fe.loc_of(fe.src.tree)
    implicit = list(fe.shared["implicit"].values())
    for _, _, index, name in implicit:
        arg_map.append(index)
        names.append(name)
    results: list = []
    structure = _results(fe, fe.result_value(), results, arg_map, {})
    builder.create("func.return", results)
    # a lambda's IR function is 'lambda' ('<lambda>' is no name the IR's printer and parser
    # read back)
    fn = Function(pyfn.__name__ if pyfn.__name__.isidentifier() else "lambda", body, names)
    return Translation(fn, arg_map, structure, frozenset(static_args),
                       tuple(fe.shared["guards"].values()),
                       tuple(v for v, *_ in implicit), tuple(n for *_, n in implicit))


def _results(fe, value, out: list, arg_map, seen: dict):
    """The result structure: ("tuple", items[, "list"]) (a list returned is a list; a dict or
    namedtuple built in the function: ("tuple", items, "dict", keys) or ("tuple", items,
    "object", class, keys)), ("const", v), ("select", flag, a, b), ("arg", k, view steps) or
    ("value", index, kind)."""
    if isinstance(value, arg_trees.Record) and value.local:
        # a dict or namedtuple built here: its items, rebuilt as one (runtime/jit._rebuild)
        items = [_results(fe, v, out, arg_map, seen) for _, v in value.fields]
        keys = tuple(k for k, _ in value.fields)
        return ("tuple", items, "dict", keys) if value.kind == "dict" else \
            ("tuple", items, "object", value.cls, keys)
    if isinstance(value, arg_trees.Record):
        raise fe.unsupported(f"returning {value.name}, a container passed in",
                             "return the arrays and numbers it holds")
    listy = ("list",) if isinstance(value, (ListVal, ListConst)) else ()
    if isinstance(value, GrownList):   # a list grown in a loop: a list of its rows again
        out.append(value.v)
        return ("value", len(out) - 1, "pylist" if value.python_items else "list")
    if isinstance(value, ListRef):     # a list assigned by index: a list again
        out.append(fe.tensor(value).v)
        return ("value", len(out) - 1, "pylist" if value.python_items else "list")
    if isinstance(value, TupleVal):
        return ("tuple", [_results(fe, v, out, arg_map, seen) for v in value.items]) + listy
    if isinstance(value, Const):
        if isinstance(value.value, tuple):
            return ("tuple", [_results(fe, Const(v), out, arg_map, seen)
                              for v in value.value]) + listy
        return ("const", value.value)
    if isinstance(value, ReturnChoice):
        merged = _results(fe, value.merged, out, arg_map, seen)
        alts = [merged if v is None else _results(fe, v, out, arg_map, seen)
                for v in (value.then, value.other)]
        out.append(fe.tensor(value.flag).v)
        return ("select", len(out) - 1, alts[0], alts[1])
    if isinstance(value, ArrayRef):
        key = (id(value.buf), repr([(st[0], st[1], [id(v) for v in st[2]]) if st[0] == "index"
                                    else st for st in value.chain]))
        if key not in seen:  # the same array returned twice: NumPy returns one object twice
            seen[key] = _one_result(fe, value, out, arg_map)
        return seen[key]
    return _one_result(fe, value, out, arg_map)


def _one_result(fe, value, out: list, arg_map):
    if isinstance(value, ArrayRef) and value.buf.block is None and all(
            step[0] != "index" or not step[2] for step in value.chain):
        # an argument array itself, or a view of it with compile-time indices: NumPy
        # returns the caller's array (or a view of it), so does solvent
        k = [i for i, a in enumerate(fe.b.block.args) if a is value.buf.ref]
        if k:
            steps = [(s[0], s[1]) for s in value.chain]
            return ("arg", arg_map[k[0]], steps)
    t = fe.tensor(value)
    out.append(t.v)
    # a 0-d array variable (``x[i, ...]``, a local ``np.zeros(())``) is returned as one
    kind = "array" if t.type.rank or t.array0d or isinstance(value, ArrayRef) else \
        ("weak" if t.weak else "scalar")
    return ("value", len(out) - 1, kind)


def register_source(fn, tree: ast.FunctionDef, like: Source) -> None:
    """Give a function built from a generated AST (solvent/simt) the source ``tree``; its
    nodes keep the line numbers of the user's file that ``like`` describes, so errors name
    the user's lines."""
    code = fn.__code__
    key = (code.co_filename, code.co_firstlineno, code.co_name, id(code))
    _SOURCE_CACHE[key] = Source(desugar(tree), like.filename, like.line_offset,
                                like.col_offset)
