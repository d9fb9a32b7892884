"""``solvent.jit``: specialization cache, compilation, calls, write-back of mutated arguments.

Cache rule: a compiled version is keyed on, for each argument, the shape and dtype of
arrays, the Python/NumPy type of scalars, and the value of compile-time arguments. Strings,
None and tuples are always compile-time. Integer/bool scalars are run-time values unless the
function needs one at compile time (an array shape, a slice length, a branch that decides a
shape): solvent then recompiles with those arguments' values in the key. Float and complex
scalars are always run-time values.
"""
from __future__ import annotations

import functools
import inspect
import signal
import sys
import threading
import types
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import ClampedWindowError, NeedStatic, UnsupportedError
from ..backends import available_backends, get_backend
from ..ir.registry import IRError
from ..ops.checks import KINDS, error_text
from ..frontend import arg_trees
from ..frontend.captures import value_key
from ..frontend.translator import Translation, translate
from ..ir.core import Function, clone_function
from ..ir.parser import parse_function
from ..ir.printer import print_function
from ..passes.pipeline import build_pipeline, run_pipeline, shared_prefix
from ..backends.choice import choose
from . import fast_path
from .cache import DEFAULT_MAX_VERSIONS, VersionCache


def too_deep(name: str) -> UnsupportedError:
    """The error for a RecursionError while solvent compiles or first runs ``name`` (the
    frontend, the passes and the backends recurse once or more per nesting level of the IR,
    and each branch of an elif chain is a level: ~200 reach Python's limit of 1000). The
    limit is left as it is: raised to 20,000, 250 elifs compiled and then crashed the
    process in XLA's tracing (a C stack overflow)."""
    return UnsupportedError(
        f"{name} nests blocks too deeply for solvent (Python's recursion limit of "
        f"{sys.getrecursionlimit()} was reached while compiling it)",
        hint="split a long if/elif chain (a dict or np.select of the cases) or a "
             "deep loop nest into functions")


class _Stages(list):
    """(pass name, copy of the IR after that pass): passes rewrite the IR in place, so a
    stage kept by reference would show (and run, in translation validation) the final
    program. A pass that left the text of the IR as it was shares the previous copy
    (about half of the stages, which are then neither parsed here nor again by a test)."""

    def __init__(self):
        super().__init__()
        self._text = self._copy = None

    def snap(self, name: str, fn: Function) -> None:
        text = print_function(fn)
        if text != self._text:
            self._text, self._copy = text, parse_function(text)
        self.append((name, self._copy))


@dataclass
class Compiled:
    translation: Translation
    fn: Function  # after the pipeline
    executable: object
    backend: str
    reason: str
    compile_seconds: float = 0.0
    stages: list = field(default_factory=list)
    param_names: list = field(default_factory=list)
    # (result index, caller's argument position) of every write-back: fixed per version,
    # so computed once here instead of on every call
    writes: list = field(init=False)
    # what every call of this version needs, computed once (see ``call``)
    written: frozenset = field(init=False)
    arg_map: tuple = field(init=False)
    result_index: int | None = field(init=False)
    written_sorted: tuple = field(init=False)
    all_args: bool = field(init=False)   # the executable takes every argument, in order
    # pairs of array arguments, one of them written, that must not share memory (set on
    # the first call: which arguments are arrays is part of the version's key)
    alias_pairs: tuple | None = field(init=False, default=None)
    # the global/closure arrays the code reads, passed after the call's arguments
    implicit: tuple = field(init=False)
    # (result index, "array" | "scalar" | "weak") when a call needs nothing but the
    # executable and that one result: no argument written, the result new (the executable
    # promises every result is), run-time checks raised by the executable itself
    plain: tuple | None = field(init=False, default=None)

    def __post_init__(self):
        self.implicit = tuple(self.translation.implicit)
        self.param_names = list(self.param_names) + [
            f"{n} (a global or closure array)" for n in self.translation.implicit_names]
        self.writes = _written_args(self)
        self.written = frozenset(k for _, k in self.writes)
        self.arg_map = tuple(self.translation.arg_map)
        self.written_sorted = tuple(sorted(self.written))
        self.all_args = self.arg_map == tuple(range(len(self.param_names)))
        spec = self.translation.result
        # the commonest return, one array computed by the program, skips ``_rebuild``
        self.result_index = spec[1] if spec[0] == "value" and spec[2] == "array" and \
            not getattr(self.executable, "keep_sharded", False) else None
        exe = self.executable
        if spec[0] == "value" and spec[2] in ("array", "scalar", "weak") and \
                not self.writes and \
                getattr(exe, "fresh_results", False) is True and \
                (not self.fn.errors or getattr(exe, "raises_errors", False)):
            self.plain = (spec[1], spec[2])


def _type_key(value):
    """The cache key of one argument. The dtype object itself (not its ``.str``) is hashed:
    equal only for identical dtypes, byte order included, and three times cheaper."""
    if type(value) is np.ndarray:  # subclasses (np.matrix, masked arrays) are refused
        if value.flags.c_contiguous:
            return ("array", value.shape, value.dtype)
        # Fortran-ordered / strided: reshape and ravel follow the layout (copy or view)
        return ("array", value.shape, value.dtype, value.strides)
    if isinstance(value, (bool, int, float, complex)):
        return ("py", type(value).__name__)
    if isinstance(value, np.generic):
        return ("np", value.dtype.str)
    if arg_trees.is_tree(value):   # a container: its leaves follow the call's arguments
        return ("tree", arg_trees.flatten(value, []))
    if value is None or isinstance(value, (str, tuple, types.FunctionType, np.ufunc,
                                           np.dtype, type)):
        return ("const", value_key(value))   # (a type: a dtype such as np.float32)
    return ("other", type(value).__name__)


def choose_backend(fn: Function, requested: str | None):
    """(backend name, why) for ``fn``: the requested backend if it accepts ``fn``; otherwise
    the cost model's pick among the backends that may be chosen automatically and accept it
    (backends/choice.py).
    Raises ``ValueError`` for an unknown name and ``UnsupportedError`` with the backends'
    reasons when none accepts."""
    if requested is not None:
        ok, why = get_backend(requested).accepts(fn)
        if not ok:
            raise UnsupportedError(f"the {requested} backend cannot run @{fn.name}: {why}")
        return requested, f"backend={requested!r} was requested"
    accepted, refused = {}, {}
    for name in available_backends():
        backend = get_backend(name)
        if not backend.automatic:
            continue
        ok, why = backend.accepts(fn)
        (accepted if ok else refused)[name] = why
    if not accepted:
        raise UnsupportedError(f"no backend can run @{fn.name}: " + "; ".join(
            f"{n} refuses it: {r}" for n, r in refused.items()))
    return choose(fn, accepted, refused)


def _backend_pass_names() -> set:
    """The passes whose options some backend's ``pass_defaults`` set."""
    return {k for name in available_backends() for k in get_backend(name).pass_defaults}


def make_executable(fn: Function, backend: str):
    return get_backend(backend).compile(fn)


class JitFunction:
    translator = None  # a frontend Translator subclass, or None for the plain one

    def __init__(self, pyfn, fallback: str | None = None, backend: str | None = None,
                 max_versions: int = DEFAULT_MAX_VERSIONS, mesh=None, in_specs=None,
                 out_specs=None, out: str = "numpy", passes: dict | None = None):
        if fallback not in (None, "python"):
            raise ValueError("fallback must be None or 'python'")
        self.pyfn = pyfn
        self.fallback = fallback
        self.backend = backend
        self._refusal = _not_a_plain_function(pyfn)
        if self._refusal and fallback is None:
            raise UnsupportedError(self._refusal, hint="decorate a plain `def` function, or "
                                   "pass fallback='python' to run this one as it is")
        self.signature = None if self._refusal else inspect.signature(pyfn)
        # calls that pass every parameter positionally skip inspect's binding (per-call cost)
        self._plain_arity = None if self.signature is None or any(
            p.kind != p.POSITIONAL_OR_KEYWORD for p in self.signature.parameters.values()) \
            else len(self.signature.parameters)
        if self._plain_arity is not None:
            self._raw_key = fast_path.raw_key_function(self._plain_arity)
        self.placement = None
        if mesh is not None and self.signature is not None:
            if backend not in (None, "xla"):
                raise ValueError(f"mesh= runs through XLA's SPMD partitioner; backend="
                                 f"{backend!r} cannot take it")
            from .sharding import Placement
            self.backend = "xla"
            self.placement = Placement(mesh, in_specs, out_specs, out,
                                       list(self.signature.parameters))
        elif mesh is None and (in_specs is not None or out_specs is not None
                               or out != "numpy"):
            raise ValueError("in_specs, out_specs and out= need a mesh=")
        # options by pass name over the defaults; build_pipeline checks the names and types
        # now, not at the first call
        self.pass_options = {k: dict(v) for k, v in (passes or {}).items()}
        build_pipeline(self.pass_options)
        self._static: dict = {}   # type key -> frozenset of compile-time argument indices
        self._clamped: set = set()  # type keys whose windows x[i:i + w] reached past the end
        self._cache = VersionCache(max_versions)  # full key -> Compiled, LRU-bounded
        functools.update_wrapper(self, pyfn)
        # a jitted function calling this one inlines its source (frontend call_function)
        self.solvent_python_function = pyfn

    def __get__(self, obj, objtype=None):
        """``@solvent.jit`` on a method: ``sim.step(dt)`` runs it with ``sim`` first
        (runtime/methods.py)."""
        if obj is None:
            return self
        from .methods import BoundJit
        return BoundJit(self, obj)

    # --- compilation ------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        """The call's arguments as one positional tuple, defaults filled in."""
        if not kwargs and len(args) == self._plain_arity:
            return args
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.pyfn.__qualname__}(): {e}") from None
        bound.apply_defaults()
        # one value per parameter, in order: *args a tuple, **kwargs a dict (containers:
        # frontend/arg_trees.py), keyword-only parameters in their place
        return tuple(bound.arguments[n] for n in self.signature.parameters)

    def compile(self, args, trace=None, fresh=False) -> Compiled:
        try:
            return self._compile(args, trace, fresh)
        except RecursionError:
            raise too_deep(self.pyfn.__qualname__) from None

    def _compile(self, args, trace=None, fresh=False) -> Compiled:
        type_key = tuple(_type_key(a) for a in args)
        static = self._static.get(type_key, frozenset())
        key = type_key + tuple((i, value_key(args[i])) for i in sorted(static))
        if trace is None and not fresh:
            hit = self._cache.get(key)
            if hit is not None:
                return hit
        t0 = time.perf_counter()
        while True:
            try:
                tr = translate(self.pyfn, args, static, self.translator,
                               clamped_windows=type_key in self._clamped)
                break
            except NeedStatic as e:
                new = static | e.args_needed
                if new == static:
                    raise UnsupportedError(e.what + " must be known at compile time",
                                           e.loc) from None
                static = new
        if static:   # kept empty while no version needs a compile-time value (see __call__)
            self._static[type_key] = static
            self._cache.fast.clear()   # a runner keyed on these types no longer applies
        key = type_key + tuple((i, value_key(args[i])) for i in sorted(static))
        stages = _Stages()
        if self.placement is not None:  # the IR carries the mesh and the argument specs
            tr.fn.shardings = self.placement.ir_shardings(tr.fn, tr)
        snap = stages.snap if trace else None
        passes = build_pipeline(self._pass_options(self.backend))
        # the passes before the first one a backend's pass_defaults set run the same for
        # every backend: under automatic choice the program after them is kept, and a
        # backend whose options differ reruns only the rest (once translated, once through
        # the shared passes; the copy costs ~1 ms, the second translation and run of the
        # shared passes cost levinson and lu_nopivot ~40-60 ms)
        auto = self.backend is None and self.placement is None
        head = shared_prefix(passes, _backend_pass_names()) if auto else len(passes)
        fn = run_pipeline(tr.fn, trace=snap, passes=passes[:head])
        shown = len(stages)   # an idle pass shows no stage: stages need not match passes
        kept = clone_function(fn) if head < len(passes) else None
        fn = run_pipeline(fn, trace=snap, passes=passes[head:], start=False)
        backend, reason = choose_backend(fn, self.backend)
        rerun = self._rerun_options(backend, fn) if auto else None
        if rerun is not None:
            # the chosen backend's pass_defaults would have built another program: the rest
            # of the pipeline again with its options, on the backend already chosen (twice
            # when raising, redone, built something they refuse: the versioned copy of a
            # loop without its checks raises where the loop did not)
            mine = self._pass_options(backend)
            while True:
                built = stages[shown:]
                del stages[shown:]
                again = self._tail(kept, rerun, head, snap)
                if again is None:   # its passes found nothing to do: the same program
                    stages[shown:] = built
                    break
                fn = again
                if rerun == mine or not self._raise_refused(backend, fn):
                    break
                rerun = mine
            backend, _ = choose_backend(fn, backend)
            reason += f" (compiled with {backend}'s pass options)"
        if self.placement is not None:
            from ..backends.xla import XlaExecutable
            exe = XlaExecutable(fn, self.placement.shardings(fn, tr),
                                keep_sharded=self.placement.out == "sharded")
        else:
            exe = make_executable(fn, backend)
        names = list(self.signature.parameters)
        c = Compiled(tr, fn, exe, backend, reason, time.perf_counter() - t0, stages,
                     names + arg_trees.leaf_paths(args, names))
        self._cache.put(key, c)
        return c

    def _rerun_options(self, backend: str, fn: Function) -> dict | None:
        """The pass options to build the program again with when ``backend``'s change what
        automatic choice built with the shared ones, else None. Raising is redone with the
        backend's raise_loops options only when it built something they refuse (a masked
        batch under a carried loop, a strided interchange: ``Function.raised_with``); the
        backend's other options always count (the native backend's version_checks and
        speculate_checks: without them knapsack_items ran 1.45x slower under automatic
        choice than on the native backend forced)."""
        mine, shared = self._pass_options(backend), self._pass_options(None)
        if self._raise_refused(backend, fn):
            return mine
        if all(mine.get(k) == shared.get(k) for k in mine if k != "raise_loops"):
            return None
        out = {k: v for k, v in mine.items() if k != "raise_loops"}
        if "raise_loops" in shared:
            out["raise_loops"] = shared["raise_loops"]
        return out

    def _tail(self, kept: Function, options: dict, head: int, snap):
        """The passes after the shared prefix with ``options``, on a copy of ``kept``; None
        when every pass whose options differ from the shared ones was idle (found nothing to
        do: the native backend's check versioning on a function whose loops have no checks
        left), which leaves the program the shared options built (a second build of the
        whole tail cost 8-37% more compile time under automatic choice)."""
        shared = self._pass_options(None)
        passes = build_pipeline(options)[head:]
        differ = [i for i, p in enumerate(passes) if options.get(p.name) != shared.get(p.name)]
        if not differ:
            return None
        last = differ[-1] + 1
        fn = run_pipeline(clone_function(kept), trace=snap, start=False, passes=passes[:last])
        if all(passes[i].idle for i in differ):
            return None
        return run_pipeline(fn, trace=snap, start=False, passes=passes[last:])

    def _raise_refused(self, backend: str, fn: Function) -> bool:
        """Whether raising built ``fn`` with an option ``backend``'s options set otherwise
        (``Function.raised_with``: the options that let a loop raise)."""
        mine = self._pass_options(backend).get("raise_loops", {})
        shared = self._pass_options(None).get("raise_loops", {})
        return any(mine.get(k) != shared.get(k) for k in fn.raised_with)

    def _pass_options(self, backend: str | None) -> dict:
        """The pass options for ``backend``: its ``pass_defaults`` under the user's own."""
        out = {} if backend is None else \
            {k: dict(v) for k, v in get_backend(backend).pass_defaults.items()}
        for k, v in self.pass_options.items():
            out.setdefault(k, {}).update(v)
        return out

    # --- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        # the fast path (runtime/fast_path.py): a runner registered for these argument types
        if not kwargs and len(args) == self._plain_arity:
            run = self._cache.fast.get(self._raw_key(*args))
            if run is not None:
                try:
                    return run(args)
                except ClampedWindowError as e:
                    return self._run_clamped(args, e)
        return self._slow_call(args, kwargs)

    def _slow_call(self, args, kwargs):
        # a cached call: positional arguments, no mesh, a version in the cache whose guards
        # hold. It computes the same key as ``compile``, and registers a fast-path runner
        if not kwargs and len(args) == self._plain_arity and self.placement is None:
            # containers passed in: their leaves follow, their keys come from the same walk
            ext, trees = arg_trees.extend_keyed(args)
            type_key = key = tuple(map(_type_key, args)) if not trees else tuple(
                ("tree", trees[i]) if i in trees else _type_key(a) for i, a in enumerate(ext))
            static = self._static.get(key) if self._static else None
            if static:
                key += tuple((i, value_key(ext[i])) for i in sorted(static))
            c = self._cache.get(key)
            if c is not None:
                if not trees and fast_path.eligible(self, args, type_key, static):
                    fast_path.register(self._cache.fast, self._raw_key(*args), static, args,
                                       fast_path.make_runner(self, c, key, args),
                                       self._slow_call)
                return self._run(c, ext)
        return self._call(args, kwargs)

    def _run(self, c: Compiled, args):
        try:
            return run_compiled(c, args)
        except RecursionError:
            # XLA traces the IR on a first run (a fallback="python" call is not made here:
            # the user's own RecursionError stays theirs)
            raise too_deep(self.pyfn.__qualname__) from None
        except ClampedWindowError as e:
            return self._run_clamped(args, e)

    def _run_clamped(self, args, error: ClampedWindowError):
        """A window ``x[i:i + w]`` reached past the end of its axis, where NumPy gives a
        shorter slice (nothing was written: checks run before write-back). Compile this
        function again for these argument types with NumPy's clamped length, known only at
        run time, keep that version, and run it; where no backend takes run-time lengths
        (``backend="xla"`` forced), raise the error as it is."""
        type_key = tuple(map(_type_key, args))
        if type_key in self._clamped:
            raise error
        self._clamped.add(type_key)
        try:
            c = self.compile(args, fresh=True)
        except UnsupportedError:
            self._clamped.discard(type_key)
            raise error from None
        return run_compiled(c, args)

    def _call(self, args, kwargs):
        if self._refusal:  # only with fallback="python"
            warnings.warn(f"solvent: running {self.pyfn!r} as plain Python: {self._refusal}",
                          stacklevel=3)
            return self.pyfn(*args, **kwargs)
        call_args = args
        args = own = self._bind(args, kwargs)
        args = arg_trees.extend(args)   # the leaves of containers passed in follow them
        shapes = args
        if self.placement is not None and len(args) != len(own):
            raise UnsupportedError("containers (dicts, lists, objects) as arguments of a "
                                   "function sharded over a mesh", hint="pass their arrays "
                                   "as arguments of their own")
        if self.placement is not None:
            self.placement.check_call(args)
            shapes = self.placement.stand_ins(args)  # a jax.Array compiles as its shape
        try:
            c = self.compile(shapes)
        except UnsupportedError as e:
            if self.fallback == "python":
                warnings.warn(f"solvent: running {self.pyfn.__qualname__} as plain Python: {e}",
                              stacklevel=3)
                return self.pyfn(*call_args, **kwargs)
            raise
        if self.placement is not None:
            self.placement.check_written(args, [k for _, k in c.writes])
            return run_compiled(c, args)
        return self._run(c, args)

    def explain(self, *args, **kwargs) -> str:
        args = arg_trees.extend(self._bind(args, kwargs))
        if self.placement is not None:
            self.placement.check_call(args)
            args = self.placement.stand_ins(args)
        c = self.compile(args, trace=True)
        out = [f"# solvent.explain: {self.pyfn.__qualname__}"]
        static = sorted(c.translation.static_args)
        if static:
            names = list(self.signature.parameters)
            names += arg_trees.leaf_paths(args, names)
            out.append("# compile-time arguments: " + ", ".join(
                f"{names[i]}={args[i]!r}" for i in static))
        for name, fn in c.stages:
            out.append(f"\n## after {name}\n")
            out.append(print_function(fn))
        from ..analysis.explain import explain_loops
        out.append("## loops\n" + explain_loops(c.fn) + "\n")
        out.append(f"## backend: {c.backend}\n# {get_backend(c.backend).describe()}\n"
                   f"# why: {c.reason}")
        note = getattr(c.executable, "options_note", None)
        if note:
            out.append(f"# XLA options: {note}")
        if self.placement is None and hasattr(c.executable, "copy_note"):
            out.append("# copies at the call boundary: " + c.executable.copy_note(
                [(tuple(args) + c.implicit)[i] for i in c.translation.arg_map]))
        elif getattr(c.executable, "fresh_results", False):
            out.append("# copies at the call boundary: arguments that are C-contiguous "
                       "and of the compiled dtype are read in place, others converted; "
                       "written arguments are computed on a copy and copied back after "
                       "the call succeeds; results are new arrays, handed over as they are")
        out.extend(f"# {line}" for line in getattr(c.executable, "explain_lines", ()))
        out.append(f"# compile time: {c.compile_seconds * 1e3:.1f} ms (before XLA's own "
                   "compilation, which happens on the first call)")
        if self.placement is not None:
            from ..backends.xla_sharded import count_collectives
            out.append("\n## sharding (XLA's SPMD partitioner)")
            out.extend(self.placement.describe())
            compiled = c.executable.compiled(*[(tuple(args) + c.implicit)[i]
                                               for i in c.translation.arg_map])
            out.append("# collectives in the partitioned HLO: " + ", ".join(
                f"{k} {v}" for k, v in count_collectives(compiled.as_text()).items()))
            m = compiled.memory_analysis()
            if m is not None:
                out.append(f"# bytes per device: arguments {m.argument_size_in_bytes}, "
                           f"results {m.output_size_in_bytes}, temporaries "
                           f"{m.temp_size_in_bytes}")
        return "\n".join(out)


def _not_a_plain_function(fn) -> str | None:
    """Why solvent cannot compile ``fn`` from its source, or None for a plain function."""
    if isinstance(fn, types.FunctionType):
        return None
    if isinstance(fn, types.MethodType):
        return (f"{fn.__qualname__} is a method of a {type(fn.__self__).__name__}, which "
                "solvent cannot pass as an argument")
    return (f"{fn!r} is not a Python function (a {type(fn).__name__}): solvent compiles "
            "the source of plain `def` functions")


def _written_args(c: Compiled) -> list[tuple[int, int]]:
    """(result index, caller's argument position) for every result written back.

    ``Function.writeback`` names IR arguments; compile-time arguments (an int that decides a
    shape, None, strings, tuples) have no IR argument, so the caller's position comes from the
    translation's ``arg_map``."""
    arg_map = c.translation.arg_map
    return [(r, arg_map[k]) for r, k in enumerate(c.fn.writeback) if k is not None]


def _check_aliasing(c: Compiled, args, written: set[int]):
    if not written:
        return
    pairs = c.alias_pairs
    if pairs is None:   # which arguments are arrays is fixed by the version's key
        arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
        pairs = c.alias_pairs = tuple(
            (i, j) for x, i in enumerate(arrays) for j in arrays[x + 1:]
            if i in written or j in written)
    for i, j in pairs:
        if np.may_share_memory(args[i], args[j]):
            raise UnsupportedError(
                f"arguments {c.param_names[i]!r} and {c.param_names[j]!r} share memory and "
                "one of them is written; "
                "solvent compiles each argument as a separate array",
                hint="pass a copy of one of them")


def _check_writable(c: Compiled, args, written: set[int]):
    for k in c.written_sorted:
        if not args[k].flags.writeable:
            raise ValueError(f"argument {c.param_names[k]!r} is read-only, but the function "
                             "writes into it")


def run_compiled(c: Compiled, args):
    if c.implicit:   # the global/closure arrays it reads, as they are now (same objects)
        args = tuple(args) + c.implicit
    if c.plain is not None:   # see ``Compiled.plain``: what ``_result_value`` would give
        outs = c.executable(*args) if c.all_args else \
            c.executable(*[args[i] for i in c.arg_map])
        i, how = c.plain
        if how == "array":
            return outs[i]
        v = np.asarray(outs[i])
        return v.item() if how == "weak" else v[()]
    writes = c.writes
    written = c.written
    # every check that can refuse the call runs before anything is computed or written
    if written:
        _check_aliasing(c, args, written)
        _check_writable(c, args, written)
    outs = c.executable(*args) if c.all_args else c.executable(*[args[i] for i in c.arg_map])
    if c.fn.errors:  # a failed run-time check raises before anything is written back
        host = getattr(c.executable, "to_host", np.asarray)  # gathers a sharded jax.Array
        raise_if_failed(c.fn.errors, host(outs[-2]), host(outs[-1]))
    fresh = _fresh(c, outs)
    if not writes and c.result_index is not None:
        return _result_value(c.translation.result, outs, set(), args, fresh)
    host = getattr(c.executable, "to_host", np.asarray)
    pending = []
    for r, k in writes:
        if outs[r] is args[k]:   # computed in the caller's own array (native backend)
            continue
        out = host(outs[r])
        if out.shape != args[k].shape or out.dtype != args[k].dtype:
            raise IRError(
                f"{c.param_names[k]!r}: the compiled program returned {out.dtype}{out.shape} "
                f"for an argument of {args[k].dtype}{args[k].shape}; nothing was written")
        pending.append((args[k], out))
    # the call succeeded and every result fits: only now write into the caller's buffers
    _write_all(pending)
    spec = c.translation.result
    if spec[0] == "const":   # None, mostly: a function that only updates its arguments
        return spec[1]
    return _rebuild(spec, outs, args, fresh=fresh)


def _fresh(c: Compiled, outs):
    """True when every result is new (the native backend), else the indices of those that
    are (``backends.xla.Results.fresh``): these are handed to the caller without a copy."""
    fresh = getattr(outs, "fresh", None)
    if fresh is not None:
        return fresh
    return True if getattr(c.executable, "fresh_results", False) else frozenset()


def raise_if_failed(errors, code, payload) -> None:
    """Raise the error a failed ``error.check`` stands for (see passes/checks_to_values)."""
    code = int(code)
    if code:
        kind, message, loc = errors[code - 1]
        raise KINDS[kind](error_text(message, int(payload), loc))


def _write_all(pending):
    """Copy every result into its argument as one step: a Ctrl-C that arrives meanwhile is
    held until the last array is written, so the caller never sees half of the updates."""
    if not pending:
        return
    if len(pending) == 1:
        # one copy is one C call: a Ctrl-C is acted on after it, never in the middle (and
        # swapping the SIGINT handler twice costs more than a small kernel)
        np.copyto(pending[0][0], pending[0][1], casting="no")
        return
    held = []
    restore = None
    if threading.current_thread() is threading.main_thread():
        try:
            restore = signal.signal(signal.SIGINT, lambda *a: held.append(a))
        except (ValueError, TypeError):  # not settable here (embedded interpreter)
            restore = None
    try:
        for dst, src in pending:
            np.copyto(dst, src, casting="no")
    finally:
        if restore is not None:
            signal.signal(signal.SIGINT, restore)
    if held and callable(restore):
        restore(*held[0])
    elif held:
        raise KeyboardInterrupt


def _rebuild(spec, outs, args, memo=None, fresh=frozenset()):
    """The Python return value. A spec object that occurs twice (one array returned twice)
    gives one object twice, as in NumPy. ``fresh`` (True for all, or a set of indices): the
    results the executable promises are new arrays, sharing memory with no argument, no
    other result and nothing cached (see ``_fresh``)."""
    memo = {} if memo is None else memo
    if id(spec) in memo:
        return memo[id(spec)]
    kind = spec[0]
    if kind == "tuple":
        items = [_rebuild(s, outs, args, memo, fresh) for s in spec[1]]
        tag = spec[2] if len(spec) > 2 else None
        if tag == "dict":
            r = dict(zip(spec[3], items))
        elif tag == "object":    # a namedtuple built in the function
            r = spec[3](*items)
        else:
            r = list(items) if tag == "list" else tuple(items)
    elif kind == "const":
        r = spec[1]
    elif kind == "select":   # an argument on one path of a run-time if (ReturnChoice)
        r = _rebuild(spec[2] if bool(np.asarray(outs[spec[1]])) else spec[3], outs, args,
                     memo, fresh)
    elif kind == "arg":
        r = _view(args[spec[1]], spec[2])
    else:
        r = _result_value(spec, outs, memo.setdefault("buffers", set()), args, fresh)
    memo[id(spec)] = r
    return r


def _result_value(spec, outs, handed_out: set, args=(), fresh=frozenset()):
    _, i, how = spec
    if how == "array" and not isinstance(outs[i], np.ndarray) and hasattr(outs[i], "sharding"):
        return outs[i]  # out="sharded": the jax.Array stays on its devices
    v = np.asarray(outs[i])
    if how == "array":
        # a result the executable calls fresh (see ``_fresh``), or a writable array that
        # owns its memory and shares none with an argument, is handed over as it is; views
        # of XLA's buffers (read-only), a buffer already handed out for another result, and
        # an argument's own buffer are copied
        if v.flags.writeable and id(v) not in handed_out and (
                fresh is True or i in fresh or (v.flags.owndata and not any(
                    isinstance(a, np.ndarray) and (v is a or np.may_share_memory(v, a))
                    for a in args))):
            handed_out.add(id(v))
            return v
        return np.array(v, copy=True)
    if how == "weak":
        return v.item()
    if how == "list":    # a list grown in a loop (frontend/list_growth.py): its rows
        return list(np.array(v, copy=True))
    if how == "pylist":  # ... of Python numbers
        return v.tolist()
    return v[()]


def _view(a, steps):
    """Apply compile-time view steps (see frontend.values.ArrayRef) to a NumPy array."""
    from ..ops.indexspec import numpy_index
    for kind, arg in steps:
        if kind == "index":
            # the Ellipsis keeps a 0-d result a view (``x[2, ...]``), as the frontend has it
            a = a[numpy_index(arg, [], a.shape) + (Ellipsis,)]
        elif kind == "transpose":
            a = np.transpose(a, arg)
        elif kind == "reshape":
            a = a.reshape(arg)
        else:
            a = a.real if arg == "real" else a.imag
    return a


def jit(fn=None, *, fallback: str | None = None, backend: str | None = None,
        max_versions: int = DEFAULT_MAX_VERSIONS, mesh=None, in_specs=None, out_specs=None,
        out: str = "numpy", passes: dict | None = None):
    """Compile ``fn`` through solvent. Usable as ``@jit`` or ``@jit(fallback="python")``.

    ``max_versions`` bounds the compiled versions kept for ``fn`` (one per shape/dtype/
    compile-time value combination); the least recently used is dropped first.

    ``mesh`` (a ``jax.sharding.Mesh`` or a dict like ``{"x": 4, "y": 2}``) with ``in_specs``
    (``jax.sharding.PartitionSpec``s by parameter) runs ``fn`` over many devices through
    XLA's SPMD partitioner; ``out="sharded"`` keeps returned arrays as ``jax.Array``s on the
    mesh instead of gathering them into NumPy. See runtime/sharding.py.

    ``passes`` sets options of the optimization passes by name (passes/pipeline.py), for
    example ``{"if_to_select": {"max_ops": 16}}`` or, with a mesh,
    ``{"halo_shifts": {"enabled": False}}``; an unknown pass or option raises here."""
    kw = dict(mesh=mesh, in_specs=in_specs, out_specs=out_specs, out=out, passes=passes)
    if fn is None:
        return lambda f: jit(f, fallback=fallback, backend=backend, max_versions=max_versions,
                             **kw)
    if isinstance(fn, types.MethodType) and arg_trees.plain_object(fn.__self__):
        # solvent.jit(sim.step): the method's function, bound to the object
        return JitFunction(fn.__func__, fallback, backend, max_versions, **kw).__get__(
            fn.__self__)
    if isinstance(fn, functools.partial) and isinstance(fn.func, types.FunctionType):
        from .methods import PartialJit
        return PartialJit(JitFunction(fn.func, fallback, backend, max_versions, **kw), fn)
    return JitFunction(fn, fallback, backend, max_versions, **kw)
