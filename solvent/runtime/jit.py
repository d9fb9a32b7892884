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
import threading
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import NeedStatic, UnsupportedError
from ..ir.registry import IRError
from ..frontend.translator import Translation, translate
from ..ir.core import Function
from ..passes.pipeline import run_pipeline

BACKENDS = ("xla", "interp", "native")


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


def _type_key(value):
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str)
    if isinstance(value, (bool, int, float, complex)):
        return ("py", type(value).__name__)
    if isinstance(value, np.generic):
        return ("np", value.dtype.str)
    if value is None or isinstance(value, (str, tuple)):
        return ("const", value)
    return ("other", type(value).__name__)


def choose_backend(fn: Function, requested: str | None):
    if requested is not None:
        if requested not in BACKENDS:
            raise ValueError(f"unknown backend {requested!r}; choose one of {BACKENDS}")
        return requested, f"backend={requested!r} was requested"
    return "xla", ("xla: the tensor program is compiled by XLA (loops become XLA While ops); "
                   "the native-loop backend does not exist yet")


def make_executable(fn: Function, backend: str):
    if backend == "xla":
        from ..backends.xla import XlaExecutable
        return XlaExecutable(fn)
    if backend == "native":
        from ..backends.native import NativeBackend
        return NativeBackend().compile(fn)
    from ..backends import interp
    return lambda *args: interp.run(fn, list(args))


class JitFunction:
    def __init__(self, pyfn, fallback: str | None = None, backend: str | None = None):
        if fallback not in (None, "python"):
            raise ValueError("fallback must be None or 'python'")
        self.pyfn = pyfn
        self.fallback = fallback
        self.backend = backend
        self.signature = inspect.signature(pyfn)
        self._static: dict = {}   # type key -> frozenset of compile-time argument indices
        self._cache: dict = {}    # full key -> Compiled
        functools.update_wrapper(self, pyfn)

    # --- compilation ------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        """The call's arguments as one positional tuple, defaults filled in."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.pyfn.__qualname__}(): {e}") from None
        bound.apply_defaults()
        if bound.kwargs or any(p.kind == p.VAR_POSITIONAL
                               for p in self.signature.parameters.values()):
            raise UnsupportedError(f"{self.pyfn.__qualname__}: *args, **kwargs and "
                                   "keyword-only parameters are not supported")
        return tuple(bound.args)

    def compile(self, args, trace=None) -> Compiled:
        type_key = tuple(_type_key(a) for a in args)
        static = self._static.get(type_key, frozenset())
        key = type_key + tuple((i, args[i]) for i in sorted(static))
        if trace is None and key in self._cache:
            return self._cache[key]
        t0 = time.perf_counter()
        while True:
            try:
                tr = translate(self.pyfn, args, static)
                break
            except NeedStatic as e:
                new = static | e.args_needed
                if new == static:
                    raise UnsupportedError(e.what + " must be known at compile time",
                                           e.loc) from None
                static = new
        self._static[type_key] = static
        key = type_key + tuple((i, args[i]) for i in sorted(static))
        stages = []
        fn = run_pipeline(tr.fn, trace=(lambda n, f: stages.append((n, f))) if trace else None)
        backend, reason = choose_backend(fn, self.backend)
        exe = make_executable(fn, backend)
        c = Compiled(tr, fn, exe, backend, reason, time.perf_counter() - t0, stages,
                     list(self.signature.parameters))
        self._cache[key] = c
        return c

    # --- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        args = self._bind(args, kwargs)
        try:
            c = self.compile(args)
        except UnsupportedError as e:
            if self.fallback == "python":
                warnings.warn(f"solvent: running {self.pyfn.__qualname__} as plain Python: {e}",
                              stacklevel=2)
                return self.pyfn(*args)
            raise
        return run_compiled(c, args)

    def explain(self, *args, **kwargs) -> str:
        from ..ir.printer import print_function
        args = self._bind(args, kwargs)
        c = self.compile(args, trace=True)
        out = [f"# solvent.explain: {self.pyfn.__qualname__}"]
        static = sorted(c.translation.static_args)
        if static:
            names = list(self.signature.parameters)
            out.append("# compile-time arguments: " + ", ".join(
                f"{names[i]}={args[i]!r}" for i in static))
        for name, fn in c.stages:
            out.append(f"\n## after {name}\n")
            out.append(print_function(fn))
        out.append(f"## backend: {c.backend}\n# why: {c.reason}")
        note = getattr(c.executable, "options_note", None)
        if note:
            out.append(f"# XLA options: {note}")
        out.append(f"# compile time: {c.compile_seconds * 1e3:.1f} ms (before XLA's own "
                   "compilation, which happens on the first call)")
        return "\n".join(out)


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
    arrays = [(i, a) for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    for x in range(len(arrays)):
        for y in range(x + 1, len(arrays)):
            (i, a), (j, b) = arrays[x], arrays[y]
            if (i in written or j in written) and np.may_share_memory(a, b):
                raise UnsupportedError(
                    f"arguments {c.param_names[i]!r} and {c.param_names[j]!r} share memory and "
                    "one of them is written; "
                    "solvent compiles each argument as a separate array",
                    hint="pass a copy of one of them")


def _check_writable(c: Compiled, args, written: set[int]):
    for k in sorted(written):
        if not args[k].flags.writeable:
            raise ValueError(f"argument {c.param_names[k]!r} is read-only, but the function "
                             "writes into it")


def run_compiled(c: Compiled, args):
    writes = _written_args(c)
    written = {k for _, k in writes}
    # every check that can refuse the call runs before anything is computed or written
    _check_aliasing(c, args, written)
    _check_writable(c, args, written)
    tr = c.translation
    ir_args = [args[i] for i in tr.arg_map]
    outs = c.executable(*ir_args)
    pending = []
    for r, k in writes:
        out = np.asarray(outs[r])
        if out.shape != args[k].shape or out.dtype != args[k].dtype:
            raise IRError(
                f"{c.param_names[k]!r}: the compiled program returned {out.dtype}{out.shape} "
                f"for an argument of {args[k].dtype}{args[k].shape}; nothing was written")
        pending.append((args[k], out))
    # the call succeeded and every result fits: only now write into the caller's buffers
    _write_all(pending)
    return _rebuild(tr.result, outs, args)


def _write_all(pending):
    """Copy every result into its argument as one step: a Ctrl-C that arrives meanwhile is
    held until the last array is written, so the caller never sees half of the updates."""
    if not pending:
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


def _rebuild(spec, outs, args, memo=None):
    """The Python return value. A spec object that occurs twice (one array returned twice)
    gives one object twice, as in NumPy."""
    memo = {} if memo is None else memo
    if id(spec) in memo:
        return memo[id(spec)]
    kind = spec[0]
    if kind == "tuple":
        r = tuple(_rebuild(s, outs, args, memo) for s in spec[1])
    elif kind == "const":
        r = spec[1]
    elif kind == "arg":
        r = _view(args[spec[1]], spec[2])
    else:
        r = _result_value(spec, outs)
    memo[id(spec)] = r
    return r


def _result_value(spec, outs):
    _, i, how = spec
    v = np.asarray(outs[i])
    if how == "array":
        return np.array(v, copy=True)
    if how == "weak":
        return v.item()
    return v[()]


def _view(a, steps):
    """Apply compile-time view steps (see frontend.values.ArrayRef) to a NumPy array."""
    from ..ops.indexspec import numpy_index
    for kind, arg in steps:
        if kind == "index":
            a = a[numpy_index(arg, [], a.shape)]
        elif kind == "transpose":
            a = np.transpose(a, arg)
        elif kind == "reshape":
            a = a.reshape(arg)
        else:
            a = a.real if arg == "real" else a.imag
    return a


def jit(fn=None, *, fallback: str | None = None, backend: str | None = None):
    """Compile ``fn`` through solvent. Usable as ``@jit`` or ``@jit(fallback="python")``."""
    if fn is None:
        return lambda f: JitFunction(f, fallback, backend)
    return JitFunction(fn, fallback, backend)
