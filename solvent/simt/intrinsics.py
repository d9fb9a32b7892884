"""numba.cuda's intrinsics in a kernel's source, replaced by plain Python over solvent's names.

The kernel's AST (a copy: the user's function stays as it is) is rewritten for one launch
configuration, which is known when the kernel is launched:

    cuda.threadIdx.x           ->  __simt_tx            (y, z: __simt_ty, __simt_tz)
    cuda.blockIdx.x            ->  __simt_bx
    cuda.blockDim.x / gridDim  ->  the launch's constant
    cuda.grid(1)               ->  __simt_bx * BX + __simt_tx       (grid(2), grid(3): tuples)
    cuda.gridsize(n)           ->  constants
    cuda.syncthreads()         ->  __simt_barrier()     (a statement of its own; see fission.py)
    cuda.threadfence*()        ->  nothing (threads of a block run one after another on the CPU)
    cuda.atomic.add(A, i, v)   ->  A[i] = A[i] + v      (sub, max, min, exch alike; as an
                                   assignment ``old = cuda.atomic.add(...)`` the old value)
    x = cuda.shared.array(s, t)  -> one zeroed buffer per block   (``Decl``, hoisted)
    x = cuda.local.array(s, t)   -> one zeroed buffer per thread, x[i] -> x[__simt_t, i]
    f(...) of a @cuda.jit(device=True) function -> its Python source, rewritten the same way,
                                   given the thread and block indices it reads as keywords

Identity: within one thread, each intrinsic denotes the value or effect stated above when
threads of a block run one after another (atomics are then plain read-modify-writes).
"""
from __future__ import annotations

import ast
import copy
import itertools
from dataclasses import dataclass, field

import numpy as np

from ..errors import UnsupportedError
from ..ir.core import SourceLoc

DIMS = "xyz"
THREAD = ("__simt_tx", "__simt_ty", "__simt_tz")
BLOCK = ("__simt_bx", "__simt_by", "__simt_bz")
FLAT_THREAD = "__simt_t"
BARRIER = "__simt_barrier"
NUMPY = "__simt_np"
INDEX_NAMES = THREAD + BLOCK + (FLAT_THREAD,)
_FENCES = ("threadfence", "threadfence_block", "threadfence_system")
_ATOMICS = {"add": ast.Add(), "sub": ast.Sub(), "max": "max", "min": "min", "exch": None}
_MISSING = object()
ATOMIC_ATTR = "_simt_atomic"  # on an atomic's element access: its kind, None if old is used
READS_ONLY = "_simt_reads_only"  # on a device call: positions of arguments it only reads


@dataclass(frozen=True)
class Config:
    grid: tuple  # (gx, gy, gz)
    block: tuple  # (bx, by, bz)

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


@dataclass
class Decl:
    """A ``cuda.shared.array`` or ``cuda.local.array``: name, shape, dtype, where."""
    name: str
    shape: tuple
    dtype: np.dtype
    node: ast.stmt


@dataclass
class Rewritten:
    body: list
    shared: list = field(default_factory=list)
    local: list = field(default_factory=list)
    atomic_targets: list = field(default_factory=list)  # (array name, node)
    device_atomics: bool = False  # a device function does atomics (on arrays it was given)
    # the code reads cuda.blockDim, cuda.gridDim or cuda.warpsize (a constant of the launch
    # other than the grid's total size)
    reads_dims: bool = False
    extras: dict = field(default_factory=dict)  # names the rewritten code reads -> values


def is_cuda_module(obj) -> bool:
    return getattr(obj, "__name__", None) == "numba.cuda"


def device_function(obj):
    """The Python function of a ``@cuda.jit(device=True)`` object, None for anything else;
    a ``@cuda.jit`` kernel called from a kernel is refused by the caller."""
    py = getattr(obj, "py_func", None)
    if py is None or type(obj).__module__.split(".")[:2] != ["numba", "cuda"]:
        return None
    return py


def is_device(obj) -> bool:
    if getattr(obj, "_device", False):  # the simulator's FakeCUDAKernel
        return True
    return bool(getattr(obj, "targetoptions", {}).get("device", False))


def dtype_of(t) -> np.dtype:
    try:
        return np.dtype(t)
    except TypeError:
        from numba.np.numpy_support import as_dtype
        return as_dtype(t)


def numpy_attr(dt: np.dtype) -> ast.expr:
    name = "bool_" if dt == np.bool_ else dt.name
    return ast.Attribute(ast.Name(NUMPY, ast.Load()), name, ast.Load())


class Rewriter(ast.NodeTransformer):
    """One kernel (or device function) body; ``resolve(name)`` gives the value a free name
    has in the function's closure or globals (``_MISSING`` when none)."""

    def __init__(self, src, resolve, config: Config, device: bool, devices: dict):
        from ..frontend.scopes import assigned_names
        self.own = set(assigned_names(src.tree.body)) | {
            a.arg for a in src.tree.args.args + src.tree.args.kwonlyargs}
        self.src = src
        self.resolve = resolve
        self.config = config
        self.device = device
        self.devices = devices  # id(py_func) -> (name, function, extra names), shared
        self.out = Rewritten([])
        self.counter = itertools.count()
        self.kernel_name = src.tree.name

    # --- helpers ----------------------------------------------------------------------------
    def loc(self, node) -> SourceLoc:
        return SourceLoc(self.src.filename, getattr(node, "lineno", 0) + self.src.line_offset,
                         getattr(node, "col_offset", 0) + self.src.col_offset + 1)

    def error(self, node, message, hint=None):
        return UnsupportedError(message, self.loc(node), hint)

    def cuda_path(self, node):
        """('threadIdx', 'x') for ``cuda.threadIdx.x`` (``numba.cuda.threadIdx.x`` too)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        root = self.resolve(node.id)
        parts.reverse()
        if is_cuda_module(root):
            return tuple(parts)
        if getattr(root, "__name__", None) == "numba" and parts[:1] == ["cuda"]:
            return tuple(parts[1:])
        return None

    def static_value(self, node, what):
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        scope = {n: self.resolve(n) for n in names if self.resolve(n) is not _MISSING}
        try:
            return eval(compile(ast.Expression(node), self.src.filename, "eval"), {}, scope)
        except Exception as e:  # noqa: BLE001 — reported to the user with the line
            raise self.error(node, f"{what} must be known when the kernel is compiled "
                             f"({type(e).__name__}: {e})") from None

    def constant(self, value, like):
        return ast.copy_location(ast.Constant(value), like)

    # --- expressions ------------------------------------------------------------------------
    def visit_Name(self, node):
        """A module-level integer constant (``TILE``) becomes its value, so the index
        analysis sees ``blockIdx.x * 16 + threadIdx.x`` (solvent reads globals at compile
        time anyway)."""
        if isinstance(node.ctx, ast.Load) and node.id not in self.own:
            v = self.resolve(node.id)
            if type(v) is int:
                return ast.copy_location(ast.Constant(v), node)
        return node

    def visit_Attribute(self, node):
        path = self.cuda_path(node)
        if path is None:
            return self.generic_visit(node)
        if len(path) == 2 and path[1] in DIMS:
            d = DIMS.index(path[1])
            if path[0] == "threadIdx":
                return ast.copy_location(ast.Name(THREAD[d], ast.Load()), node)
            if path[0] == "blockIdx":
                return ast.copy_location(ast.Name(BLOCK[d], ast.Load()), node)
            if path[0] == "blockDim":
                self.out.reads_dims = True
                return self.constant(self.config.block[d], node)
            if path[0] == "gridDim":
                self.out.reads_dims = True
                return self.constant(self.config.grid[d], node)
        if path == ("warpsize",):
            self.out.reads_dims = True
            return self.constant(32, node)
        raise self.error(node, f"cuda.{'.'.join(path)} is not supported in a kernel run by "
                         "solvent")

    def global_index(self, d, like):
        e = ast.BinOp(ast.BinOp(ast.Name(BLOCK[d], ast.Load()), ast.Mult(),
                                ast.Constant(self.config.block[d])), ast.Add(),
                      ast.Name(THREAD[d], ast.Load()))
        return ast.fix_missing_locations(ast.copy_location(e, like))

    def visit_Call(self, node):
        path = self.cuda_path(node.func)
        if path is None:
            node = self.generic_visit(node)
            cast = self.numba_cast(node)
            return cast if cast is not None else self.device_call(node)
        name = "cuda." + ".".join(path)
        if path in (("grid",), ("gridsize",)):
            if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], ast.Constant) \
                    or node.args[0].value not in (1, 2, 3):
                raise self.error(node, f"{name}(n) takes one literal n: 1, 2 or 3")
            n = node.args[0].value
            if path == ("grid",):
                items = [self.global_index(d, node) for d in range(n)]
            else:
                items = [self.constant(self.config.grid[d] * self.config.block[d], node)
                         for d in range(n)]
            return items[0] if n == 1 else ast.copy_location(ast.Tuple(items, ast.Load()), node)
        if path == ("syncthreads",):
            raise self.error(node, "cuda.syncthreads() must be a statement of its own")
        if path == ("const", "array_like"):
            # constant memory holds a copy of a host array: in a kernel run on the host, the
            # array itself (a global array, which solvent reads as a constant)
            if len(node.args) != 1 or node.keywords:
                raise self.error(node, "cuda.const.array_like(arr) takes one array")
            return self.visit(node.args[0])
        if path[:1] in (("shared",), ("local",)):
            raise self.error(node, f"{name}(...) is supported only as the right-hand side of "
                             "an assignment to a name", f"write: x = {name}(...)")
        if path[:1] == ("atomic",):
            raise self.error(node, f"{name}(...) is supported as a statement, in an "
                             "assignment, an if's test or a return, but not under "
                             "and/or/x if c else y or in a loop's test",
                             f"write: old = {name}(...) before it")
        raise self.error(node, f"{name}() is not supported in a kernel run by solvent")

    def numba_cast(self, node):
        """``float32(0.)`` / ``numba.int32(v)``: a numba scalar type called as a cast (as in
        Numba's own fast_matmul example) becomes the NumPy one, ``np.float32(0.)``."""
        f = node.func
        names = [n.id for n in ast.walk(f) if isinstance(n, ast.Name)]
        if not names or any(n in self.own for n in names) or \
                not isinstance(f, (ast.Name, ast.Attribute)):
            return None
        scope = {n: self.resolve(n) for n in names}
        if any(v is _MISSING for v in scope.values()) or \
                not any(getattr(v, "__name__", "").startswith("numba")
                        or type(v).__module__.startswith("numba") for v in scope.values()):
            return None
        try:
            t = eval(compile(ast.Expression(f), self.src.filename, "eval"), {}, scope)
        except Exception:  # noqa: BLE001 — not a static name: an ordinary call
            return None
        from numba.core import types as nt
        if not isinstance(t, (nt.Number, nt.Boolean)) or node.keywords or len(node.args) != 1:
            return None
        call = ast.Call(numpy_attr(dtype_of(t)), node.args, [])
        return ast.fix_missing_locations(ast.copy_location(call, node))

    def device_call(self, node):
        if not isinstance(node.func, ast.Name):
            return node
        obj = self.resolve(node.func.id)
        py = device_function(obj)
        if py is None:
            return node
        if not is_device(obj):
            raise self.error(node, f"{node.func.id} is a @cuda.jit kernel: a kernel cannot "
                             "call another kernel", "decorate it with @cuda.jit(device=True)")
        name, fn, extra = rewrite_device(py, self.config, self.devices)
        self.out.extras[name] = fn
        if getattr(fn, "_simt_atomics", False):
            self.out.device_atomics = True
        if getattr(fn, "_simt_reads_dims", True):
            self.out.reads_dims = True
        call = ast.Call(ast.Name(name, ast.Load()), node.args,
                        node.keywords + [ast.keyword(e, ast.Name(e, ast.Load())) for e in extra])
        setattr(call, READS_ONLY, fn._simt_reads_only)
        return ast.fix_missing_locations(ast.copy_location(call, node))

    # --- statements -------------------------------------------------------------------------
    def visit_Expr(self, node):
        if isinstance(node.value, ast.Call):
            path = self.cuda_path(node.value.func)
            if path == ("syncthreads",):
                if node.value.args or node.value.keywords:
                    raise self.error(node, "cuda.syncthreads() takes no arguments")
                if self.device:
                    raise self.error(node, "cuda.syncthreads() inside a device function is not "
                                     "supported", "call it in the kernel itself")
                call = ast.Call(ast.Name(BARRIER, ast.Load()), [], [])
                return ast.fix_missing_locations(ast.copy_location(ast.Expr(call), node))
            if path is not None and len(path) == 1 and path[0] in _FENCES:
                return ast.copy_location(ast.Pass(), node)
            if path is not None and path[:1] == ("atomic",):
                return self.atomic(node, path, node.value, None)
        return self.generic_visit(node)

    def visit_Assign(self, node):
        if isinstance(node.value, ast.Call) and len(node.targets) == 1:
            path = self.cuda_path(node.value.func)
            if path in (("shared", "array"), ("local", "array")):
                return self.declare(node, path[0])
            if path is not None and path[:1] == ("atomic",):
                if isinstance(node.targets[0], ast.Name):
                    return self.atomic(node, path, node.value, node.targets[0].id)
        return self.hoisted(node, "value") or self.generic_visit(node)

    def visit_AugAssign(self, node):
        return self.hoisted(node, "value") or self.generic_visit(node)

    def visit_If(self, node):
        return self.hoisted(node, "test") or self.generic_visit(node)

    def visit_Return(self, node):
        return self.hoisted(node, "value") or self.generic_visit(node)

    def hoisted(self, node, field):
        """``out[i] = cuda.atomic.add(c, 0, 1) + 1``, ``if cuda.atomic.add(done, 0, 1) ==
        n - 1:``: the atomics inside the statement's expression become ``old = atomic(...)``
        statements before it (left to right, as Python evaluates them), the expression
        reads ``old``. None when the expression holds no atomic, or holds one only under
        ``and``/``or``/``x if c else y`` (evaluated conditionally: refused later)."""
        expr = getattr(node, field)
        if expr is None or (field == "value" and isinstance(node, ast.Expr)):
            return None
        pre = []
        rw = self

        class Hoist(ast.NodeTransformer):
            def visit(self, n):
                if isinstance(n, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.ListComp,
                                  ast.GeneratorExp, ast.SetComp, ast.DictComp)):
                    return n
                return super().visit(n)

            def visit_Call(self, c):
                c = self.generic_visit(c)
                path = rw.cuda_path(c.func)
                if path is None or path[:1] != ("atomic",):
                    return c
                name = f"__simt_atomic_value{next(rw.counter)}"
                pre.append(ast.fix_missing_locations(ast.copy_location(
                    ast.Assign([ast.Name(name, ast.Store())], c), node)))
                return ast.copy_location(ast.Name(name, ast.Load()), c)

        new = Hoist().visit(copy.deepcopy(expr))
        if not pre:
            return None
        read = {n.id for n in ast.walk(new) if isinstance(n, ast.Name)}
        for p in pre:
            arr = p.value.args[0] if p.value.args else None
            if isinstance(arr, ast.Name) and arr.id in read:
                # ``a[i] + cuda.atomic.add(a, i, 1)`` reads a[i] before the atomic: moving
                # the atomic first would change what it reads
                raise self.error(node, f"this expression reads {arr.id!r} besides updating "
                                 "it atomically", "write: old = cuda.atomic...(...) first")
        node = copy.copy(node)
        setattr(node, field, new)
        out = []
        for s in pre + [node]:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def declare(self, node, kind):
        target = node.targets[0]
        if not isinstance(target, ast.Name):
            raise self.error(node, f"cuda.{kind}.array must be assigned to a plain name")
        call = node.value
        args = dict(zip(("shape", "dtype"), call.args))
        args.update({k.arg: k.value for k in call.keywords})
        if set(args) != {"shape", "dtype"}:
            raise self.error(node, f"cuda.{kind}.array(shape, dtype) needs exactly a shape and "
                             "a dtype")
        shape = self.static_value(args["shape"], f"the shape of cuda.{kind}.array")
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if not all(isinstance(s, (int, np.integer)) and s >= 0 for s in shape):
            raise self.error(node, f"the shape of cuda.{kind}.array must be non-negative "
                             f"integers, got {shape!r}")
        try:
            dt = dtype_of(self.static_value(args["dtype"], f"the dtype of cuda.{kind}.array"))
        except (TypeError, NotImplementedError) as e:
            raise self.error(node, f"dtype of cuda.{kind}.array: {e}") from None
        decl = Decl(target.id, tuple(int(s) for s in shape), dt, node)
        if self.device:
            if kind == "shared":
                raise self.error(node, "cuda.shared.array inside a device function is not "
                                 "supported", "declare it in the kernel and pass it in")
            return ast.copy_location(self.zeros(decl, ()), node)  # per call of the function
        (self.out.shared if kind == "shared" else self.out.local).append(decl)
        return None  # hoisted: fission.py allocates it per block

    @staticmethod
    def zeros(decl: Decl, lead: tuple) -> ast.stmt:
        shape = ast.Tuple([ast.Constant(s) for s in lead + decl.shape], ast.Load())
        call = ast.Call(ast.Attribute(ast.Name(NUMPY, ast.Load()), "zeros", ast.Load()),
                        [shape, numpy_attr(decl.dtype)], [])
        return ast.fix_missing_locations(ast.copy_location(
            ast.Assign([ast.Name(decl.name, ast.Store())], call), decl.node))

    def atomic(self, node, path, call, old_name):
        if len(path) != 2 or path[1] not in _ATOMICS:
            raise self.error(node, f"cuda.{'.'.join(path)} is not supported "
                             f"(supported: {', '.join('atomic.' + a for a in _ATOMICS)})")
        if len(call.args) != 3 or call.keywords or not isinstance(call.args[0], ast.Name):
            raise self.error(node, f"cuda.atomic.{path[1]}(array, index, value) takes an array "
                             "variable, an index and a value")
        arr, idx, val = (self.visit(a) for a in call.args)
        self.out.atomic_targets.append((arr.id, node))
        kind = path[1] if old_name is None else None   # privatize.py's mark
        tmp = f"__simt_old{next(self.counter)}"

        def element(ctx):
            sub = ast.Subscript(ast.Name(arr.id, ast.Load()), copy.deepcopy(idx), ctx)
            setattr(sub, ATOMIC_ATTR, kind)
            return sub

        op = _ATOMICS[path[1]]
        old = ast.Name(tmp, ast.Load())
        if op is None:
            new = val
        elif isinstance(op, str):
            new = ast.Call(ast.Name(op, ast.Load()), [old, val], [])
        else:
            new = ast.BinOp(old, op, val)
        out = [ast.Assign([ast.Name(tmp, ast.Store())], element(ast.Load())),
               ast.Assign([element(ast.Store())], new)]
        if old_name is not None:
            out.append(ast.Assign([ast.Name(old_name, ast.Store())], ast.Name(tmp, ast.Load())))
        for s in out:
            ast.copy_location(s, node)
            ast.fix_missing_locations(s)
        return out


class _LocalIndex(ast.NodeTransformer):
    """``x[i]`` of a per-thread ``cuda.local.array`` x -> ``x[__simt_t, i]``."""

    def __init__(self, rw: Rewriter, names):
        self.rw, self.names = rw, names

    def visit_Subscript(self, node):
        if not (isinstance(node.value, ast.Name) and node.value.id in self.names):
            return self.generic_visit(node)
        node.slice = self.visit(node.slice)
        if True:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            node.slice = ast.Tuple([ast.Name(FLAT_THREAD, ast.Load())] + items, ast.Load())
            node.value.simt_local = True
            ast.fix_missing_locations(node)
        return node

    def visit_Name(self, node):
        if node.id in self.names and not getattr(node, "simt_local", False):
            raise self.rw.error(node, f"the cuda.local.array {node.id!r} can only be indexed "
                                "(x[i]) in a kernel run by solvent")
        return node


def resolver(fn):
    closure = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass

    def resolve(name):
        if name in closure:
            return closure[name]
        return fn.__globals__.get(name, _MISSING)
    return resolve, closure


def rewrite_kernel(pyfn, config: Config) -> tuple[Rewritten, object]:
    from ..frontend.translator import parse_source
    src = parse_source(pyfn)
    tree = copy.deepcopy(src.tree)
    resolve, _ = resolver(pyfn)
    rw = Rewriter(src, resolve, config, device=False, devices={})
    body = []
    for s in tree.body:
        r = rw.visit(s)
        body.extend(r if isinstance(r, list) else [] if r is None else [r])
    _check_declared_once(rw, body)
    locals_ = {d.name for d in rw.out.local}
    if locals_:
        fixer = _LocalIndex(rw, locals_)
        body = [fixer.visit(s) for s in body]
    rw.out.body = body
    return rw.out, src


def _check_declared_once(rw: Rewriter, body):
    from ..frontend.scopes import assigned_names
    declared = {d.name: d for d in rw.out.shared + rw.out.local}
    again = [n for n in assigned_names(body) if n in declared]
    if again:
        d = declared[again[0]]
        raise rw.error(d.node, f"{d.name!r} names a cuda shared/local array and is assigned "
                       "again elsewhere in the kernel", "use another name for the other value")
    names = [d.name for d in rw.out.shared + rw.out.local]
    if len(set(names)) != len(names):
        raise rw.error(rw.out.shared[0].node if rw.out.shared else rw.out.local[0].node,
                       "two cuda shared/local arrays have the same name")


def rewrite_device(py, config: Config, devices: dict):
    """(hidden name, rewritten function, thread/block names it takes as keywords)."""
    key = id(py)
    if key in devices:
        if devices[key] is None:
            raise UnsupportedError(f"the device function {py.__qualname__} calls itself: "
                                   "recursion is not supported")
        return devices[key]
    from ..frontend.translator import parse_source
    from .source import make_function
    src = parse_source(py)
    tree = copy.deepcopy(src.tree)
    resolve, closure = resolver(py)
    rw = Rewriter(src, resolve, config, device=True, devices=devices)
    devices[key] = None  # recursion guard
    body = []
    for s in tree.body:
        r = rw.visit(s)
        body.extend(r if isinstance(r, list) else [] if r is None else [r])
    used = sorted({n.id for s in body for n in ast.walk(s)
                   if isinstance(n, ast.Name) and n.id in INDEX_NAMES})
    tree.body = body or [ast.Pass()]
    tree.decorator_list = []
    tree.args.kwonlyargs = tree.args.kwonlyargs + [ast.arg(u) for u in used]
    tree.args.kw_defaults = tree.args.kw_defaults + [None] * len(used)
    ast.fix_missing_locations(tree)
    extras = dict(closure)
    extras.update(rw.out.extras)
    extras[NUMPY] = np
    fn = make_function(tree, src, py.__globals__, extras)
    fn._simt_atomics = bool(rw.out.atomic_targets) or rw.out.device_atomics
    fn._simt_reads_dims = rw.out.reads_dims
    from .analysis import accesses
    params = [a.arg for a in tree.args.args]
    written = {a.array for a in accesses(body, set(params)) if a.write}
    fn._simt_reads_only = frozenset(k for k, p in enumerate(params) if p not in written)
    name = f"__simt_dev_{py.__name__}_{len(devices)}"
    devices[key] = (name, fn, used)
    return devices[key]
