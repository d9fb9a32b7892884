"""``solvent.kernel`` and the launch ``k[grid, block](*args)``.

A launch lowers the kernel for its configuration and its arguments' types (cached), then
runs the lowered function through solvent.jit: the kernel writes into the caller's arrays
after the whole grid ran without error, and leaves them untouched when it fails.
"""
from __future__ import annotations

import ast
import copy
import inspect
import types
from dataclasses import dataclass, field

import numpy as np

from ..errors import ClampedWindowError, NeedStatic, UnsupportedError
from ..ir.core import SourceLoc
from ..ir.types import np_dtype
from ..frontend.captures import guards_hold
from ..runtime.jit import JitFunction, _type_key, run_compiled
from .analysis import Injectivity, accesses, is_barrier, varying
from .barriers import BarrierNote, eliminate
from .coalesce import coalesce
from .fission import NOTE, PARALLEL_ATTR, RET, WEAK, Fission, spill_name
from .flatten import Flat, flatten
from . import jumps, privatize
from . import nest
from ..frontend.scopes import assigned_names
from .intrinsics import (BARRIER, INDEX_NAMES, NUMPY, Config, Rewriter, device_function, numpy_attr,
                         resolver, rewrite_kernel)
from .source import make_function
from .translate import KernelTranslator, Notes, ProbeTranslator, Weak


def kernel(fn):
    """``@solvent.kernel`` over a kernel written with numba.cuda's API (a plain function or
    a ``@cuda.jit`` dispatcher); launch it with ``k[grid, block](*args)``."""
    return KernelFunction(fn)


class KernelFunction:
    solvent_static_getitem = True  # inside solvent.jit code, k[grid, block] is compile-time

    def __init__(self, fn):
        if isinstance(fn, KernelFunction):
            fn = fn.py_func
        py = fn if isinstance(fn, types.FunctionType) else device_function(fn)
        if py is None:
            raise UnsupportedError(f"solvent.kernel takes a Python function or a @cuda.jit "
                                   f"kernel, not {fn!r}")
        if getattr(fn, "_device", False) or getattr(fn, "targetoptions", {}).get("device"):
            raise UnsupportedError(f"{py.__qualname__} is a device function "
                                   "(@cuda.jit(device=True)); solvent.kernel takes a kernel")
        self.py_func = py
        self.__name__ = py.__name__
        self.__qualname__ = py.__qualname__
        self.__doc__ = py.__doc__
        self._versions: dict = {}
        self._launches: dict = {}   # plain int configuration -> its Launch (see __getitem__)

    @property
    def source(self):
        from ..frontend.translator import parse_source
        return parse_source(self.py_func)

    def __getitem__(self, cfg) -> "Launch":
        # ``k[blocks, threads](...)`` is written at every call site, so a configuration of
        # plain ints gives the same Launch (and its cache of ready versions) every time
        key = _plain_config(cfg)
        hit = self._launches.get(key) if key is not None else None
        if hit is None:
            hit = Launch(self, launch_config(cfg))
            if key is not None and len(self._launches) < MAX_LAUNCHES:
                self._launches[key] = hit
        return hit

    def __call__(self, *args, **kwargs):
        raise TypeError(f"launch the kernel {self.__qualname__} with a configuration: "
                        f"{self.__name__}[blocks, threads_per_block](...)")

    def complete(self, args) -> tuple:
        """The arguments of a launch with the kernel's default values for the trailing
        parameters left out (``def k(x, out, alpha=2.0)`` launched as ``k[g, b](x, out)``),
        as Numba binds them."""
        py = self.py_func
        n, defaults = py.__code__.co_argcount, py.__defaults__ or ()
        if n - len(defaults) <= len(args) < n:
            return tuple(args) + tuple(defaults[len(args) - n:])
        return tuple(args)

    def lowered(self, config: Config, args) -> "Lowered":
        key = (config, tuple(_type_key(a) for a in args))
        hit = self._versions.get(key)
        if hit is None:
            hit = self._versions[key] = lower(self.py_func, config, args)
        return hit


class Launch:
    def __init__(self, kf: KernelFunction, config: Config, backend: str | None = None):
        self.kernel, self.config, self.backend = kf, config, backend
        # the arguments' type key -> (JitFunction, its compiled version) of a launch that
        # ran: the next launch with arguments of those types goes straight to the compiled
        # program (no lowering lookup, no second key); guards are checked as jit does
        self._ready: dict = {}
        self._alias_hosts: dict = {}   # see _aliased

    def on(self, backend: str | None) -> "Launch":
        """This launch on the backend named (``"xla"``, ``"interp"``, ``"native"``; None:
        native, else the cost model's pick). On XLA the lowered kernel's loops are raised
        into tensor operations where they can be."""
        return Launch(self.kernel, self.config, backend)

    def __call__(self, *args):
        args = self.kernel.complete(args)
        same = _same_arrays(args)
        if same is not None:
            return self._aliased(same)(*(a for i, a in enumerate(args) if same[i] == i))
        key = tuple(map(_type_key, args))
        hit = self._ready.get(key)
        if hit is not None:
            jf, c = hit
            guards = c.translation.guards
            if not guards or guards_hold(guards):
                try:
                    run_compiled(c, args)
                    return
                except ClampedWindowError:
                    pass   # nothing was written: jit's own path compiles the clamped version
            del self._ready[key]
        low = self.kernel.lowered(self.config, args).view(self.backend)
        jf = low.jit_for(self.backend)
        try:
            jf(*args)
        except UnsupportedError as e:
            # the native backend is preferred (a lowered kernel is scalar loops); when it
            # cannot run this one, the cost model picks among the others
            if self.backend is not None or jf.backend != "native" or \
                    "native backend cannot run" not in str(e):
                raise
            low.native_refused = True
            low = low.view(None)
            low.native_refused = True
            jf = low.jit_for(None)
            jf(*args)
        # a version that needs compile-time values of its arguments keeps jit's own path
        if not jf._static.get(key) and len(self._ready) < MAX_LAUNCHES:
            c = jf._cache.get(key)
            if c is not None:
                self._ready[key] = (jf, c)

    def _aliased(self, same: tuple) -> JitFunction:
        """``k(x, x)``: a solvent.jit function of the distinct arrays that launches the
        kernel with each one where the caller passed it (inside solvent.jit the kernel's
        two parameters are then one array, as on a GPU)."""
        hit = self._alias_hosts.get(same)
        if hit is None:
            src = self.kernel.source
            tree = src.tree
            names = [f"__simt_a{i}" for i in range(len(same))]
            call = ast.Call(ast.Name("__simt_launch", ast.Load()),
                            [ast.Name(names[j], ast.Load()) for j in same], [])
            host = ast.FunctionDef(
                name="__simt_aliased",
                args=ast.arguments(posonlyargs=[], args=[ast.arg(names[i]) for i in
                                                         sorted(set(same))],
                                   vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                   defaults=[]),
                body=[ast.Expr(call)], decorator_list=[], returns=None)
            for n in ast.walk(host):
                ast.copy_location(n, tree)
            fn = make_function(host, src, self.kernel.py_func.__globals__,
                               {"__simt_launch": self})
            hit = self._alias_hosts[same] = JitFunction(fn, backend=self.backend)
        return hit

    def solvent_inline(self, fe, args, kwargs, node):
        """A launch inside a ``solvent.jit`` function: the lowered kernel is inlined there
        (lowered for stand-ins of the arguments' shapes and dtypes)."""
        if kwargs:
            raise fe.unsupported("keyword arguments to a kernel launch")
        from ..frontend.values import Const
        args = list(args) + [Const(d) for d in self.kernel.complete(args)[len(args):]]
        low = self.kernel.lowered(self.config, [_stand_in(fe, a) for a in args])
        low = low.flat_form or low
        fe.inline_call(low.jit.pyfn, args, {}, node)
        return Const(None)

    def report(self, *args) -> "Lowered":
        """The lowering for these arguments: barriers kept and removed, block parallelism."""
        return self.kernel.lowered(self.config, self.kernel.complete(args)).view(self.backend)

    def jit(self, *args) -> JitFunction:
        """The solvent.jit function this launch runs for these arguments."""
        return self.report(*args).jit_for(self.backend)

    def explain(self, *args) -> str:
        args = self.kernel.complete(args)
        low = self.report(*args)
        head = [f"# solvent.kernel {self.kernel.__qualname__}[grid={self.config.grid}, "
                f"block={self.config.block}]"]
        for n in low.notes:
            head.append(f"# barrier at line {n.line}: {'kept' if n.kept else 'removed'} "
                        f"({n.reason})")
        if not low.notes:
            head.append("# no barriers")
        if low.flat is not None:
            f = low.flat
            loops = ", ".join(f"{'xyz'[d]} in range({f.bounds[d][0]}, {f.bounds[d][1]})"
                              for d in f.order)
            head.append(f"# grid flattened (no barrier, no shared memory, no atomics): one "
                        f"loop per global index, outermost first: {loops or 'none'}")
            head.append(f"# outermost loop: {'parallel' if low.parallel else 'sequential'} "
                        f"({low.parallel_reason})")
        else:
            head.append(f"# block loop: {'parallel' if low.parallel else 'sequential'} "
                        f"({low.parallel_reason})")
        if low.regrouped is not None:
            g = low.regrouped
            head.append(f"# the threads run in {g.grid[0]} blocks of {g.block[0]} (they tell "
                        "each other apart only through cuda.grid: no barrier, shared memory, "
                        "atomic update or block dimension read)")
        if low.coalesced:
            head.append("# threads innermost (coalesced accesses; no thread touches another's "
                        "elements) in the loops at line " + ", ".join(map(str, low.coalesced)))
        if low.flat is None:
            head.append(f"# barriers lowered on: {low.path}")
        if low.path.startswith("IR"):
            head.append("# kept per thread across barriers: the buffers lower_barriers "
                        "allocates (## after lower_barriers below); values the same in every "
                        "thread are carried at block level")
        else:
            head.append("# kept per thread across barriers: " +
                        (", ".join(sorted(low.spills - low.uniform)) or "nothing"))
            head.append("# kept once per block (the same in every thread): " +
                        (", ".join(sorted(low.uniform)) or "nothing"))
        head.append("\n## lowered kernel (plain Python over blocks and threads)\n")
        head.append(low.source)
        return "\n".join(head) + "\n" + low.jit_for(self.backend).explain(*args)


MAX_LAUNCHES = 64   # configurations kept per kernel, argument type keys kept per launch


def _same_arrays(args):
    """For each argument the position of the first argument that is the same array (the
    same object; for views, the same memory, shape, strides and dtype), or None when no two
    arguments are. An array that owns its memory is the same array as another argument only
    as the same object (a view of it equal to it as a whole, ``x`` with ``x[:]``, is left to
    the refusal of arguments that share memory): keying every array by its
    ``__array_interface__`` cost ~8 us per launch of three arrays."""
    out, seen, hit = [], {}, False
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.ndim and a.size:
            k = id(a) if a.flags.owndata else \
                (a.__array_interface__["data"][0], a.shape, a.strides, a.dtype.str)
            j = seen.setdefault(k, i)
            hit |= j != i
            out.append(j)
        else:
            out.append(i)
    return tuple(out) if hit else None


def _plain_config(cfg):
    """A hashable key of a configuration made of ints only (types included: 2 and 2.0 are
    equal keys for a dict, but only 2 is a valid configuration), else None."""
    if type(cfg) is not tuple:
        return None
    out = []
    for v in cfg:
        items = v if type(v) is tuple else (v,)
        if not all(type(x) is int for x in items):
            return None
        out.append(v)
    return tuple(out)


def _stand_in(fe, v):
    """A NumPy value of the type of the frontend value ``v``."""
    from ..frontend.values import ArrayRef, Const, Tensor
    if isinstance(v, Const):
        return v.value
    if isinstance(v, ArrayRef) or (isinstance(v, Tensor) and v.type.rank):
        return np.zeros(v.type.shape if isinstance(v, Tensor) else v.shape, np_dtype(v.dtype))
    if isinstance(v, Tensor):
        dt = np_dtype(v.dtype)
        if v.weak:
            return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[dt.kind]
        return dt.type(0)
    raise fe.unsupported(f"a kernel argument of kind {type(v).__name__}")


def launch_config(cfg) -> Config:
    if not isinstance(cfg, tuple) or len(cfg) < 2:
        raise TypeError(f"a kernel launch takes [blocks, threads_per_block], got [{cfg!r}]")
    if len(cfg) > 2:
        extra = cfg[2:]
        if any(x not in (0, None) for x in extra):
            raise UnsupportedError("a kernel launch with a stream or dynamic shared memory "
                                   f"({', '.join(map(repr, extra))}) is not supported",
                                   hint="launch with [blocks, threads_per_block]")
    return Config(_dims(cfg[0], "the grid (blocks)"), _dims(cfg[1], "the block (threads)"))


def _dims(v, what) -> tuple:
    items = v if isinstance(v, (tuple, list)) else (v,)
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{what} of a kernel launch must be an int or a tuple of 1 to 3 "
                         f"ints, got {v!r}")
    for x in items:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
            raise TypeError(f"{what} of a kernel launch must be a positive int or a tuple "
                            f"of positive ints, got {v!r}")
        if x <= 0:
            raise ValueError(f"{what} of a kernel launch must be positive, got {v!r}")
    return tuple(int(x) for x in items) + (1,) * (3 - len(items))


@dataclass
class Lowered:
    jit: JitFunction
    source: str
    notes: list
    parallel: bool
    parallel_reason: str
    spills: set
    uniform: set = frozenset()
    flat: Flat | None = None   # flatten.py's loops over global indices, when it applied
    coalesced: list = field(default_factory=list)   # coalesce.py's loops (source lines)
    # with ``coalesced``: the lowering without coalesce.py's barriers (flattened where the
    # kernel allows), which the other backends run (on XLA its
    # loops are raised whole) and which a solvent.jit function launching the kernel inlines
    flat_form: "Lowered | None" = None

    def view(self, backend: str | None) -> "Lowered":
        """The lowering a launch on ``backend`` runs and reports."""
        if self.flat_form is not None and (backend not in (None, "native")
                                           or self.native_refused):
            return self.flat_form
        return self
    native_refused: bool = False
    others: dict = field(default_factory=dict)   # backend -> its JitFunction
    regrouped: Config | None = None   # the wider blocks it runs the launch's threads in
    # which lowering of the barriers ran: on the IR (nest.py + passes/lower_barriers.py) or
    # on the kernel's AST (fission.py), and why
    path: str = "AST fission (simt/fission.py)"

    def jit_for(self, backend: str | None) -> JitFunction:
        """``jit`` (native) for ``None`` and ``"native"``; for another backend (or None once
        native refused the kernel) a JitFunction of the same lowered code with the whole
        pass pipeline, raising included (see ``_compile`` for what ``jit`` leaves out)."""
        if backend == "native" or backend is None and not self.native_refused:
            return self.jit
        hit = self.others.get(backend)
        if hit is None:
            hit = self.others[backend] = JitFunction(self.jit.pyfn, backend=backend)
            hit.translator = KernelTranslator
        return hit

    @property
    def kept(self) -> list[BarrierNote]:
        return [n for n in self.notes if n.kept]

    @property
    def removed(self) -> list[BarrierNote]:
        return [n for n in self.notes if not n.kept]


def lower(py, config: Config, args, regroup: bool = True, on_ir: bool = True,
          reorder: bool = True, coalesced_on_ir: bool = False) -> Lowered:
    """The kernel ``py`` lowered for ``config`` and the arguments' types. ``on_ir``: lower
    its barriers on the IR (nest.py, passes/lower_barriers.py) where that path takes the
    kernel; False: on the AST (fission.py) always. ``reorder``: coalesce.py may put the
    threads innermost. ``coalesced_on_ir``: that form too is lowered on the IR; by
    default it keeps the AST lowering, which ran faster
    (matmul_tiled 512, one thread, CPU ms, IR vs AST in one process: 19.9/17.3,
    23.0/19.0, 22.3/19.6: LLVM unrolls the IR form's tile copies, whose bounds it knows,
    into branches instead of vectorizing them)."""
    rewritten, src = rewrite_kernel(py, config)
    rewritten.body = jumps.eliminate(rewritten.body)
    tree = src.tree
    params = [a.arg for a in tree.args.args]
    if tree.args.vararg or tree.args.kwarg or tree.args.kwonlyargs or tree.args.posonlyargs:
        raise UnsupportedError(f"{py.__qualname__}: a kernel takes plain positional "
                               "parameters")
    if len(args) != len(params):
        raise TypeError(f"{py.__qualname__}() takes {len(params)} arguments, "
                        f"{len(args)} were given")

    def loc(node):
        return SourceLoc(src.filename, getattr(node, "lineno", 0) + src.line_offset,
                         getattr(node, "col_offset", 0) + src.col_offset + 1)

    param_arrays = {p for p, a in zip(params, args) if isinstance(a, np.ndarray) and a.ndim}
    shared = {d.name for d in rewritten.shared}
    body = rewritten.body
    vary = varying(body)
    inj = Injectivity(body, config, vary)
    body, notes = eliminate(body, param_arrays | shared, inj, src.line_offset)
    args_of = dict(zip(params, args))
    targets = {n for n, _ in rewritten.atomic_targets} - shared
    private, refused = privatize.candidates(body, targets, args_of)
    n_groups = 0
    if private:
        n_groups = privatize.groups(config.blocks, [args_of[n] for n in private])
        if n_groups < 2:
            private, n_groups = {}, 0
    parallel, why = _blocks_parallel(body, rewritten, param_arrays, shared, inj, config, loc,
                                     set(private), refused)
    if private and parallel:
        why += "; " + privatize.describe(private, n_groups)
    else:
        private, n_groups = {}, 0
    if reorder and not (private or rewritten.atomic_targets or rewritten.device_atomics):
        trial, lines = coalesce(copy.deepcopy(body), param_arrays | shared, vary, inj, config,
                                src.line_offset)
        wider = _regrouped(config, rewritten, body, params, args_of) if lines and regroup \
            else None
        if wider is not None:
            low = lower(py, wider, args, regroup=False, on_ir=on_ir,
                        coalesced_on_ir=coalesced_on_ir)
            if low.coalesced:
                low.regrouped = wider
                return low
        if lines:
            if not on_ir:
                low = "not asked for"
            elif not coalesced_on_ir:
                # measured, 512, one thread, CPU ms, IR vs AST in one process: matmul_tiled
                # 19.9/17.3, 23.0/19.0; backprop_layer 41.1/33.3, 43.4/39.9
                low = "its threads-innermost form ran faster on the AST (matmul_tiled, " \
                    "backprop_layer)"
            else:
                low = _lower_on_ir(py, src, rewritten, trial, config, params, vary, loc,
                                   args, parallel, why, {}, 0, notes)
            if not isinstance(low, Lowered):
                ir_refusal = low
                try:
                    low = _lower_blocks(py, src, rewritten, trial, config, params, vary, loc,
                                        args, parallel, why, {}, 0, notes)
                    low.jit.compile(list(args))   # a refusal here leaves the other lowering
                    low.path = "AST fission (simt/fission.py): the IR path did not take " \
                        f"it: {ir_refusal}"
                except UnsupportedError:
                    low = None
            if low is not None:
                low.coalesced = lines
                # the other backends run the flattened form, or for a kernel that keeps its
                # blocks (barriers, shared arrays) the blocks without the added barriers
                low.flat_form = _lower_flat(py, src, rewritten, body, config, params, args_of,
                                            notes) or \
                    _lower_blocks(py, src, rewritten, body, config, params, vary, loc, args,
                                  parallel, why, {}, 0, notes)
                return low
    flat = _lower_flat(py, src, rewritten, body, config, params, args_of, notes, private)
    if flat is not None:
        return flat
    ir = _lower_on_ir(py, src, rewritten, body, config, params, vary, loc, args,
                      parallel, why, private, n_groups, notes) if on_ir else "not asked for"
    if isinstance(ir, Lowered):
        return ir
    low = _lower_blocks(py, src, rewritten, body, config, params, vary, loc, args, parallel,
                        why, private, n_groups, notes)
    low.path = f"AST fission (simt/fission.py): the IR path did not take it: {ir}"
    return low


def _lower_on_ir(py, src, rewritten, body, config, params, vary, loc, args, parallel, why,
                 private, n_groups, notes) -> "Lowered | str":
    """The kernel as one thread nest per block with its barriers in the IR (nest.py), lowered
    by passes/lower_barriers.py; or why that path does not take it (a string)."""
    from ..ir.registry import IRError
    from ..errors import DivergentBarrierError
    from .translate import Barrier
    why_not = nest.refusal(body)
    if why_not is None and set(assigned_names(body)) & set(params):
        why_not = "a parameter reassigned by the threads"
    if why_not is not None:
        return why_not
    # a barrier under a thread-dependent condition: the AST's check names the variables
    # (the IR pass refuses it too, by line)
    Fission(copy.deepcopy(body), config, params, vary, loc, [])
    tree = src.tree
    args_of = dict(zip(params, args))
    code = nest.block_code(config, rewritten, privatize.rename(copy.deepcopy(body), private),
                           parallel, n_groups, tree)
    if private:
        code = privatize.prologue(private, args_of, n_groups, tree) + code + \
            privatize.epilogue(private, tree)
    jf, text = _compile(py, src, tree, code, rewritten, Weak(()), barrier=Barrier())
    try:
        jf.compile(list(args))
    except DivergentBarrierError:
        raise
    except (IRError, UnsupportedError) as e:
        return str(e).splitlines()[0]
    low = Lowered(jf, text, notes, parallel, why, set(), set())
    low.path = "IR (simt.barrier lowered by passes/lower_barriers.py)"
    return low


REGROUP_THREADS = 2048   # at most this many threads along x in a block made of several


def _regrouped(config: Config, rewritten, body, params, args_of) -> Config | None:
    """A launch of the same threads in fewer, wider blocks (``G`` consecutive blocks as one),
    for a kernel whose threads are independent and tell each other apart only through
    ``cuda.grid`` (no barrier, shared or local array, atomic update, thread or block index
    used on its own, block or grid dimension read; a 1-D launch): its result cannot depend
    on how the threads are grouped. With the threads innermost (coalesce.py), a block walks
    rows of ``bx`` elements; grouped, rows of ``G * bx`` elements (fewer pages and streams
    per step: backprop_layer's 256 x 32 launch ran 2x faster as 16 x 512). ``G`` divides the
    grid (the same threads) and leaves at least four blocks per thread of the pool."""
    from ..backends.native import threads
    if rewritten.reads_dims or rewritten.shared or rewritten.local or \
            config.grid[1:] != (1, 1) or config.block[1:] != (1, 1) or \
            flatten(body, config, params, args_of, rewritten, {}) is None:
        return None
    gx, bx = config.grid[0], config.block[0]
    least = min(gx, 4 * threads.settings()["threads"])
    best = 1
    for g in range(2, gx + 1):
        if gx % g == 0 and g * bx <= REGROUP_THREADS and gx // g >= least:
            best = g
    if best == 1:
        return None
    return Config((gx // best, 1, 1), (bx * best, 1, 1))


def _lower_flat(py, src, rewritten, body, config, params, args_of, notes,
                private=None) -> Lowered | None:
    """The kernel flattened into loops over global thread indices (flatten.py), or None."""
    flat = flatten(body, config, params, args_of, rewritten, private or {})
    if flat is None:
        return None
    if flat.parallel:
        setattr(flat.code[-1], PARALLEL_ATTR, True)   # the outermost loop
    jf, text = _compile(py, src, src.tree, flat.code, rewritten, Weak(()), flat=True)
    return Lowered(jf, text, notes, flat.parallel, flat.parallel_reason, set(), set(), flat)


def _lower_blocks(py, src, rewritten, body, config, params, vary, loc, args, parallel, why,
                  private, n_groups, notes) -> Lowered:
    """The kernel as a loop over blocks of fissioned loops over threads (fission.py)."""
    tree = src.tree
    args_of = dict(zip(params, args))
    fis = Fission(privatize.rename(copy.deepcopy(body), private), config, params, vary, loc,
                  [])
    spills = fis.spills
    dtypes = _probe(py, src, rewritten, body, fis, params, args)
    nt = config.threads
    allocs = [Rewriter.zeros(d, ()) for d in rewritten.shared]
    allocs += [Rewriter.zeros(d, (nt,)) for d in rewritten.local]
    for n in sorted(fis.uniform):   # defined before any run, as a per-thread array would be
        dt, weak = dtypes[n]
        zero = ast.Constant({"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[dt.kind])
        allocs.append(ast.Assign([ast.Name(n, ast.Store())], zero if weak else
                                 ast.Call(numpy_attr(dt), [zero], [])))
    for n in sorted(spills - fis.uniform):
        dt = numpy_attr(dtypes[n][0])
        fill = [ast.Name(f"__simt_p_{n}", ast.Load())] if n in params else []
        fn_name = "full" if fill else "zeros"
        call = ast.Call(ast.Attribute(ast.Name(NUMPY, ast.Load()), fn_name, ast.Load()),
                        [ast.Constant(nt)] + fill + [dt], [])
        allocs.append(ast.Assign([ast.Name(spill_name(n), ast.Store())], call))
    for a in allocs:
        ast.copy_location(a, tree)
    fis.allocations = allocs
    fis.dtypes = dtypes
    code = fis.block_loop(fis.emit(fis.items), parallel, n_groups)
    if private:
        code = privatize.prologue(private, args_of, n_groups, tree) + code + \
            privatize.epilogue(private, tree)
    # a parameter the threads assign starts every block (and thread) at the caller's value
    code = [ast.Assign([ast.Name(f"__simt_p_{n}", ast.Store())], ast.Name(n, ast.Load()))
            for n in sorted(spills & set(params))] + code
    jf, text = _compile(py, src, tree, code, rewritten, Weak(n for n in spills if dtypes[n][1]))
    return Lowered(jf, text, notes, parallel, why, spills, fis.uniform)


def _compile(py, src, tree, code, rewritten, weak: Weak, flat: bool = False, barrier=None):
    """(the JitFunction of the lowered kernel ``code``, its source text). On native, a
    flattened kernel's loops stay loops (run in place, the outermost on the thread pool)
    and other kernels' loops are raised only where no gather is needed: measured with
    benchmarks/simt.py, the raised forms with gathers (clamped reads at block edges) and
    the raised elementwise kernels (a result copied back, one thread) were slower."""
    new = ast.FunctionDef(name=tree.name, args=copy.deepcopy(tree.args), body=code,
                          decorator_list=[], returns=None)
    ast.copy_location(new, tree)
    ast.fix_missing_locations(new)
    _, closure = resolver(py)
    extras = dict(closure)
    extras.update(rewritten.extras)
    extras[NUMPY] = np
    extras[WEAK] = weak
    if barrier is not None:
        extras[BARRIER] = barrier
    fn = make_function(new, src, py.__globals__, extras)
    fn.solvent_translator = KernelTranslator  # when a solvent.jit function launches it
    passes = {"raise_loops": {"enabled": False} if flat else {"gathers": False}}
    jf = JitFunction(fn, backend="native", passes=passes)
    jf.translator = KernelTranslator
    return jf, ast.unparse(new)


def _blocks_parallel(body, rewritten, param_arrays, shared, inj, config, loc, private,
                     refused):
    if config.blocks == 1:
        return False, "one block"
    if rewritten.device_atomics:
        return False, "a device function does atomic updates"
    for name, node in rewritten.atomic_targets:
        if name not in shared and name not in private:
            why = refused.get(name, "it is not privatized")
            return False, (f"atomic update of {name!r} at line {loc(node).line}: blocks may "
                           f"update the same element, and {why}")
    acc = accesses(body, param_arrays - private)
    for name in sorted({a.array for a in acc if a.write}):
        keys = [a.key for a in acc if a.array == name]
        if not inj.block_private(keys):
            return False, f"blocks may touch the same element of {name!r}"
    return True, "every array written is touched by each block at its own elements"


class _Barriers(ast.NodeTransformer):
    def visit_Expr(self, node):
        return ast.copy_location(ast.Pass(), node) if is_barrier(node) else node


class _NoteAssignments(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def note(self, name, like):
        call = ast.Call(ast.Name(NOTE, ast.Load()),
                        [ast.Constant(name), ast.Name(name, ast.Load())], [])
        return ast.fix_missing_locations(ast.copy_location(ast.Expr(call), like))

    def _targets(self, node):
        from ..frontend.scopes import assigned_names
        return [n for n in assigned_names([node]) if n in self.names]

    def visit_Assign(self, node):
        return [node] + [self.note(n, node) for n in self._targets(node)]

    visit_AugAssign = visit_Assign

    def visit_For(self, node):
        self.generic_visit(node)
        if isinstance(node.target, ast.Name) and node.target.id in self.names:
            node.body.insert(0, self.note(node.target.id, node))
        return node


def _probe(py, src, rewritten, body, fis: Fission, params, args) -> dict:
    """dtype and weakness of each value kept per thread: the kernel's body translated once as
    straight-line code of one thread (no barriers), noting the type of every assignment."""
    if not fis.spills:
        return {}
    body = [_Barriers().visit(s) for s in copy.deepcopy(body)]
    body = fis.guard(body, 0)
    if fis.has_returns:
        body.insert(0, ast.copy_location(
            ast.Assign([ast.Name(RET, ast.Store())], ast.Constant(False)), body[0]))
    noter = _NoteAssignments(fis.spills)
    out = []
    for s in body:
        r = noter.visit(s)
        out.extend(r if isinstance(r, list) else [r])
    allocs = [Rewriter.zeros(d, ()) for d in rewritten.shared]
    allocs += [Rewriter.zeros(d, (fis.config.threads,)) for d in rewritten.local]
    tree = copy.deepcopy(src.tree)
    tree.name = f"{tree.name}__simt_probe"
    tree.decorator_list = []
    tree.args.args = tree.args.args + [ast.arg(n) for n in INDEX_NAMES]
    tree.body = allocs + out + [ast.Pass()]
    ast.fix_missing_locations(tree)
    notes = Notes()
    _, closure = resolver(py)
    extras = dict(closure)
    extras.update(rewritten.extras)
    extras.update({NUMPY: np, NOTE: notes})
    fn = make_function(tree, src, py.__globals__, extras)
    from ..frontend.translator import translate
    static = frozenset()
    probe_args = tuple(args) + (0,) * len(INDEX_NAMES)
    while True:
        try:
            translate(fn, probe_args, static, ProbeTranslator)
            break
        except NeedStatic as e:
            new = static | e.args_needed
            if new == static:
                raise UnsupportedError(e.what + " must be known at compile time", e.loc) from None
            static = new
    out = {}
    for n in fis.spills:
        seen = notes.seen.get(n)
        if n == RET:
            out[n] = (np.dtype(bool), False)
            continue
        if not seen:
            raise UnsupportedError(f"{py.__qualname__}: cannot tell the type of {n!r}, which "
                                   "is kept across cuda.syncthreads()",
                                   hint="assign it before the first barrier")
        if any(rank for _, _, rank in seen):
            raise UnsupportedError(f"{py.__qualname__}: {n!r} holds an array and is used "
                                   "across cuda.syncthreads(); only scalars are kept per thread",
                                   hint="use a cuda.local.array instead")
        dt = np.result_type(*(np_dtype(d) for d, _, _ in seen))
        out[n] = (dt, all(w for _, w, _ in seen))
    return out
