"""``solvent.grad``, ``solvent.value_and_grad``, ``solvent.vjp`` over unmodified NumPy source.

Order of work (issue 11): translate with the frontend and optimize with the pass pipeline, as
``solvent.jit`` does; differentiate the optimized IR (``transform.vjp_function``); optimize
the gradient program again (``passes.pipeline.GRADIENT_ORDER``, verified); compile it on a
backend (XLA first, as ``jit`` chooses, or ``backend=``). A gradient that runs natively is
also made from the primal optimized with the native backend's raising options, and that one
is kept when its tape stays small (``Gradient._try_native_raising``).

Semantics: the *outputs* of a call are its returned values followed by the final values of
the arguments it mutates (in argument order). ``grad`` differentiates the returned value,
which must be one float scalar; the mutated arguments' final values are outputs that get a
zero cotangent. ``vjp`` takes a cotangent for every output. Gradients are with respect to the
values the arguments hold on entry; nothing is written into the caller's arrays.

Integer and boolean scalar arguments are compile-time values of the gradient (a loop's trip
count becomes a constant, so the loop records a tape); a new value compiles a new version.
"""
from __future__ import annotations

import functools
import inspect
import numbers
import types
import weakref

import numpy as np

from ..backends import get_backend
from ..errors import NeedStatic, UnsupportedError
from ..frontend.translator import translate
from ..ir.types import TensorType, is_float, np_dtype
from ..ir.parser import parse_function
from ..ir.printer import print_function
from ..ir.core import clone_function
from ..ir.verifier import verify
from ..passes.dce import dce
from ..passes.pipeline import build_gradient_pipeline, build_pipeline, run_pipeline
from ..runtime.jit import _rebuild, _type_key, _view, choose_backend, raise_if_failed
from ..frontend.captures import value_key
from ..frontend.arg_trees import plain_object
from .transform import DifferentiationError, vjp_function


# trips a while loop's tape holds at first; a run that needs more rebuilds the
# gradient with the next power of two (buffers grown in chunks, O(n) work per run)
WHILE_CAPACITY = 64

# a native gradient computes an elementwise value of at most this many cheap ops again in
# each of its consumers instead of writing it out (``backends.native.bufferize.Plan``): a
# gradient reads its adjoints in several sums, and each pass over a written-out adjoint
# costs more memory traffic than the few flops (poly_clip_f32 375x1125: 2.0 -> 1.0 ms)
RECOMPUTE = 16

# a gradient of the primal raised with the native backend's options is kept when its tape is
# at most this many times the default gradient's (Gradient._try_native_raising): levinson's
# grows by 1.3% and runs 1.7x faster, lu_nopivot's by 57x and runs 17x slower; None: not tried
NATIVE_RAISING_TAPE: float | None = 1.25


class Gradient:
    """One compiled gradient program and what is needed to call it."""

    def __init__(self, pyfn, args, argnums, backend=None, optimize=True, checkpoints=None):
        self.pyfn = pyfn
        names = list(inspect.signature(pyfn).parameters)
        for k in argnums:
            if not 0 <= k < len(args):
                raise ValueError(f"argnums {k} is out of range for {len(args)} arguments")
            a = args[k]
            from ..frontend.arg_trees import is_tree
            if is_tree(a):
                raise DifferentiationError(
                    f"cannot differentiate with respect to argument {names[k]!r}: it is a "
                    f"{type(a).__name__}; pass the float arrays to differentiate as "
                    "arguments of their own (the container's other items may stay in it)")
            if isinstance(a, (bool, numbers.Integral, np.bool_)) or (
                    isinstance(a, np.ndarray) and a.dtype.kind not in "f"):
                raise DifferentiationError(
                    f"cannot differentiate with respect to argument {names[k]!r}: it is "
                    f"{_describe(a)}; only float arrays and scalars have gradients")
        static = frozenset(i for i, a in enumerate(args)
                           if isinstance(a, (bool, numbers.Integral, np.bool_)))
        while True:
            try:
                tr = translate(pyfn, args, static)
                break
            except NeedStatic as e:
                if e.args_needed <= static:
                    raise UnsupportedError(e.what + " must be known at compile time", e.loc)
                static = static | e.args_needed
        self.static = static
        self.translation = tr
        frontend_fn = clone_function(tr.fn) if optimize and backend in (None, "native") \
            else None
        fn = run_pipeline(tr.fn) if optimize else _functionalize_only(tr.fn)
        self.primal = fn
        wrt = []
        for k in argnums:
            if k not in tr.arg_map:
                raise DifferentiationError(f"cannot differentiate with respect to argument "
                                           f"{names[k]!r}: it is a compile-time value")
            wrt.append(tr.arg_map.index(k))
        self.wrt, self.checkpoints, self.want_backend = wrt, checkpoints, backend
        self.nres = len(fn.result_types)
        self._build(WHILE_CAPACITY, frontend_fn)

    def _differentiate(self, primal, capacity: int):
        """(gradient program optimized, seeded results, report, backend) of ``primal``."""
        report: dict = {}  # tape_bytes, checkpointed, while_trips (vjp_function)
        g, seeded = vjp_function(primal, self.wrt, self.checkpoints, report,
                                 while_capacity=capacity)
        g = run_pipeline(g, passes=build_gradient_pipeline())
        return g, seeded, report, choose_backend(g, self.want_backend)[0]

    def _build(self, capacity: int, frontend_fn=None) -> None:
        """Differentiate and compile, while loops taping ``capacity`` trips. With
        ``frontend_fn`` (the program before the passes) and a gradient that runs natively,
        also differentiate it optimized with the native backend's raising options, and keep
        that gradient when it runs natively too with a tape at most ``NATIVE_RAISING_TAPE``
        times the default's (below)."""
        self.capacity = capacity
        self.fn, self.seeded, self.report, self.backend = \
            self._differentiate(self.primal, capacity)
        if frontend_fn is not None and self.backend == "native" and \
                NATIVE_RAISING_TAPE is not None:
            self._try_native_raising(frontend_fn)
        self.executable = self._compile(self.fn)
        self._grads_exe = None   # the program without the primal results (``grads_only``)
        self._ct_specs = None    # (result index, shape, dtype) per seeded result (run_ir)

    def _try_native_raising(self, frontend_fn) -> None:
        """The native backend optimizes a primal with its own raising options (a triangular
        loop stays a loop of exact trip count instead of masked full-length vectors, which do
        twice its work); the default pipeline serves every backend. Differentiating the
        natively raised primal gives a cheaper gradient where those loops carry scalars
        (levinson 6.2 -> 3.7x its primal, running_max_dp 3.9 -> 2.8x: its tape 500 kB ->
        4 kB) and a far dearer one where they update an array element by element: the tape
        then holds the array once per inner trip (lu_nopivot: 39.6 kB -> 2.3 MB, 6.7 ->
        114x). The tape is written once and read once, so its size stands for the reverse
        pass's memory traffic: kept when it grows by at most NATIVE_RAISING_TAPE."""
        native = get_backend("native").pass_defaults.get("raise_loops")
        if native is None:
            return
        alt = run_pipeline(frontend_fn, passes=build_pipeline({"raise_loops": dict(native)}))
        if print_function(alt) == print_function(self.primal):
            return
        ga, seeded, report, be = self._differentiate(alt, self.capacity)
        if be != "native" or \
                report["tape_bytes"] > NATIVE_RAISING_TAPE * max(self.report["tape_bytes"], 1):
            return
        self.primal, self.seeded, self.report, self.backend, self.fn = \
            alt, seeded, report, be, ga

    def _compile(self, g):
        be = get_backend(self.backend)
        return be.compile(g, recompute=RECOMPUTE) if self.backend == "native" \
            else be.compile(g)

    def grads_program(self):
        """The gradient program returning only the gradients (then the while loops' trips
        and the checks' code and payload): what ``vjp_fn`` needs, whose outputs were
        computed by ``vjp``. Dropping the primal results spares writing them out (and DCE
        whatever only they read); compiled on first use."""
        if self._grads_exe is None:
            g = parse_function(print_function(self.fn))
            g.errors = list(self.fn.errors)
            term = g.body.terminator
            nerr = 2 if self.primal.errors else 0
            term.operands = list(term.operands)[self.nres - nerr:]
            g = dce(g)
            verify(g, tensor_only=True)
            self.grads_fn = g
            self._grads_exe = self._compile(g)
        return self._grads_exe

    def run(self, args, result_cts: dict, grads_only: bool = False):
        """Primal outputs and gradients; ``result_cts``: IR result index -> cotangent.
        ``grads_only``: the primal outputs are not computed (only the checks' code and
        payload come back in their place, when the function has checks)."""
        return self.run_ir(self.ir_args(args), result_cts, grads_only)

    def ir_args(self, args) -> list:
        """The program's arguments for a call on ``args`` (global/closure arrays read come
        after the arguments)."""
        tr = self.translation
        args = tuple(args) + tr.implicit
        return [args[i] for i in tr.arg_map]

    def run_ir(self, ir_args, result_cts: dict, grads_only: bool = False):
        """``run`` on the program's arguments ``ir_args`` (``ir_args``); ``vjp_fn`` calls
        this, its arguments fixed when ``vjp`` ran: the per-call Python work is a large
        share of a small kernel's gradient time."""
        specs = self._ct_specs
        if specs is None:
            types = self.primal.result_types
            specs = self._ct_specs = [(i, types[i].shape, np_dtype(types[i].dtype))
                                      for i in self.seeded]
        cts = []
        for i, shape, dt in specs:
            c = result_cts.get(i)
            c = np.zeros(shape, dt) if c is None else np.asarray(c, dtype=dt)
            if c.shape != shape:
                raise ValueError(f"cotangent of shape {c.shape} for an output of shape {shape}")
            cts.append(c if shape else c[()])
        exe = self.grads_program() if grads_only else self.executable
        outs = list(exe(*ir_args, *cts, *self.report["tables"]))
        nerr = 2 if self.primal.errors else 0     # the checks' code and payload come last
        errs, outs = outs[len(outs) - nerr:], outs[:len(outs) - nerr]
        ntrips = self.report["while_trips"]
        trips = [int(t) for t in outs[len(outs) - ntrips:]] if ntrips else []
        if trips and max(trips) > self.capacity and not (errs and errs[0]):
            # a while tape overflowed (and no check failed): grow, repeat
            self._build(1 << (max(trips) - 1).bit_length())
            return self.run_ir(ir_args, result_cts, grads_only)
        nres = 0 if grads_only else self.nres - nerr
        primal, grads = outs[:nres] + errs, outs[nres:len(outs) - ntrips]
        if self.primal.errors:
            raise_if_failed(self.primal.errors, primal[-2], primal[-1])
        return primal, [np.asarray(g) for g in grads]

    def returned(self, primal, args, finals=None):
        """The Python return value. An argument returned (or a view of one) that the
        function mutated is its final value, as NumPy's call returns it (``finals``: the
        final arrays by argument position, ``final_values``), never the caller's array,
        which the gradient leaves unchanged."""
        finals = self.final_values(primal, args) if finals is None else finals
        if finals:
            args = [finals.get(k, a) for k, a in enumerate(args)]
        return _rebuild(self.translation.result, primal, args)

    def final_values(self, primal, args) -> dict:
        """Argument position -> a new array of the final value of that mutated argument."""
        out = {}
        for r, k in enumerate(self.primal.writeback):
            if k is not None:
                pos = self.translation.arg_map[k]
                out[pos] = np.array(primal[r], dtype=args[pos].dtype).reshape(args[pos].shape)
        return out

    def mutated(self) -> list[int]:
        """IR result indices of the written-back arguments' final values."""
        wb = self.primal.writeback
        return sorted((r for r, k in enumerate(wb) if k is not None), key=lambda r: wb[r])


def _functionalize_only(fn):
    from ..passes.checks_to_values import checks_to_values
    from ..passes.functionalize import functionalize
    from ..passes.prove_checks import prove_checks
    return checks_to_values(prove_checks(functionalize(fn)))


def _describe(a) -> str:
    if isinstance(a, np.ndarray):
        return f"an array of {a.dtype}"
    return f"an integer/boolean value ({type(a).__name__})"


class _Cache:
    """Compiled gradients of one function by argument types and the values of the arguments
    compiled in as constants (integers and booleans, and any argument the translation asked
    to know at compile time)."""

    def __init__(self, pyfn, argnums, backend, optimize, checkpoints):
        self.pyfn, self.argnums, self.backend, self.optimize = pyfn, argnums, backend, optimize
        self.checkpoints = checkpoints
        self.versions: dict = {}
        self.static: dict = {}  # type key -> the static argument positions learned

    def get(self, args, bound=False) -> Gradient:
        if not bound:  # ``compiled(*args)``: the caller's arguments as passed
            args = _bind(self.pyfn, args)
        type_key = tuple(_type_key(a) for a in args)
        static = self.static.get(type_key)
        if static is not None:
            g = self.versions.get(type_key + tuple((i, value_key(args[i])) for i in static))
            if g is not None:
                return g
        g = Gradient(self.pyfn, args, self.argnums, self.backend, self.optimize,
                     self.checkpoints)
        static = self.static[type_key] = tuple(sorted(g.static))
        self.versions[type_key + tuple((i, value_key(args[i])) for i in static)] = g
        return g


def _bind(f, args, kwargs=None) -> tuple:
    """``args`` (and ``kwargs``, by parameter name) in parameter order with the defaults of
    the parameters not passed (as ``solvent.jit`` does); ``argnums`` count parameters."""
    from ..frontend.arg_trees import extend
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        if kwargs:
            raise TypeError(f"{getattr(f, '__name__', f)!r}: keyword arguments need a "
                            "function whose signature Python can read") from None
        return extend(tuple(args))
    params = sig.parameters.values()
    if not kwargs and len(args) == len(params) and all(
            p.kind == p.POSITIONAL_OR_KEYWORD for p in params):   # one value per parameter
        return extend(tuple(args))
    try:
        bound = sig.bind(*args, **(kwargs or {}))
    except TypeError as e:
        raise TypeError(f"{getattr(f, '__qualname__', f)}(): {e}") from None
    bound.apply_defaults()
    # one value per parameter, as solvent.jit binds them (*args a tuple, **kwargs a dict,
    # keyword-only parameters in their place: ``bound.args`` dropped those); the leaves of
    # containers passed in (a dict of parameters) follow
    return extend(tuple(bound.arguments[n] for n in sig.parameters))


def _argnums(argnums, f=None):
    """(single, nums); a negative argnum counts from the last parameter, as in ``jax.grad``
    (``argnums=-1``: the last parameter), when ``f``'s signature has a fixed count."""
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    if f is not None and any(k < 0 for k in nums):
        try:
            params = inspect.signature(f).parameters.values()
        except (TypeError, ValueError):
            return single, nums
        if not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            n = len(params)
            nums = tuple(k + n if -n <= k < 0 else k for k in nums)
    return single, nums


def _loss_index(g: Gradient) -> int | None:
    """The IR result index of the loss; None when the loss is a compile-time float constant
    (a loop of no trips, say: its gradient is zero)."""
    spec = g.translation.result
    if spec[0] == "const" and isinstance(spec[1], (float, np.floating)):
        return None
    if spec[0] != "value":
        raise DifferentiationError(
            f"{g.pyfn.__qualname__} must return one float scalar to take its gradient")
    t = g.primal.result_types[spec[1]]
    if not (isinstance(t, TensorType) and t.shape == () and is_float(t.dtype)):
        raise DifferentiationError(
            f"{g.pyfn.__qualname__} returns {t}; grad needs one float scalar (use solvent.vjp)")
    return spec[1]


def value_and_grad(f, argnums=0, *, backend=None, optimize=True, checkpoints=None):
    """``f``'s value and its gradient w.r.t. the arguments ``argnums`` (an int: one gradient;
    a tuple: a tuple of gradients). ``f`` returns one float scalar.

    ``checkpoints``: the memory budget of long loops (``autodiff.checkpoint``): None
    (automatic: a loop whose tape would exceed 64 MiB keeps about ``sqrt(2 n)`` snapshots of
    its state, the fewest with which the binomial schedule runs the loop forward at most
    twice more), 0 (tape every trip), or k (k snapshots per loop, binomial schedule).
    ``wrapped.compiled(*args)`` gives the compiled ``Gradient`` (its ``report`` holds the
    tape bytes)."""
    func, pre, pre_kw = _unwrap(f)
    single, nums = _argnums(argnums, f)
    nums = tuple(k + len(pre) for k in nums)
    cache = _Cache(func, nums, backend, optimize, checkpoints)

    def wrapped(*args, **kwargs):
        args = _bind(func, (*pre, *args), {**pre_kw, **kwargs})
        g = cache.get(args, bound=True)
        i = _loss_index(g)
        primal, grads = g.run(args, {} if i is None else {i: 1.0})
        grads = [_like(gr, args[k]) for gr, k in zip(grads, nums)]
        return g.returned(primal, args), (grads[0] if single else tuple(grads))

    wrapped.__name__ = f"value_and_grad({getattr(f, '__name__', 'f')})"
    wrapped.compiled = lambda *args: cache.get(_bind(func, (*pre, *args), pre_kw), bound=True)
    return wrapped


def _unwrap(f):
    """(function, leading arguments, keywords) of ``f``, as ``solvent.jit`` unwraps them: a
    bound method of a plain object is its function with the object first, a
    ``functools.partial`` its function with the partial's arguments (``argnums`` count the
    parameters left to the caller in both)."""
    if isinstance(f, types.MethodType) and plain_object(f.__self__):
        return f.__func__, (f.__self__,), {}
    if isinstance(f, functools.partial) and isinstance(f.func, types.FunctionType):
        return f.func, tuple(f.args), dict(f.keywords)
    return f, (), {}


def grad(f, argnums=0, *, backend=None, optimize=True, checkpoints=None):
    """The gradient of ``f`` (returning one float scalar) w.r.t. the arguments ``argnums``
    (``checkpoints``: as ``value_and_grad``)."""
    vg = value_and_grad(f, argnums, backend=backend, optimize=optimize,
                        checkpoints=checkpoints)

    def wrapped(*args, **kwargs):
        return vg(*args, **kwargs)[1]

    wrapped.__name__ = f"grad({getattr(f, '__name__', 'f')})"
    wrapped.compiled = vg.compiled
    return wrapped


def vjp(f, *args, argnums=None, backend=None, optimize=True, checkpoints=None):
    """``(outputs, vjp_fn)``: ``outputs`` is ``f(*args)``'s returned value, or, when ``f``
    mutates arguments, ``(returned, *final values of the mutated arguments)``;
    ``vjp_fn(cotangent)`` (a cotangent shaped like ``outputs``) returns the tuple of
    cotangents of the float arguments (``argnums``: all float arguments by default)."""
    func, pre, pre_kw = _unwrap(f)
    args = _bind(func, (*pre, *args), pre_kw)
    if argnums is None:
        # the caller's float arguments (of a method or partial: not the leaves of the object
        # or of the partial's arguments, which extend appended)
        last = len(inspect.signature(func).parameters) if pre else len(args)
        argnums = tuple(k - len(pre) for k, a in enumerate(args[:last])
                        if k >= len(pre) and _is_float_arg(a))
    _, nums = _argnums(argnums, f)
    nums = tuple(k + len(pre) for k in nums)
    g = _vjp_cache(func, nums, backend, optimize, checkpoints).get(args, bound=True)
    primal, _ = g.run(args, {})
    finals = g.final_values(primal, args)
    ret = g.returned(primal, args, finals)
    mutated = g.mutated()
    wb, arg_map = g.primal.writeback, g.translation.arg_map
    outputs = (ret, *[finals[arg_map[wb[r]]] for r in mutated]) if mutated else ret

    # what every call of vjp_fn shares, found once: the program's arguments, the written
    # arguments, the result spec
    ir_args = g.ir_args(args)
    written = {g.translation.arg_map[k]: r for r, k in enumerate(g.primal.writeback)
               if k is not None}
    spec = g.translation.result

    def vjp_fn(ct):
        cts: dict = {}
        direct: dict = {}  # argument position -> cotangent of an argument returned as is
        if mutated:
            _flatten(spec, ct[0], cts, direct, args, primal)
            for r, c in zip(mutated, ct[1:]):
                cts[r] = c if r not in cts else cts[r] + np.asarray(c)
        elif spec[0] == "value":
            cts[spec[1]] = ct
        else:
            _flatten(spec, ct, cts, direct, args, primal)
        for pos, c in direct.items():  # a returned argument is its final value
            if pos in written:
                r = written[pos]
                cts[r] = c if r not in cts else cts[r] + np.asarray(c)
        _, grads = g.run_ir(ir_args, cts, grads_only=True)   # the outputs are known already
        out = []
        for gr, k in zip(grads, nums):
            if k in direct and k not in written:  # returned unchanged: the identity
                gr = gr + np.asarray(direct[k])
            out.append(_like(gr, args[k]))
        return tuple(out)

    return outputs, vjp_fn


# f -> {(argnums, backend, optimize, checkpoints): _Cache}: a second ``vjp`` of the same
# function on arguments of the same types reuses the compiled gradient
_VJP_CACHES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _vjp_cache(f, nums, backend, optimize, checkpoints) -> _Cache:
    key = (nums, backend, optimize, checkpoints)
    try:
        per_fn = _VJP_CACHES.setdefault(f, {})
    except TypeError:  # not weakly referenceable: compile each time
        return _Cache(f, nums, backend, optimize, checkpoints)
    if key not in per_fn:
        per_fn[key] = _Cache(f, nums, backend, optimize, checkpoints)
    return per_fn[key]


def _is_float_arg(a) -> bool:
    if isinstance(a, np.ndarray):
        return a.dtype.kind == "f"
    return isinstance(a, (float, np.floating))


def _flatten(spec, ct, out: dict, direct: dict, args, primal) -> None:
    kind = spec[0]
    if kind == "tuple":
        if spec[2:3] == ("dict",):     # a dict returned: its cotangent is a dict too
            ct = [ct.get(k) if isinstance(ct, dict) else None for k in spec[3]]
        for s, c in zip(spec[1], ct):
            _flatten(s, c, out, direct, args, primal)
    elif kind == "value":
        out[spec[1]] = ct if spec[1] not in out else out[spec[1]] + np.asarray(ct)
    elif kind == "select":  # the returned value is the one of the path the primal ran
        branch = spec[2] if bool(np.asarray(primal[spec[1]])) else spec[3]
        _flatten(branch, ct, out, direct, args, primal)
    elif kind not in ("arg", "const"):
        raise DifferentiationError(f"a returned value of kind {kind!r} is not differentiated")
    elif kind == "arg" and ct is not None:
        k = spec[1]
        if spec[2]:
            ct = _view_adjoint(np.shape(args[k]), spec[2], ct)
        direct[k] = ct if k not in direct else direct[k] + np.asarray(ct)


def _view_adjoint(shape, steps, ct):
    """The cotangent of an argument of ``shape`` whose view (compile-time ``steps``: slices,
    transposes, reshapes) received ``ct``: ``ct`` added into the slots the view reads (the
    adjoint of reading them), found by taking the same view of the slots' flat indices."""
    if any(kind not in ("index", "transpose", "reshape") for kind, _ in steps):
        raise DifferentiationError("a returned real or imaginary part of an argument is not "
                                   "differentiated")
    slots = _view(np.arange(int(np.prod(shape))).reshape(shape), steps)
    out = np.zeros(int(np.prod(shape)), dtype=np.result_type(np.asarray(ct).dtype, np.float64))
    np.add.at(out, np.asarray(slots).ravel(), np.broadcast_to(ct, np.shape(slots)).ravel())
    return out.reshape(shape)


def _like(g, arg):
    """A gradient of the argument's type: an array of its dtype and shape, a NumPy scalar
    of its type (np.float32 stays np.float32), or a Python float."""
    if isinstance(arg, np.ndarray):
        return np.asarray(g, dtype=arg.dtype).reshape(arg.shape)
    if isinstance(arg, np.generic):
        return type(arg)(g)
    return float(g)
